// A test run or a service that cannot reach its infrastructure should say which service, where,
// and how to start it, instead of surfacing a bare ECONNREFUSED from deep inside a driver.

export const START_POSTGRES = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';
export const START_NATS =
  'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l ' +
  '/var/log/nats-server.log';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'CONNECTION_REFUSED']);

export const isConnectionError = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  const nested = (error as { errors?: unknown[] } | null)?.errors;
  return Array.isArray(nested) && nested.some(isConnectionError);
};

/** Strips a password from a connection URL before it goes into a message. */
export const redactUrl = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]+):[^@]*@/i, '$1:***@');

export const postgresUnreachable = (url: string, cause: unknown): Error =>
  new Error(`PostgreSQL is unreachable at ${redactUrl(url)} (${(cause as Error)?.message ?? cause}). Start it with: ${START_POSTGRES}`, {
    cause,
  });

export const natsUnreachable = (url: string, cause: unknown): Error =>
  new Error(`NATS is unreachable at ${redactUrl(url)} (${(cause as Error)?.message ?? cause}). Start it with: ${START_NATS}`, {
    cause,
  });
