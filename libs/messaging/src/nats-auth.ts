import type { ConnectionOptions } from 'nats';

/**
 * How one process proves who it is to NATS (decision 0025): a user and password of its own, an
 * inbox prefix only it may subscribe to (so no other user reads its replies), and TLS when asked.
 * Every connection of the process (requests, the outbox, JetStream consumers) spreads this.
 */
export type NatsAuth = Pick<ConnectionOptions, 'user' | 'pass' | 'inboxPrefix' | 'tls'>;

/** The inbox prefix of a bus user; the generated nats-server configuration lets only that user subscribe under it. */
export const inboxPrefixOf = (user: string): string => `_INBOX_${user}`;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

/**
 * NATS_USER / NATS_PASSWORD (both or neither), NATS_TLS=true for TLS with the system's CAs,
 * NATS_TLS_CA for a private CA, NATS_TLS_CERT + NATS_TLS_KEY for a client certificate.
 */
export const parseNatsAuth = (env: NodeJS.ProcessEnv): NatsAuth => {
  const user = nonEmpty(env['NATS_USER']);
  const pass = nonEmpty(env['NATS_PASSWORD']);
  if ((user === undefined) !== (pass === undefined)) throw new Error('NATS_USER and NATS_PASSWORD go together: set both, or neither.');
  const caFile = nonEmpty(env['NATS_TLS_CA']);
  const certFile = nonEmpty(env['NATS_TLS_CERT']);
  const keyFile = nonEmpty(env['NATS_TLS_KEY']);
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new Error('NATS_TLS_CERT and NATS_TLS_KEY go together: set both, or neither.');
  const tlsWanted = env['NATS_TLS'] === 'true' || caFile !== undefined || certFile !== undefined;
  return {
    ...(user !== undefined ? { user, pass, inboxPrefix: inboxPrefixOf(user) } : {}),
    ...(tlsWanted ? { tls: { ...(caFile ? { caFile } : {}), ...(certFile ? { certFile, keyFile } : {}) } } : {}),
  };
};

/**
 * The options of every NATS connection a service opens: its server, its identity, a name the
 * server's monitoring shows, and no async stack traces. nats.js's default makes each request capture
 * two stacks (its context and its timeout's error) that no answer shows: 9 of 21 µs of CPU per
 * request (bench/nats-request.ts); a timeout is answered as the named service's 503 either way.
 */
export const natsConnectionOptions = (servers: string, auth: NatsAuth | undefined, name: string): ConnectionOptions => ({
  servers,
  ...auth,
  name,
  noAsyncTraces: true,
});
