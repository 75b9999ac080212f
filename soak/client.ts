import { randomUUID } from 'node:crypto';
import type { SoakStats } from './stats';

// The platforms' HTTP client. Every POST carries an Idempotency-Key; a 502/503/504 or a broken
// connection is retried with the same key until RETRY_BUDGET_MS has passed, as a careful platform
// would, so a request caught by a chaos window must still take effect exactly once. A 429 is
// retried too, after its Retry-After, and recorded as a surprise: the soak's stack runs the
// production limits and honest platforms are meant to stay under them.

export type Credentials = { clientId: string; clientSecret: string };
export type Reply = { status: number; body: any; text: string; retried: boolean };
export type CallOptions = {
  body?: unknown;
  form?: FormData;
  rawBody?: Buffer;
  contentType?: string;
  idempotencyKey?: string;
  headers?: Record<string, string>;
};
/** Basic platform credentials, an agent's `Bearer cat_…` header value, or null for an unauthenticated route (device-code redeem). */
export type Auth = Credentials | string | null;

const RETRY_BUDGET_MS = 45_000;
const RETRYABLE = new Set([0, 429, 502, 503, 504]);
const RETRY_AFTER_MAX_MS = 5_000;
const basic = ({ clientId, clientSecret }: Credentials): string => `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SoakClient {
  constructor(
    private readonly baseUrl: string,
    private readonly stats: SoakStats,
  ) {}

  async call(operation: string, auth: Auth, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {
      ...options.headers,
      ...(auth === null ? {} : { authorization: typeof auth === 'string' ? auth : basic(auth) }),
    };
    let payload: string | Uint8Array | FormData | undefined;
    if (options.form) payload = options.form;
    else if (options.rawBody) payload = new Uint8Array(options.rawBody);
    else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (options.rawBody) headers['content-type'] = options.contentType ?? 'application/octet-stream';
    else if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    const began = Date.now();
    let retried = false;
    for (let backoffMs = 250; ; backoffMs = Math.min(backoffMs * 2, 2_000)) {
      const startedAt = Date.now();
      let status = 0;
      let text = '';
      let retryAfter: string | null = null;
      try {
        const response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          ...(payload !== undefined ? { body: payload as never } : {}),
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        text = await response.text();
      } catch (error) {
        text = (error as Error).message;
      }
      this.stats.attempt({ operation, status, startedAt, endedAt: Date.now() });
      if (!RETRYABLE.has(status) || Date.now() - began > RETRY_BUDGET_MS) {
        let body: any;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        this.stats.completed(operation, Date.now() - began, status >= 200 && status < 300, retried);
        return { status, body, text, retried };
      }
      retried = true;
      // What a 5xx said, by message: the check on 5xx counts attempts, this says which refusal they were.
      if (status >= 500)
        this.stats.surprise(
          `${status} (retried): ${text.match(/"message":"([^"]{0,90})/)?.[1] ?? text.slice(0, 90)}`,
          `${operation}: ${text}`,
        );
      if (status === 429) {
        this.stats.surprise(
          `429 (retried after Retry-After): ${text.match(/"message":"([^"]{0,90})/)?.[1] ?? text.slice(0, 90)}`,
          `${operation}: ${text}`,
        );
        await sleep(Math.min(RETRY_AFTER_MAX_MS, Math.max(backoffMs, Number(retryAfter ?? 1) * 1_000)));
        continue;
      }
      await sleep(backoffMs);
    }
  }
}
