// Crash recovery of quote execution: kill -9 the payments service, and separately the accounts
// service, while 50 payments are in flight; after the restart every payment reaches its terminal
// state, no payment holds or moves money twice, no money is created or lost (the ledger's books
// balance) and the payer's balance is exactly what the outcomes say.
import { Client } from 'pg';
import { assertLedgerConserved, eventually } from '@corridor/testing';
import { createApi, type Credentials, type Reply } from './support/api';
import { holdsFor, isTerminal, lowestAvailable, paymentHelpers } from './support/payments';
import { type AppName, type Stack, startStack } from './support/stack';

const IN_FLIGHT = 50;
const AMOUNT = 1_000;
// Outcomes mixed over the 50: success, failure with a refund (002) and cancellation (006).
const suffixes = ['000', '000', '002', '000', '006'];
const expectedOf = (suffix: string) => (suffix === '002' ? 'FAILED' : 'COMPLETED');

let stack: Stack;
let api: ReturnType<typeof createApi>;
let pay: ReturnType<typeof paymentHelpers>;
let platform: Credentials;

beforeAll(async () => {
  // The rail takes a moment, so payments are in flight (held, at the rail) when a service dies.
  stack = await startStack({ env: { SANDBOX_RAIL_DELAY_MS: '1500', PAYMENT_EXECUTION_SWEEP_MS: '250', QUOTE_TTL_SECONDS: '600' } });
  api = createApi(stack, 'payments-recovery');
  pay = paymentHelpers(stack, api);
  platform = (await stack.createPlatform()).token as Credentials;
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

/** 50 quotes from one funded USD account to EUR bank accounts with mixed sandbox outcomes. */
const prepare = async () => {
  const customer = await pay.newCustomer(platform, ['USD']);
  const usd = pay.accountIn(customer, 'USD');
  await pay.fund(platform, usd, IN_FLIGHT * AMOUNT);
  const destinations = new Map<string, string>();
  for (const suffix of new Set(suffixes)) destinations.set(suffix, await pay.euroAccount(platform, customer.customerId, suffix));
  const quotes = await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, index) => {
      const suffix = suffixes[index % suffixes.length]!;
      const reply = await pay.quote(platform, usd, destinations.get(suffix)!, AMOUNT);
      expect(reply.status).toBe(201);
      return {
        quoteId: reply.body.id as string,
        transactionId: reply.body.transactionId as string,
        suffix,
        key: `recover-${reply.body.id}`,
      };
    }),
  );
  return { customer, usd, quotes };
};

/** A client that got no answer retries with the same Idempotency-Key until it gets one. */
const executeUntilAnswered = async (quote: { quoteId: string; key: string }, first: Reply): Promise<Reply> => {
  let reply = first;
  for (let attempt = 0; reply.status >= 500 && attempt < 60; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    reply = await pay.execute(platform, quote.quoteId, { 'idempotency-key': quote.key });
  }
  return reply;
};

/** Executed payments of this stack that have not reached their end yet (the processor's timer rows). */
const unfinished = async (): Promise<number> => {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    return Number(
      (await client.query<{ count: string }>("SELECT count(*) FROM payments.payment_executions WHERE step <> 'DONE'")).rows[0]?.count ?? 0,
    );
  } finally {
    await client.end();
  }
};

const restart = async (app: AppName) => {
  await stack.kill(app);
  await stack.start(app);
};

const checkAfterRecovery = async (prepared: Awaited<ReturnType<typeof prepare>>, replies: Reply[]) => {
  // Every execute ends answered: 200, or 409 when the payment had started before the crash cut the reply off.
  for (const reply of replies) expect([200, 409]).toContain(reply.status);
  const finals = await Promise.all(
    prepared.quotes.map((quote) => eventually(() => pay.transaction(platform, quote.transactionId), isTerminal, 90_000)),
  );
  expect(finals.map((transaction) => transaction.status)).toEqual(prepared.quotes.map((quote) => expectedOf(quote.suffix)));
  // Each payment held the source once, and nothing is still held.
  const holds = await Promise.all(prepared.quotes.map((quote) => holdsFor(stack, quote.transactionId)));
  expect(holds).toEqual(Array(IN_FLIGHT).fill(1));
  const moved =
    finals.filter((transaction, index) => transaction.status === 'COMPLETED' && prepared.quotes[index]!.suffix !== '006').length * AMOUNT;
  const remaining = IN_FLIGHT * AMOUNT - moved;
  expect(await pay.balances(platform, prepared.customer, 'USD')).toEqual([remaining, remaining]);
  expect(await lowestAvailable(stack, prepared.usd)).toBe(0n);
  await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
};

describe('crash recovery with 50 payments in flight', () => {
  it('kill -9 of the payments service mid-execution: after the restart every payment ends right, none twice', async () => {
    const prepared = await prepare();
    const firing = prepared.quotes.map((quote) => pay.execute(platform, quote.quoteId, { 'idempotency-key': quote.key }));
    // Kill once the first executes are answered, so others are mid-request, holding or at the rail.
    await Promise.race([Promise.all(firing.slice(0, 10)), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    const inFlight = await unfinished();
    await restart('payments');
    expect(inFlight).toBeGreaterThan(0);
    const replies = await Promise.all(firing.map(async (reply, index) => executeUntilAnswered(prepared.quotes[index]!, await reply)));
    await checkAfterRecovery(prepared, replies);
  }, 240_000);

  it('kill -9 of the accounts service while the payments hold and settle: after the restart every payment ends right, none twice', async () => {
    const prepared = await prepare();
    const replies = await Promise.all(
      prepared.quotes.map((quote) => pay.execute(platform, quote.quoteId, { 'idempotency-key': quote.key })),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(IN_FLIGHT).fill(200));
    const inFlight = await unfinished();
    await stack.kill('accounts');
    expect(inFlight).toBeGreaterThan(0);
    // The processor keeps trying against a ledger that is not there; nothing may move meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await stack.start('accounts');
    await checkAfterRecovery(prepared, replies);
  }, 240_000);
});
