// NATS message data of the webhooks service. Replies are HTTP wire objects: the reference's
// TestWebhookResponse, and the extension objects of the delivery log (documented in the gateway's
// OpenAPI as extensions beyond the reference).

/** The 32 values of the reference's WebhookType enum. */
export const webhookTypes = [
  'OUTGOING_PAYMENT.PENDING',
  'OUTGOING_PAYMENT.PROCESSING',
  'OUTGOING_PAYMENT.COMPLETED',
  'OUTGOING_PAYMENT.FAILED',
  'OUTGOING_PAYMENT.EXPIRED',
  'OUTGOING_PAYMENT.REFUND_PENDING',
  'OUTGOING_PAYMENT.REFUND_COMPLETED',
  'OUTGOING_PAYMENT.REFUND_FAILED',
  'INCOMING_PAYMENT.PENDING',
  'INCOMING_PAYMENT.COMPLETED',
  'INCOMING_PAYMENT.FAILED',
  'CUSTOMER.KYC_APPROVED',
  'CUSTOMER.KYC_REJECTED',
  'CUSTOMER.KYC_PENDING',
  'CUSTOMER.KYB_APPROVED',
  'CUSTOMER.KYB_REJECTED',
  'CUSTOMER.KYB_PENDING',
  'VERIFICATION.APPROVED',
  'VERIFICATION.REJECTED',
  'VERIFICATION.RESOLVE_ERRORS',
  'VERIFICATION.IN_PROGRESS',
  'VERIFICATION.PENDING_MANUAL_REVIEW',
  'VERIFICATION.READY_FOR_VERIFICATION',
  'INTERNAL_ACCOUNT.BALANCE_UPDATED',
  'INTERNAL_ACCOUNT.STATUS_UPDATED',
  'INVITATION.CLAIMED',
  'BULK_UPLOAD.COMPLETED',
  'BULK_UPLOAD.FAILED',
  'AGENT_ACTION.PENDING_APPROVAL',
  'CARD.STATE_CHANGE',
  'CARD.FUNDING_SOURCE_CHANGE',
  'TEST',
] as const;
export type WebhookType = (typeof webhookTypes)[number];

/** The reference's BaseWebhook envelope; TEST carries `data: {}` as the reference's example does. */
export type WebhookEnvelope<Data = unknown> = { id: string; type: WebhookType; timestamp: string; data: Data };

/** POST /sandbox/webhooks/test reply (reference TestWebhookResponse). */
export type TestWebhookResponseWire = { url?: string; response_status: number; response_body?: string };

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** Extension: one row of the delivery log (one webhook to one platform). */
export type WebhookDeliveryWire = {
  webhookId: string;
  type: WebhookType;
  resourceId: string;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  retried: boolean;
  nextAttemptAt?: string;
  lastStatusCode?: number;
  createdAt: string;
  deliveredAt?: string;
  failedAt?: string;
};

/** Extension: one HTTP attempt of a delivery. */
export type WebhookAttemptWire = {
  attempt: number;
  at: string;
  url: string;
  statusCode?: number;
  latencyMs: number;
  error?: string;
};

export type ListWebhookDeliveriesData = { webhookId?: string; resourceId?: string; limit: number; cursor?: string };
export type WebhookIdData = { webhookId: string };
/** Either a time range of creation (from inclusive, to exclusive) or one resource. */
export type RedeliverWebhooksData = { from?: string; to?: string; resourceId?: string };
export type RedeliverWebhooksReply = { redelivered: number; webhookIds: string[] };

/** Extension: the platform's webhook verification key (PEM SPKI, P-256). */
export type WebhookSigningKeyWire = { publicKey: string; algorithm: 'ECDSA_P256_SHA256'; createdAt: string };
