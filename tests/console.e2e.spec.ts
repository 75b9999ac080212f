// The operators' console (npm run console) against a running stack, in a real browser (Debian's
// chromium driven by playwright-core): it refuses anyone without the operator credential and
// anyone with a platform API token, finds a cross-currency payment by its transaction id, shows
// the timeline across payments and accounts with the state after each event and the webhook's
// attempts, follows a link to a related resource, and shows projections, outboxes and dead letters.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { BrowserContext } from 'playwright-core';
import { basic, createApi, type Credentials } from './support/api';
import { type Console, CONSOLE_TOKEN, OPERATOR, startConsole } from './support/console';
import { waitUntil } from '@corridor/testing';
import { paymentHelpers } from './support/payments';
import { type Stack, startStack } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

const root = join(__dirname, '..');

let stack: Stack;
let api: ReturnType<typeof createApi>;
let pay: ReturnType<typeof paymentHelpers>;
let platform: Credentials;
let receiver: Receiver;
let operatorConsole: Console;
let consoleUrl: string;
let operator: BrowserContext;

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'console');
  pay = paymentHelpers(stack, api);
  platform = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  expect((await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
  operatorConsole = await startConsole(stack);
  consoleUrl = operatorConsole.url;
  operator = await operatorConsole.browser(OPERATOR);
}, 240_000);

afterAll(async () => {
  await operatorConsole?.close();
  await receiver?.close();
  await stack?.close();
});

it('refuses a browser without the operator credential and one given a platform API token', async () => {
  // No credentials at hand: the browser is asked for them and the page never opens.
  const anonymous = await (await operatorConsole.browser()).newPage();
  await expect(anonymous.goto(`${consoleUrl}/`)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
  expect((await fetch(`${consoleUrl}/`)).status).toBe(401);
  // A platform API token typed into the prompt is refused on every page.
  const platformLogin = { username: platform.clientId, password: platform.clientSecret };
  const withPlatformToken = await (await operatorConsole.browser(platformLogin)).newPage();
  for (const path of ['/', '/status', '/trace?id=anything']) {
    const response = await withPlatformToken.goto(`${consoleUrl}${path}`);
    expect(response?.status()).toBe(401);
    expect(await withPlatformToken.textContent('body')).toContain('never a platform API token');
  }
  expect((await fetch(`${consoleUrl}/`, { headers: { authorization: basic(platform) } })).status).toBe(401);
  expect((await fetch(`${consoleUrl}/`, { headers: { authorization: `Bearer ${platform.clientSecret}` } })).status).toBe(401);
  // The console token opens it too; the operator's name with a platform token's secret does not.
  expect((await fetch(`${consoleUrl}/`, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } })).status).toBe(200);
  const operatorNamePlatformSecret = basic({ clientId: OPERATOR.username, clientSecret: platform.clientSecret });
  expect((await fetch(`${consoleUrl}/`, { headers: { authorization: operatorNamePlatformSecret } })).status).toBe(401);
  // Read-only: nothing but GET.
  expect((await fetch(`${consoleUrl}/`, { method: 'POST', headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } })).status).toBe(405);
}, 60_000);

