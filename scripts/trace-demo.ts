// Makes the "Debug a payment" artefacts of docs/traces/ (decision 0029, amendment): on a stack of
// its own (the e2e suites' startStack: its own database, NATS, Redis prefix and ports), an agent's
// cross-currency payment (USD account to a EUR bank account) held for approval, approved by the
// platform, executed, held, settled and announced by webhooks; then `npm run trace` of its
// transaction as text and JSON lines, and the operators' console showing the same timeline.
//
//   node -r @swc-node/register scripts/trace-demo.ts [output directory, default docs/traces]
//
// Needs PostgreSQL, Redis and nats-server as the e2e suites do, and Debian's chromium for the screenshot.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApi, type Credentials } from '../tests/support/api';
import { OPERATOR, startConsole } from '../tests/support/console';
import { eventually, waitUntil } from '@corridor/testing';
import { paymentHelpers } from '../tests/support/payments';
import { startStack } from '../tests/support/stack';
import { startReceiver } from '../tests/support/webhook-receiver';

const run = promisify(execFile);
const root = join(__dirname, '..');
const NAME = 'agent-cross-currency';

const expectStatus = (what: string, reply: { status: number; text: string }, status: number): void => {
  if (reply.status !== status) throw new Error(`${what} answered ${reply.status}, not ${status}: ${reply.text}`);
};

/** The payment: an agent that needs approval quotes USD to a EUR bank account; the platform approves. */
const agentPayment = async (
  api: ReturnType<typeof createApi>,
  pay: ReturnType<typeof paymentHelpers>,
  platform: Credentials,
): Promise<string> => {
  const customer = await pay.newCustomer(platform, ['USD']);
  const usd = pay.accountIn(customer, 'USD');
  await pay.fund(platform, usd, 50_000);
  const euros = await pay.euroAccount(platform, customer.customerId);
  const policy = {
    permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES', 'EXECUTE_QUOTES'],
    defaultExecutionMode: 'APPROVAL_REQUIRED',
    spendingLimits: {
      currency: 'USD',
      perTransactionLimit: 50_000,
      dailyLimit: 500_000,
      dailyTransactionLimit: 100,
      monthlyLimit: 5_000_000,
    },
  };
  const created = await api.call('POST', '/agents', {
    auth: platform,
    body: { name: 'Travel bot', customerId: customer.customerId, policy },
  });
  expectStatus('POST /agents', created, 201);
  const redeemed = await api.call('POST', `/agents/device-codes/${created.body.deviceCode.code as string}/redeem`);
  expectStatus('redeem', redeemed, 200);
  const agent = `Bearer ${redeemed.body.accessToken as string}`;
  const quote = await api.call('POST', '/agents/me/quotes', {
    auth: agent,
    body: {
      source: { sourceType: 'ACCOUNT', accountId: usd },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    },
  });
  expectStatus('POST /agents/me/quotes', quote, 201);
  const held = await api.call('POST', `/agents/me/quotes/${quote.body.id as string}/execute`, { auth: agent });
  if (held.body?.status !== 'PENDING_APPROVAL') throw new Error(`The execute was not held for approval: ${held.text}`);
  const approved = await api.call('POST', `/agents/${created.body.agent.id as string}/actions/${held.body.id as string}/approve`, {
    auth: platform,
    body: {},
  });
  expectStatus('approve', approved, 200);
  return quote.body.transactionId as string;
};

const main = async (): Promise<void> => {
  const output = join(root, process.argv[2] ?? 'docs/traces');
  mkdirSync(output, { recursive: true });
  const stack = await startStack();
  const receiver = await startReceiver();
  const operatorConsole = await startConsole(stack).catch(async (error: unknown) => {
    await Promise.all([receiver.close(), stack.close()]);
    throw error;
  });
  try {
    const api = createApi(stack, 'trace-demo');
    const platform = (await stack.createPlatform()).token as Credentials;
    expectStatus('PATCH /config', await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: receiver.url } }), 200);
    const pay = paymentHelpers(stack, api);
    const transactionId = await agentPayment(api, pay, platform);
    await eventually(
      () => pay.transaction(platform, transactionId),
      (transaction) => transaction.status === 'COMPLETED',
      60_000,
    );
    await receiver.waitFor(
      (received) => received.some((item) => item.body.type === 'OUTGOING_PAYMENT.COMPLETED' && item.body.data?.id === transactionId),
      'OUTGOING_PAYMENT.COMPLETED',
    );

    const trace = (...args: string[]) =>
      run(process.execPath, ['-r', '@swc-node/register', join(root, 'scripts/trace.ts'), transactionId, ...args], {
        env: { ...process.env, DATABASE_URL: stack.database.url },
        maxBuffer: 64 * 1024 * 1024,
      });
    writeFileSync(join(output, `${NAME}.txt`), (await trace()).stdout);
    writeFileSync(join(output, `${NAME}.jsonl`), (await trace('--json')).stdout);

    const page = await (await operatorConsole.browser(OPERATOR)).newPage();
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(`${operatorConsole.url}/trace?id=${encodeURIComponent(transactionId)}`);
    const completed = '.delivery[data-type="OUTGOING_PAYMENT.COMPLETED"]';
    await waitUntil('the delivered webhook in the console', async () => {
      if ((await page.locator(completed).count()) > 0 && (await page.locator(completed).first().textContent())?.includes('DELIVERED'))
        return true;
      await page.reload();
      return false;
    });
    await page.screenshot({ path: join(output, `${NAME}-console.png`), fullPage: true });
    console.log(`Traced ${transactionId}: ${output}/${NAME}.txt, .jsonl and -console.png`);
  } finally {
    await operatorConsole.close();
    await receiver.close();
    await stack.close();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
