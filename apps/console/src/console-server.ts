import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { TraceTooBroad } from '../../../scripts/trace/collect-trace';
import type { TimeWindow } from '../../../scripts/trace/trace-reader';
import type { ConsoleReader } from './console-reader';
import { decideOperator, type OperatorCredentials } from './operator-auth';
import { homePage, messagePage, statusPage, tracePage } from './render';

// The console's HTTP surface: GET only, every page behind the operator credential except the
// liveness probe. Pages carry no script, and the headers forbid framing, caching and referrers.

export type ConsoleServerOptions = { port: number; host: string; credentials: OperatorCredentials; reader: ConsoleReader; logger: Logger };

const MAX_ID_CHARS = 200;

/** The optional from/to of a trace (an account takes part in many payments): ISO times, or a reason to refuse. */
export const parseWindow = (from: string | null, to: string | null): { window: TimeWindow } | { error: string } => {
  const window: TimeWindow = {};
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!value) continue;
    const time = new Date(value);
    if (Number.isNaN(time.getTime())) return { error: `${name} needs a time such as 2026-11-27T13:00:00Z, not "${value.slice(0, 40)}".` };
    window[name] = time.toISOString();
  }
  return { window };
};

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const send = (response: ServerResponse, status: number, html: string, extra: Record<string, string> = {}): void => {
  response.writeHead(status, { ...HEADERS, ...extra }).end(html);
};

/** The page for a GET the operator is allowed to make. */
const route = async (options: ConsoleServerOptions, url: URL, response: ServerResponse): Promise<void> => {
  if (url.pathname === '/') return send(response, 200, homePage());
  if (url.pathname === '/status') return send(response, 200, statusPage(await options.reader.status()));
  if (url.pathname !== '/trace') return send(response, 404, messagePage('Not found', 'Served here: /, /trace?id=…, /status.'));
  const id = (url.searchParams.get('id') ?? '').trim();
  if (!id || id.length > MAX_ID_CHARS) {
    return send(response, 400, messagePage('Which id?', `Give one id of at most ${MAX_ID_CHARS} characters.`, id.slice(0, MAX_ID_CHARS)));
  }
  const bounds = parseWindow(url.searchParams.get('from'), url.searchParams.get('to'));
  if ('error' in bounds) return send(response, 400, messagePage('Which times?', bounds.error, id));
  try {
    const trace = await options.reader.trace(id, bounds.window);
    if (trace.events.length === 0) {
      return send(response, 404, messagePage('Nothing found', `No event store and no webhook names ${id}.`, id));
    }
    return send(response, 200, tracePage(id, trace));
  } catch (error) {
    if (error instanceof TraceTooBroad) {
      const hint = `${id} took part in too many requests to show at once; add &from=…&to=… (ISO 8601 times) to the address.`;
      return send(response, 422, messagePage('Too broad', hint, id));
    }
    throw error;
  }
};

const handle = async (options: ConsoleServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> => {
  const url = new URL(request.url ?? '/', 'http://console');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return send(response, 405, messagePage('Read-only', 'The console only reads: GET only.'), { allow: 'GET, HEAD' });
  }
  if (url.pathname === '/health/live') return send(response, 200, 'ok', { 'content-type': 'text/plain' });
  const decision = decideOperator(options.credentials, request.headers.authorization);
  if (!decision.allowed) {
    options.logger.warn({ path: url.pathname, reason: decision.reason, from: request.socket.remoteAddress }, 'Console access refused.');
    // With operator users the browser prompts for their name and password; a token alone has no prompt.
    const challenge = options.credentials.users.size > 0 ? 'Basic realm="Corridor console", charset="UTF-8"' : 'Bearer realm="console"';
    const refusal = 'The console takes an operator credential (CONSOLE_TOKEN or CONSOLE_USERS), never a platform API token.';
    return send(response, 401, messagePage('Operators only', refusal), { 'www-authenticate': challenge });
  }
  const id = url.searchParams.get('id') ?? undefined;
  options.logger.info({ operator: decision.operator, path: url.pathname, id }, 'Console page read.');
  await route(options, url, response);
};

export const startConsoleServer = (options: ConsoleServerOptions): Promise<Server> => {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      options.logger.error({ err: error, url: request.url }, 'A console page failed.');
      const message = error instanceof Error ? error.message : String(error);
      if (!response.headersSent) send(response, 503, messagePage('Could not read the stores', message));
      else response.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
};