it('shows a payment by its transaction id: events of two services, state after each, webhook attempts; links to the quote', async () => {
  const customer = await pay.newCustomer(platform, ['USD']);
  const usd = pay.accountIn(customer, 'USD');
  await pay.fund(platform, usd, 50_000);
  const euros = await pay.euroAccount(platform, customer.customerId);
  const quoted = await pay.quote(platform, usd, euros, 10_000);
  expect(quoted.status).toBe(201);
  expect((await pay.execute(platform, quoted.body.id)).status).toBe(200);
  const transactionId = quoted.body.transactionId as string;
  expect((await pay.settled(platform, transactionId)).status).toBe('COMPLETED');
  const announced = () =>
    receiver.received.some((item) => item.body.type === 'OUTGOING_PAYMENT.COMPLETED' && item.body.data?.id === transactionId);
  await receiver.waitFor(announced, 'OUTGOING_PAYMENT.COMPLETED');
  const page = await operator.newPage();
  await page.goto(`${consoleUrl}/`);
  await page.fill('input[name=id]', transactionId);
  await Promise.all([page.waitForURL(/\/trace\?id=/), page.click('button[type=submit]')]);
  const completed = `.delivery[data-type="OUTGOING_PAYMENT.COMPLETED"]`;
  await waitUntil('the delivered webhook on the page', async () => {
    const shown = (await page.locator(completed).count()) > 0 ? await page.locator(completed).first().textContent() : '';
    if (shown?.includes('DELIVERED')) return true;
    await page.reload();
    return false;
  });

  expect(await page.textContent('h1')).toBe(transactionId);
  expect(await page.locator('li.event[data-service=payments]').count()).toBeGreaterThanOrEqual(3);
  expect(await page.locator('li.event[data-service=accounts]').count()).toBeGreaterThanOrEqual(1);
  expect(await page.locator('li.event[data-type=QuoteCreated]').count()).toBe(1);
  const delivery = (await page.locator(completed).first().textContent()) ?? '';
  expect(delivery).toContain('after 1 attempt(s)');
  expect(delivery).toMatch(/#1 \S+ 200 in \d+ ms/);
  expect(delivery).toContain(receiver.url);
  // The state after the last event of the transaction's own stream: folded by its decider.
  const states = page.locator(`li.event[data-service=payments] details.state pre`);
  expect(await states.count()).toBeGreaterThanOrEqual(3);
  expect(await states.last().textContent()).toContain('COMPLETED');
  expect(await page.textContent('body')).not.toContain('no decider is known');

  mkdirSync(join(root, 'var/test-results'), { recursive: true });
  await page.screenshot({ path: join(root, 'var/test-results/console.png'), fullPage: true });

  // A resource id inside an event's data is a link to that resource's own timeline.
  await Promise.all([page.waitForURL(/Quote%3A/), page.click(`a[href="/trace?id=${encodeURIComponent(quoted.body.id)}"] >> nth=0`)]);
  expect(await page.textContent('h1')).toBe(quoted.body.id);
  expect(await page.locator('li.event[data-type=QuoteCreated]').count()).toBe(1);
  expect(await page.locator(completed).count()).toBeGreaterThanOrEqual(1);
  await page.close();
}, 120_000);

it('shows each service health, projections with their positions and lag, outboxes and dead letters', async () => {
  const page = await operator.newPage();
  await page.goto(`${consoleUrl}/`);
  await Promise.all([page.waitForURL(/\/status$/), page.click('a[href="/status"]')]);
  expect(await page.locator('tr.projection').count()).toBeGreaterThanOrEqual(10);
  const body = (await page.textContent('body')) ?? '';
  expect(body).toContain('transactions');
  expect(body).not.toContain('halted since');
  expect(body).not.toContain('unreachable');
  expect(await page.locator('tr.outbox').count()).toBeGreaterThanOrEqual(1);
  expect(await page.locator('#dead-letters tr').count()).toBe(1);

  // A webhook that used its week of retries ends FAILED in the delivery log: written here directly, as waiting a week is not a test.
  const database = new Client({ connectionString: stack.database.url });
  await database.connect();
  await database.query(
    `INSERT INTO webhooks.deliveries (id, event_id, platform_id, type, resource_id, stream_position, body, retried, status,
       attempt_count, next_attempt_at, last_status_code, occurred_at, created_at, failed_at)
     VALUES ('Webhook:console-e2e-dead-letter', 'console-e2e-event', 'Platform:console-e2e', 'OUTGOING_PAYMENT.FAILED',
       'Transaction:console-e2e', 1, '{}', true, 'FAILED', 17, now(), 503, now(), now(), now())`,
  );
  await database.end();
  await page.reload();
  const deadLetter = (await page.locator('#dead-letters tr', { hasText: 'Webhook:console-e2e-dead-letter' }).textContent()) ?? '';
  expect(deadLetter).toContain('OUTGOING_PAYMENT.FAILED');
  expect(deadLetter).toContain('503');
  expect(await page.textContent('h2:has-text("Dead letters")')).toContain('every attempt: 1');
  // An unknown id says so, with the search box still there.
  const missing = await page.goto(`${consoleUrl}/trace?id=${encodeURIComponent('Transaction:00000000-0000-7000-8000-000000000000')}`);
  expect(missing?.status()).toBe(404);
  expect(await page.inputValue('input[name=id]')).toBe('Transaction:00000000-0000-7000-8000-000000000000');
  await page.close();
}, 60_000);
