import { createHash } from 'node:crypto';
import type { WebhookEnvelope, WebhookType } from '@corridor/contracts';
import { stringify as uuidStringify, parse as uuidParse, validate as isUuid } from 'uuid';

/**
 * The webhook id is a function of (event, platform), so a redelivered event yields the same
 * `Webhook:<uuid>` and receivers can dedupe on it. It keeps the event's UUIDv7 timestamp and is
 * itself shaped as a UUIDv7 (version 7, RFC 4122 variant), so ids still sort by time.
 */
export const webhookIdFor = (eventId: string, platformId: string): string => {
  const bytes = createHash('sha256').update(`${eventId}|${platformId}`).digest().subarray(0, 16);
  if (isUuid(eventId)) Buffer.from(uuidParse(eventId)).copy(bytes, 0, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return `Webhook:${uuidStringify(bytes)}`;
};

/** The exact bytes sent and signed; stored once so every attempt and redelivery sends the same body. */
export const renderWebhookBody = (id: string, type: WebhookType, timestamp: string, data: unknown): string =>
  JSON.stringify({ id, type, timestamp, data } satisfies WebhookEnvelope);
