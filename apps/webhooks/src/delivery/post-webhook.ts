import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { SIGNATURE_HEADER } from '../signing/signing-key';

export type PostResult = { statusCode?: number; responseBody?: string; error?: string; latencyMs: number };

const MAX_RESPONSE_BODY_CHARS = 2_000;

// Connections to receivers are kept open and reused (node:http rather than fetch: a fraction of
// the CPU per request, which is most of a delivery's cost when the receiver answers at once).
// An idle connection is closed after 4 s, before the usual 5 s of a server's keep-alive timeout, so
// a request is seldom written to a connection the receiver is closing.
const agentOptions = { keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' as const, timeout: 4_000 };
const httpAgent = new HttpAgent(agentOptions);
const httpsAgent = new HttpsAgent(agentOptions);

/**
 * One signed POST with an explicit timeout; never throws, a network failure is a result too.
 * Redirects are not followed (a 3xx is the receiver's answer).
 */
export const postWebhook = (url: string, body: string, signature: string, timeoutMs: number): Promise<PostResult> => {
  const started = performance.now();
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ error: `not a URL: ${url}`, latencyMs: 0 });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.resolve({ error: `unsupported protocol ${target.protocol}`, latencyMs: 0 });
  const https = target.protocol === 'https:';
  const payload = Buffer.from(body);
  return new Promise<PostResult>((resolve) => {
    const request = (https ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      agent: https ? httpsAgent : httpAgent,
      headers: { 'content-type': 'application/json', 'content-length': payload.length, [SIGNATURE_HEADER]: signature },
    });
    let settled = false;
    // One deadline for the whole exchange (connect, send, answer).
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
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
      response.on('end', () => finish({ statusCode: response.statusCode ?? 0, responseBody: text.slice(0, MAX_RESPONSE_BODY_CHARS) }));
      // Closed before the end of the answer ('end' comes first when it is complete).
      response.on('close', () => finish({ error: 'ECONNRESET' }));
    });
    request.end(payload);
  });
};
