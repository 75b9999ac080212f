// Operations Corridor adds beyond the reference (documented as extensions in the gateway's
// OpenAPI at /docs, tagged x-corridor-extension). They are merged into the loaded document so
// their responses are checked like any other; they do not count toward the reference's coverage.

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ content: { 'application/json': { schema } } });
const errors = (...statuses: number[]): Json =>
  Object.fromEntries(statuses.map((status) => [String(status), { description: 'Error', ...json(ref(`Error${status}`)) }]));

const delivery: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['webhookId', 'type', 'resourceId', 'status', 'attemptCount', 'retried', 'createdAt'],
  properties: {
    webhookId: { type: 'string', pattern: '^Webhook:' },
    type: ref('WebhookType'),
    resourceId: { type: 'string' },
    status: { type: 'string', enum: ['PENDING', 'DELIVERED', 'FAILED'] },
    attemptCount: { type: 'integer', minimum: 0 },
    retried: { type: 'boolean' },
    nextAttemptAt: { type: 'string', format: 'date-time' },
    lastStatusCode: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
    deliveredAt: { type: 'string', format: 'date-time' },
    failedAt: { type: 'string', format: 'date-time' },
  },
};

const attempt: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['attempt', 'at', 'url', 'latencyMs'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    at: { type: 'string', format: 'date-time' },
    url: { type: 'string' },
    statusCode: { type: 'integer' },
    latencyMs: { type: 'integer', minimum: 0 },
    error: { type: 'string' },
  },
};

const signingKey: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['publicKey', 'algorithm', 'createdAt'],
  properties: {
    publicKey: { type: 'string', pattern: '^-----BEGIN PUBLIC KEY-----' },
    algorithm: { type: 'string', enum: ['ECDSA_P256_SHA256'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const storedEvent: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'resourceId', 'service', 'occurredAt', 'correlationId', 'causationId', 'data'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    resourceId: { type: 'string' },
    service: { type: 'string', enum: ['platform', 'customers', 'accounts', 'payments', 'cards', 'agents'] },
    occurredAt: { type: 'string', format: 'date-time' },
    correlationId: { type: ['string', 'null'] },
    causationId: { type: ['string', 'null'] },
    data: { type: 'object' },
  },
};

const storedEventsPage: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'hasMore', 'totalCount'],
  properties: {
    data: { type: 'array', items: storedEvent },
    hasMore: { type: 'boolean' },
    nextCursor: { type: 'string' },
    totalCount: { type: 'integer' },
  },
};

const operation = (operationId: string, ok: Json, ...errorStatuses: number[]): Json => ({
  operationId,
  'x-corridor-extension': true,
  responses: { '200': { description: 'OK', ...json(ok) }, ...errors(401, ...errorStatuses) },
});

const sandboxMail: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['to', 'subject', 'otpCode', 'sentAt'],
  properties: {
    to: { type: 'string' },
    subject: { type: 'string' },
    otpCode: { type: 'string' },
    sentAt: { type: 'string', format: 'date-time' },
  },
};

const availability: Json = { type: 'string', enum: ['ok', 'unavailable'] };
const services = ['platform', 'customers', 'accounts', 'payments', 'webhooks', 'cards', 'agents'];
const healthReport: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'services', 'redis'],
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded'] },
    services: {
      type: 'object',
      additionalProperties: false,
      required: services,
      properties: Object.fromEntries(services.map((name) => [name, availability])),
    },
    redis: availability,
  },
};

export const EXTENSION_MARK = 'x-corridor-extension';

export const extensionPaths: Record<string, Json> = {
  '/webhooks/deliveries': {
    get: operation(
      'listWebhookDeliveries',
      {
        type: 'object',
        additionalProperties: false,
        required: ['data', 'hasMore', 'totalCount'],
        properties: {
          data: { type: 'array', items: delivery },
          hasMore: { type: 'boolean' },
          nextCursor: { type: 'string' },
          totalCount: { type: 'integer' },
        },
      },
      400,
    ),
  },
  '/events': { get: operation('listEvents', storedEventsPage, 400) },
  '/agents/me/events': { get: operation('agentListEvents', storedEventsPage, 400) },
  '/webhooks/deliveries/{webhookId}/attempts': {
    get: operation(
      'listWebhookAttempts',
      { type: 'object', additionalProperties: false, required: ['data'], properties: { data: { type: 'array', items: attempt } } },
      404,
    ),
  },
  '/webhooks/{webhookId}/redeliver': { post: operation('redeliverWebhook', delivery, 403, 404) },
  '/webhooks/redeliver': {
    post: operation(
      'redeliverWebhooks',
      {
        type: 'object',
        additionalProperties: false,
        required: ['redelivered', 'webhookIds'],
        properties: { redelivered: { type: 'integer' }, webhookIds: { type: 'array', items: { type: 'string' } } },
      },
      400,
      403,
    ),
  },
  '/webhooks/signing-key': { get: operation('getWebhookSigningKey', signingKey) },
  '/webhooks/signing-key/rotate': { post: operation('rotateWebhookSigningKey', signingKey, 403) },
  '/sandbox/auth/mailbox': {
    get: operation(
      'listSandboxMail',
      { type: 'object', additionalProperties: false, required: ['data'], properties: { data: { type: 'array', items: sandboxMail } } },
      400,
      403,
    ),
  },
  // No credential; a degraded report is a 503 with the same body, so a probe and an operator read one shape.
  '/health': {
    get: {
      operationId: 'getHealth',
      [EXTENSION_MARK]: true,
      responses: {
        '200': { description: 'Every service answers', ...json(healthReport) },
        '503': { description: 'Something is unavailable', ...json(healthReport) },
      },
    },
  },
};
