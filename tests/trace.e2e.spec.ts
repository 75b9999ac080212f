// npm run trace against a running stack: a cross-currency payment (quote + execute) traced by its
// transaction id shows what payments, accounts and webhooks did, with each webhook's attempts and
// answers; the same trace is found from the quote id, a webhook id and the execute's request id.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApi, type Credentials } from './support/api';
import { paymentHelpers } from './support/payments';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

const run = promisify(execFile);

let stack: StackView;
let api: ReturnType<typeof createApi>;
let pay: ReturnType<typeof paymentHelpers>;
let platform: Credentials;
let receiver: Receiver;

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'trace');
  pay = paymentHelpers(stack, api);
  platform = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  expect((await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

type Line = {
  kind: string;
  service: string;
  streamId: string;
  position: number | null;
  type: string;
  occurredAt: string;
  correlationId: string | null;
  causationId: string | null;
  eventId: string;
  data: Record<string, unknown>;
};

/** The CLI as an engineer runs it, against this stack's database, in JSON lines. */
const trace = async (...args: string[]): Promise<Line[]> => {
  const { stdout } = await run(process.execPath, ['-r', '@swc-node/register', join(__dirname, '../scripts/trace.ts'), ...args, '--json'], {
    env: { ...process.env, DATABASE_URL: stack.database.url },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
};

it('traces a cross-currency payment by its transaction id through payments, accounts and webhooks', async () => {
  const customer = await pay.newCustomer(platform, ['USD']);
  const usd = pay.accountIn(customer, 'USD');
  await pay.fund(platform, usd, 50_000);
  const euros = await pay.euroAccount(platform, customer.customerId);
  const quoted = await pay.quote(platform, usd, euros, 10_000);
  expect(quoted.status).toBe(201);
  const executed = await pay.execute(platform, quoted.body.id, { 'X-Request-Id': 'trace-e2e-execute' });
  expect(executed.status).toBe(200);
  const transactionId = quoted.body.transactionId as string;
  expect((await pay.settled(platform, transactionId)).status).toBe('COMPLETED');
  await receiver.waitFor(
    () => receiver.received.some((item) => item.body.type === 'OUTGOING_PAYMENT.COMPLETED' && item.body.data?.id === transactionId),
    'OUTGOING_PAYMENT.COMPLETED',
  );

  const lines = await trace(transactionId);
  const events = lines.filter((line) => line.kind === 'event');
  expect(events.map((line) => line.service)).toEqual(expect.arrayContaining(['payments', 'accounts']));
  expect(events.filter((line) => line.streamId === transactionId).length).toBeGreaterThanOrEqual(3);
  expect(events.some((line) => line.service === 'accounts' && line.streamId === usd)).toBe(true);
  for (const line of events)
    expect(line).toEqual(
      expect.objectContaining({
        position: expect.any(Number),
        type: expect.any(String),
        occurredAt: expect.any(String),
        data: expect.any(Object),
      }),
    );
  expect(events.map((line) => line.occurredAt)).toEqual([...events.map((line) => line.occurredAt)].sort());

  const deliveries = lines.filter((line) => line.kind === 'delivery');
  const completed = deliveries.find((line) => line.type === 'OUTGOING_PAYMENT.COMPLETED' && line.streamId === transactionId);
  expect(completed).toMatchObject({
    service: 'webhooks',
    data: { status: 'DELIVERED', attempts: [expect.objectContaining({ attempt: 1, statusCode: 200, url: receiver.url })] },
  });
  // Each webhook's attempts keep the story of the event that caused them: its correlation, the event as the cause.
  for (const delivery of deliveries) {
    const cause = events.find((line) => line.eventId === delivery.eventId);
    expect(delivery).toMatchObject({ correlationId: cause?.correlationId, causationId: delivery.eventId });
  }

  // The same story from other ids a person may have at hand.
  const fromQuote = await trace(quoted.body.id);
  expect(fromQuote.some((line) => line.type === 'OUTGOING_PAYMENT.COMPLETED')).toBe(true);
  const fromWebhook = await trace(completed?.data['id'] as string);
  expect(fromWebhook.some((line) => line.streamId === transactionId)).toBe(true);
  const fromRequest = await trace('trace-e2e-execute');
  expect(fromRequest.some((line) => line.streamId === transactionId)).toBe(true);

  // What a person reads: one event per entry, the webhook with its attempt and answer under its event.
  const { stdout } = await run(process.execPath, ['-r', '@swc-node/register', join(__dirname, '../scripts/trace.ts'), transactionId], {
    env: { ...process.env, DATABASE_URL: stack.database.url },
  });
  mkdirSync(join(__dirname, '../tmp'), { recursive: true });
  writeFileSync(join(__dirname, '../tmp/trace-sample.txt'), stdout);
  expect(stdout).toContain(`found as stream ${transactionId}`);
  expect(stdout).toMatch(
    /↳ webhook OUTGOING_PAYMENT\.COMPLETED Webhook:\S+ DELIVERED after 1 attempt\(s\)\n.*correlation \S+ {2}causation \S+\n.*#1 \S+ 200 in \d+ ms/,
  );
}, 120_000);

it('answers GET /transactions/{id}?asOf= with the transaction as it stood then, folded from its events', async () => {
  const customer = await pay.newCustomer(platform, ['USD']);
  const usd = pay.accountIn(customer, 'USD');
  await pay.fund(platform, usd, 50_000);
  const quoted = await pay.quote(platform, usd, await pay.euroAccount(platform, customer.customerId), 5_000);
  expect((await pay.execute(platform, quoted.body.id)).status).toBe(200);
  const transactionId = quoted.body.transactionId as string;
  expect((await pay.settled(platform, transactionId)).status).toBe('COMPLETED');
  // The times come from the trace: when the quote was created, when execution started.
  const own = (await trace(transactionId)).filter((line) => line.kind === 'event' && line.streamId === transactionId);
  const at = (type: string): string => own.find((line) => line.type === type)?.occurredAt as string;
  const asOf = (time: string, auth: Credentials = platform) =>
    api.call('GET', `/transactions/${transactionId}?asOf=${encodeURIComponent(time)}`, { auth });

  expect((await asOf(at('QuoteCreated'))).body).toMatchObject({ id: transactionId, status: 'PENDING' });
  expect((await asOf(at('PaymentExecutionStarted'))).body).toMatchObject({ id: transactionId, status: 'PROCESSING' });
  expect((await asOf(new Date(Date.now() + 60_000).toISOString())).body).toMatchObject({ status: 'COMPLETED' });
  expect((await asOf('2020-01-01T00:00:00Z')).status).toBe(404);
  const other = (await stack.createPlatform()).token as Credentials;
  expect((await asOf(at('PaymentExecutionStarted'), other)).status).toBe(404);
  const bad = await asOf('yesterday');
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ status: 400, code: expect.any(String) });
}, 120_000);

it('refuses what it cannot use and says why, without a stack trace', async () => {
  await expect(trace('Transaction:00000000-0000-7000-8000-000000000000')).rejects.toMatchObject({
    stderr: expect.stringContaining('Nothing in'),
  });
  await expect(trace('x', '--from', 'yesterday')).rejects.toMatchObject({ stderr: expect.stringContaining('--from needs a time') });
});
