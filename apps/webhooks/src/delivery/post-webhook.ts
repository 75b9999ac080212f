import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { ipLiteralOf, refusedWebhookAddressOf, webhookTargetRefusalMessage } from '@corridor/contracts';
import { SIGNATURE_HEADER } from '../signing/signing-key';

/**
 * peerAddress: the address the answer came from (absent without an answer), so a caller can tell
 * a private receiver's answer from a public one's. timedOut: no answer within the deadline (what a
 * circuit breaker counts).
 */
export type PostResult = {
  statusCode?: number;
  responseBody?: string;
  error?: string;
  latencyMs: number;
  peerAddress?: string;
  timedOut?: true;
};

const MAX_RESPONSE_BODY_CHARS = 2_000;

// Connections to receivers are kept open and reused (node:http rather than fetch: a fraction of
// the CPU per request, which is most of a delivery's cost when the receiver answers at once).
// An idle connection is closed after 4 s, before the usual 5 s of a server's keep-alive timeout, so
// a request is seldom written to a connection the receiver is closing.
const agentOptions = { keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' as const, timeout: 4_000 };
const httpAgent = new HttpAgent(agentOptions);
const httpsAgent = new HttpsAgent(agentOptions);
// Connections of publicOnly requests are pooled apart: a socket opened for a request that was not
// checked (a name that may resolve to a private address) is never reused for a checked one.
const publicHttpAgent = new HttpAgent(agentOptions);
const publicHttpsAgent = new HttpsAgent(agentOptions);

/** Every address a host name resolves to, as node:dns gives them. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

export const resolveWithDns: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

export type TargetPolicy = {
  /** Only public addresses: every platform, sandbox or production, unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true. */
  publicOnly: boolean;
  resolve: ResolveHost;
};

/** The deployment's one policy, for every platform whatever its environment. */
export const targetPolicy = (allowPrivateTargets: boolean): TargetPolicy => ({ publicOnly: !allowPrivateTargets, resolve: resolveWithDns });

/** The start of the error recorded for an attempt refused because of where its host points. */
export const REFUSED_TARGET = 'refused:';

/**
 * Where a publicOnly request may connect: the addresses its host resolves to now, all public, or
 * the reason it may not be sent. The request then connects to exactly these addresses (its
 * `lookup` answers with them), so a name re-pointed between the check and the connection (DNS
 * rebinding) cannot reach a private address.
 */
const checkedTarget = async (hostname: string, resolve: ResolveHost): Promise<{ lookup?: LookupFunction } | { refusal: string }> => {
  // A literal IP is not looked up: the check is on the address the socket will use.
  const literal = ipLiteralOf(hostname);
  let addresses: LookupAddress[];
  if (literal !== undefined) addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      return {
        refusal:
          `${REFUSED_TARGET} webhookEndpoint host ${hostname} does not resolve ` +
          `(${(error as NodeJS.ErrnoException).code ?? String(error)}), so it cannot be checked for a public address.`,
      };
    }
    if (addresses.length === 0) return { refusal: `${REFUSED_TARGET} webhookEndpoint host ${hostname} resolves to no address.` };
  }
  const refused = refusedWebhookAddressOf(addresses.map((entry) => entry.address));
  if (refused) return { refusal: `${REFUSED_TARGET} ${webhookTargetRefusalMessage(hostname, refused)}` };
  return literal !== undefined ? {} : { lookup: pinnedLookup(addresses) };
};

/** A `lookup` for one request that answers with addresses already resolved (and checked), whatever it is asked. */
export const pinnedLookup =
  (addresses: LookupAddress[]): LookupFunction =>
  (_hostname, options, callback) => {
    // With autoSelectFamily (the default since Node 20) the socket asks for every address.
    if (options.all) (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };

/**
 * One signed POST with an explicit timeout; never throws, a network failure is a result too.
 * Redirects are not followed (a 3xx is the receiver's answer). With a publicOnly policy the host
 * is resolved here and the request refused (not sent) unless every address is public.
 */
export const postWebhook = async (
  url: string,
  body: string,
  signature: string,
  timeoutMs: number,
  policy?: TargetPolicy,
): Promise<PostResult> => {
  const started = performance.now();
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { error: `not a URL: ${url}`, latencyMs: 0 };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return { error: `unsupported protocol ${target.protocol}`, latencyMs: 0 };
  let lookup: LookupFunction | undefined;
  const publicOnly = policy?.publicOnly === true;
  if (policy && publicOnly) {
    // The look-up counts against the same deadline as the exchange.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<{ refusal: string }>((resolve) => {
      timer = setTimeout(
        () => resolve({ refusal: `${REFUSED_TARGET} webhookEndpoint host ${target.hostname} was not resolved within ${timeoutMs} ms.` }),
        timeoutMs,
      );
    });
    const checked = await Promise.race([checkedTarget(target.hostname, policy.resolve), late]).finally(() => clearTimeout(timer));
    if ('refusal' in checked) return { error: checked.refusal, latencyMs: performance.now() - started };
    lookup = checked.lookup;
  }
  const remainingMs = Math.max(1, Math.round(timeoutMs - (performance.now() - started)));
  const https = target.protocol === 'https:';
  const payload = Buffer.from(body);
  return new Promise<PostResult>((resolve) => {
    const request = (https ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      agent: publicOnly ? (https ? publicHttpsAgent : publicHttpAgent) : https ? httpsAgent : httpAgent,
      headers: { 'content-type': 'application/json', 'content-length': payload.length, [SIGNATURE_HEADER]: signature },
      ...(lookup ? { lookup } : {}),
    });
    let settled = false;
    // One deadline for the whole exchange (connect, send, answer).
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${timeoutMs} ms`, timedOut: true });
      request.destroy();
    }, remainingMs);
    function finish(result: Omit<PostResult, 'latencyMs'>): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: performance.now() - started });
    }
    request.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message }));
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < MAX_RESPONSE_BODY_CHARS) text += chunk;
      });
      const peerAddress = response.socket?.remoteAddress;
      const answered = { statusCode: response.statusCode ?? 0, ...(peerAddress ? { peerAddress } : {}) };
      response.on('end', () => finish({ ...answered, responseBody: text.slice(0, MAX_RESPONSE_BODY_CHARS) }));
      // Closed before the end of the answer ('end' comes first when it is complete).
      response.on('close', () => finish({ error: 'ECONNRESET' }));
    });
    request.end(payload);
  });
};
