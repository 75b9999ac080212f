import { SIGNATURE_HEADER } from '../signing/signing-key';

export type PostResult = { statusCode?: number; responseBody?: string; error?: string; latencyMs: number };

const MAX_RESPONSE_BODY_CHARS = 2_000;

/** One signed POST with an explicit timeout; never throws, a network failure is a result too. */
export const postWebhook = async (url: string, body: string, signature: string, timeoutMs: number): Promise<PostResult> => {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    const text = await response.text();
    return { statusCode: response.status, responseBody: text.slice(0, MAX_RESPONSE_BODY_CHARS), latencyMs: performance.now() - started };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (error as Error).message);
    return { error: reason, latencyMs: performance.now() - started };
  }
};
