// Pins down that one payment can be followed through every service it touches: its spans form one
// trace from the gateway through payments and accounts (W3C trace context over NATS and the
// outbox), the HTTP request's correlation id is in the events the execution appended (in payments
// and in the ledger) and in a log line of each service, the gateway writes one access-log line for
// it, the gateway's /metrics, on a port of its own, counts it by route template, and the services count
// its outcome.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { SpanLine } from '@corridor/telemetry';
import { createApi, type Credentials } from './support/api';
import { waitUntil } from '@corridor/testing';
import { paymentHelpers } from './support/payments';
import { type Stack, startStack } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

const CORRELATION_ID = 'obs-payment-0001';
const traceFile = join(mkdtempSync(join(tmpdir(), 'corridor-traces-')), 'spans.jsonl');

let stack: Stack;
let api: ReturnType<typeof createApi>;
let pay: ReturnType<typeof paymentHelpers>;
let platform: Credentials;
let transactionId: string;
let receiver: Receiver;

const spans = (): SpanLine[] =>
  readFileSync(traceFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SpanLine);

/** The spans of one trace as an indented tree, children in start order: the picture the report shows. */
const renderTree = (trace: SpanLine[]): string => {
  const byParent = new Map<string | undefined, SpanLine[]>();
  const ids = new Set(trace.map((span) => span.spanId));
  for (const span of trace) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    byParent.set(parent, [...(byParent.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    for (const span of (byParent.get(parent) ?? []).sort((a, b) => a.startedAt.localeCompare(b.startedAt))) {
      lines.push(`${'  '.repeat(depth)}[${span.service}] ${span.name} (${span.durationMs} ms)`);
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
};

const eventsOf = async (schema: string, where: string, value: string): Promise<{ type: string; metadata: Record<string, unknown> }[]> => {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    const result = await client.query(`SELECT type, metadata FROM ${schema}.events WHERE ${where} ORDER BY global_position`, [value]);
    return result.rows as { type: string; metadata: Record<string, unknown> }[];
  } finally {
    await client.end();
  }
};

beforeAll(async () => {
  stack = await startStack({ env: { CORRIDOR_TRACE_FILE: traceFile, LOG_LEVEL: 'debug', PAYMENT_EXECUTION_SWEEP_MS: '250' } });
  api = createApi(stack, 'observability');
  pay = paymentHelpers(stack, api);
  platform = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  expect((await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
  const customer = await pay.newCustomer(platform, ['USD', 'MXN']);
  const usd = pay.accountIn(customer, 'USD');
  await pay.fund(platform, usd, 50_000);
  const quoted = await pay.quote(platform, usd, pay.accountIn(customer, 'MXN'), 10_000);
  expect(quoted.status).toBe(201);
  const executed = await pay.execute(platform, quoted.body.id, { 'x-correlation-id': CORRELATION_ID });
  expect(executed.status).toBe(200);
  expect(executed.headers.get('x-correlation-id')).toBe(CORRELATION_ID);
  transactionId = quoted.body.transactionId;
  expect(await pay.settled(platform, transactionId)).toMatchObject({ status: 'COMPLETED' });
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await receiver?.close();
  await stack?.close();
});

it('traces the payment as one tree across the gateway, payments, accounts and the webhooks it causes', async () => {
  let tree: SpanLine[] = [];
  await waitUntil('the settle of the payment in its trace', () => {
    const all = spans();
    const root = all.find(
      (span) =>
        span.service === 'gateway' &&
        span.kind === 1 &&
        String(span.attributes['http.route'] ?? span.attributes['url.path'] ?? span.name).includes('/execute'),
    );
    tree = root ? all.filter((span) => span.traceId === root.traceId) : [];
    return (
      tree.some((span) => span.service === 'accounts' && span.name.includes('accounts.ledger')) &&
      tree.some((span) => span.name === 'webhook render OUTGOING_PAYMENT.COMPLETED')
    );
  });
  const picture = renderTree(tree);
  mkdirSync(join(__dirname, '../tmp'), { recursive: true });
  writeFileSync(join(__dirname, '../tmp/payment-span-tree.txt'), picture + '\n');
  console.log(`The span tree of one payment (trace ${tree[0]!.traceId}):\n${picture}`);
  for (const service of ['gateway', 'payments', 'accounts', 'webhooks']) expect(tree.some((span) => span.service === service)).toBe(true);
  // The NATS hop is a parent-child link: a handler's span is the child of the request's span in another process.
  const byId = new Map(tree.map((span) => [span.spanId, span]));
  const handled = tree.find((span) => span.service === 'payments' && span.name === 'nats handle payments.quote.execute');
  expect(handled && byId.get(handled.parentSpanId ?? '')).toMatchObject({
    service: 'gateway',
    name: 'nats request payments.quote.execute',
  });
  // The outbox carries the trace through JetStream: each webhook's render is a child of the publish of the event it announces.
  const completed = tree.find((span) => span.name === 'webhook render OUTGOING_PAYMENT.COMPLETED');
  expect(completed && byId.get(completed.parentSpanId ?? '')).toMatchObject({
    service: 'payments',
    name: 'outbox publish PaymentCompleted',
  });
  const balance = tree.find((span) => span.name === 'webhook render INTERNAL_ACCOUNT.BALANCE_UPDATED');
  expect(balance && byId.get(balance.parentSpanId ?? '')).toMatchObject({
    service: 'accounts',
    name: expect.stringMatching(/^outbox publish /),
  });
  // pg is instrumented too: the payment's appends show as PostgreSQL spans of the services.
  expect(
    tree.some((span) => span.service === 'payments' && span.attributes['db.system.name'] === 'postgresql') ||
      tree.some((span) => span.service === 'payments' && span.attributes['db.system'] === 'postgresql'),
  ).toBe(true);
});

it("keeps the execute request's correlation in every event the execution appended, each naming its cause", async () => {
  const transaction = await eventsOf('payments', 'stream_id = $1', transactionId);
  const executed = transaction.slice(transaction.findIndex((event) => event.metadata['correlationId'] === CORRELATION_ID));
  expect(executed.length).toBeGreaterThan(1);
  for (const event of executed) expect(event.metadata).toMatchObject({ correlationId: CORRELATION_ID, causationId: expect.any(String) });
  const ledger = await eventsOf('accounts', `data->'cause'->>'id' = $1`, transactionId);
  expect(ledger.length).toBeGreaterThan(0);
  for (const event of ledger) expect(event.metadata).toMatchObject({ correlationId: CORRELATION_ID, causationId: expect.any(String) });
});

it("gives each webhook attempt the story of the event that caused it: stored with the delivery, in the attempt's log line and span", async () => {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  let rows: { id: string; event_id: string; type: string; correlation_id: string | null; causation_id: string | null }[] = [];
  try {
    const result = await client.query(
      `SELECT id, event_id, type, correlation_id, causation_id FROM webhooks.deliveries WHERE resource_id = $1 AND status = 'DELIVERED'`,
      [transactionId],
    );
    rows = result.rows;
  } finally {
    await client.end();
  }
  // The execution's webhooks (PROCESSING, COMPLETED) come from events the execute request began.
  const completed = rows.find((row) => row.type === 'OUTGOING_PAYMENT.COMPLETED');
  expect(completed).toMatchObject({ correlation_id: CORRELATION_ID, causation_id: completed?.event_id });
  const attempt = stack.logs.webhooks
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line['msg'] === 'Webhook attempt.' && line['webhookId'] === completed?.id);
  expect(attempt).toMatchObject({ correlationId: CORRELATION_ID, causationId: completed?.event_id, statusCode: 200 });
  // The attempt's span is a child of the render of its event, in the payment's trace.
  const all = spans();
  const attemptSpan = all.find(
    (span) => span.name === 'webhook attempt OUTGOING_PAYMENT.COMPLETED' && span.attributes['corridor.webhook.id'] === completed?.id,
  );
  const render = all.find((span) => span.spanId === attemptSpan?.parentSpanId);
  expect(render).toMatchObject({ service: 'webhooks', name: 'webhook render OUTGOING_PAYMENT.COMPLETED', traceId: attemptSpan?.traceId });
});

it('writes one access-log line for the request, and its correlation id in a log line of each service it touched', () => {
  const lines = (app: 'gateway' | 'payments' | 'accounts') =>
    stack.logs[app]
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const access = lines('gateway').filter((line) => line['name'] === 'gateway:access' && line['correlationId'] === CORRELATION_ID);
  expect(access).toHaveLength(1);
  expect(access[0]).toMatchObject({
    route: '/2025-10-13/quotes/:quoteId/execute',
    method: 'POST',
    status: 200,
    latencyMs: expect.any(Number),
    requestId: expect.any(String),
    platformId: expect.any(String),
  });
  console.log(`Access-log line: ${JSON.stringify(access[0])}`);
  for (const app of ['payments', 'accounts'] as const) {
    const line = lines(app).find((entry) => entry['correlationId'] === CORRELATION_ID);
    expect(line).toBeDefined();
    console.log(`${app}: ${JSON.stringify(line)}`);
  }
});

it("counts the request on the gateway's own metrics port by route template and status", async () => {
  const text = await (await fetch(`${stack.gatewayMetricsUrl}/metrics`)).text();
  expect(text).toMatch(
    /^corridor_http_request_duration_seconds_count\{method="POST",route="\/2025-10-13\/quotes\/:quoteId\/execute",status="200"\} 1$/m,
  );
  expect(text).toMatch(/^corridor_nats_request_duration_seconds_count\{subject="payments\.quote\.execute",outcome="ok"\} 1$/m);
  expect((await fetch(`${stack.gatewayUrl}/metrics`)).status).toBe(404);
});

it('counts the business outcomes: the payment by terminal status, its ledger operations, the NATS handler latency', async () => {
  const payments = await (await fetch(stack.healthUrl('payments').replace('/health', '/metrics'))).text();
  expect(payments).toMatch(/^corridor_outcomes_total\{service="payments",kind="payment",outcome="COMPLETED",reason="none"\} 1$/m);
  expect(payments).toMatch(/^corridor_nats_handler_duration_seconds_count\{subject="payments\.quote\.execute",outcome="ok"\} 1$/m);
  const accounts = await (await fetch(stack.healthUrl('accounts').replace('/health', '/metrics'))).text();
  expect(accounts).toMatch(
    /^corridor_outcomes_total\{service="accounts",kind="ledger_operation",outcome="FundsHeld",reason="none"\} [1-9]/m,
  );
});
