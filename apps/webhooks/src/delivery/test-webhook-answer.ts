import { isPublicAddress, type TestWebhookResponseWire } from '@corridor/contracts';
import type { PostResult } from './post-webhook';

/**
 * What POST /sandbox/webhooks/test tells the platform about its endpoint's answer: the status
 * always, the body (its first 2,000 characters, as the reference's response_body) only when the
 * answer came from a public address. Where a deployment lets webhooks reach private addresses
 * (WEBHOOK_ALLOW_PRIVATE_TARGETS=true), a body read from one would hand a tenant the contents of
 * an internal service; its status alone is what a test of the endpoint needs. Undefined when
 * there was no answer at all.
 */
export const testWebhookAnswer = (url: string, result: PostResult): TestWebhookResponseWire | undefined => {
  if (result.statusCode === undefined) return undefined;
  const fromPublic = result.peerAddress !== undefined && isPublicAddress(result.peerAddress);
  const body = fromPublic && result.responseBody !== undefined ? { response_body: result.responseBody } : {};
  return { url, response_status: result.statusCode, ...body };
};
