// Quote execution end to end with every app running: each sandbox rail outcome (suffixes 002–007)
// reaches its terminal state with the right failureReason, refund and balances, and announces each
// step as an OUTGOING_PAYMENT.* webhook; the execute rules (unknown, foreign, twice, expired, real-
// time); idempotent execution, also when duplicates race; immediatelyExecute; 100 concurrent
// payments from an account that covers 60; POST /sandbox/send; and the ledger's books balance.
import { assertLedgerConserved, eventually } from '@corridor/testing';
import { createApi, type Credentials } from './support/api';
import { type Customer, holdsFor, isTerminal, lowestAvailable, paymentHelpers } from './support/payments';
import { type Stack, startStack } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

const QUOTE_TTL_SECONDS = 15;

let stack: Stack;
let api: ReturnType<typeof createApi>;
let pay: ReturnType<typeof paymentHelpers>;
let platformA: Credentials;
let platformB: Credentials;
let production: Credentials;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack({
    env: {
      SANDBOX_RAIL_LONG_PAYMENT_MS: '4000',
      SANDBOX_RAIL_RETURN_MS: '2000',
      PAYMENT_EXECUTION_SWEEP_MS: '250',
      QUOTE_TTL_SECONDS: String(QUOTE_TTL_SECONDS),
    },
  });
  api = createApi(stack, 'payments-execution');
  pay = paymentHelpers(stack, api);
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
  receiver = await startReceiver();
  const configured = await api.call('PATCH', '/config', { auth: platformA, body: { webhookEndpoint: receiver.url } });
  expect(configured.status).toBe(200);
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await receiver?.close();
  await stack?.close();
});

/** The OUTGOING_PAYMENT.* webhooks of one transaction, in the order they arrived; each passes the reference schema. */
const webhooksOf = (transactionId: string) =>
  receiver.received
    .filter((item) => item.body.type.startsWith('OUTGOING_PAYMENT.') && item.body.data?.id === transactionId)
    .map((item) => {
      api.conformance.checkWebhook(item.body);
      return item.body.type.replace('OUTGOING_PAYMENT.', '');
    });

/** A funded USD payer and a EUR bank account with the given IBAN suffix. */
const payer = async (funds: number, suffix = '000'): Promise<{ customer: Customer; usd: string; euros: string }> => {
  const customer = await pay.newCustomer(platformA, ['USD', 'MXN']);
  const usd = pay.accountIn(customer, 'USD');
  if (funds > 0) await pay.fund(platformA, usd, funds);
  return { customer, usd, euros: await pay.euroAccount(platformA, customer.customerId, suffix) };
};

describe('each sandbox outcome reaches its terminal state with the right balances', () => {
  it('pays a EUR bank account: PENDING → PROCESSING → COMPLETED, the source debited by exactly the sending amount', async () => {
    const { customer, usd, euros } = await payer(100_000);
    const quoted = await pay.quote(platformA, usd, euros, 10_000);
    expect(quoted.status).toBe(201);
    const executed = await pay.execute(platformA, quoted.body.id);
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({ id: quoted.body.id, status: 'PROCESSING', transactionId: quoted.body.transactionId });

    const done = await pay.settled(platformA, quoted.body.transactionId);
    expect(done).toMatchObject({ status: 'COMPLETED', sentAmount: { amount: 10_000 }, quoteId: quoted.body.id });
    expect(done.settledAt).toEqual(expect.any(String));
    expect(done).not.toHaveProperty('failureReason');
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([90_000, 90_000]);
    expect((await api.call('GET', `/quotes/${quoted.body.id}`, { auth: platformA })).body.status).toBe('COMPLETED');
    await receiver.waitFor(() => webhooksOf(done.id).includes('COMPLETED'), 'OUTGOING_PAYMENT.COMPLETED');
    expect(webhooksOf(done.id)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
  });

  it('pays the customer’s own MXN internal account: the destination is credited with the received amount', async () => {
    const { customer, usd } = await payer(50_000);
    const mxn = pay.accountIn(customer, 'MXN');
    const quoted = await pay.quote(platformA, usd, mxn, 20_000);
    expect((await pay.execute(platformA, quoted.body.id)).status).toBe(200);
    expect(await pay.settled(platformA, quoted.body.transactionId)).toMatchObject({ status: 'COMPLETED' });
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([30_000, 30_000]);
    expect(await pay.balances(platformA, customer, 'MXN')).toEqual([quoted.body.totalReceivingAmount, quoted.body.totalReceivingAmount]);
  });

  // [suffix, status, failureReason, refund status/reason, USD available after, webhook sequence]
  it.each([
    [
      '002 execution failed',
      '002',
      'FAILED',
      'QUOTE_EXECUTION_FAILED',
      'COMPLETED/TRANSACTION_FAILED',
      100_000,
      ['PENDING', 'PROCESSING', 'FAILED', 'REFUND_PENDING', 'REFUND_COMPLETED'],
    ],
    ['003 long payment', '003', 'COMPLETED', undefined, undefined, 90_000, ['PENDING', 'PROCESSING', 'COMPLETED']],
    [
      '004 counterparty delivery failed',
      '004',
      'FAILED',
      'COUNTERPARTY_POST_TX_FAILED',
      'COMPLETED/TRANSACTION_FAILED',
      100_000,
      ['PENDING', 'PROCESSING', 'FAILED', 'REFUND_PENDING', 'REFUND_COMPLETED'],
    ],
    [
      '005 returned after completion',
      '005',
      'FAILED',
      'COUNTERPARTY_POST_TX_FAILED',
      'COMPLETED/TRANSACTION_FAILED',
      100_000,
      ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REFUND_PENDING', 'REFUND_COMPLETED'],
    ],
    [
      '006 user cancellation',
      '006',
      'COMPLETED',
      undefined,
      'COMPLETED/USER_CANCELLATION',
      100_000,
      ['PENDING', 'PROCESSING', 'REFUND_PENDING', 'REFUND_COMPLETED', 'COMPLETED'],
    ],
    [
      '007 payout and refund failed',
      '007',
      'FAILED',
      'QUOTE_EXECUTION_FAILED',
      'FAILED/TRANSACTION_FAILED',
      90_000,
      ['PENDING', 'PROCESSING', 'FAILED', 'REFUND_PENDING', 'REFUND_FAILED'],
    ],
  ])(
    '%s',
    async (_name, suffix, status, failureReason, refund, available, sequence) => {
      const { customer, usd, euros } = await payer(100_000, suffix);
      const quoted = await pay.quote(platformA, usd, euros, 10_000);
      expect((await pay.execute(platformA, quoted.body.id)).status).toBe(200);
      if (suffix === '003') {
        // Still at the rail a moment later; the funds are held, not yet gone.
        const early = await pay.transaction(platformA, quoted.body.transactionId);
        expect(early.status).toBe('PROCESSING');
      }
      // 005 is COMPLETED before the bank returns it: wait for the status this outcome ends in.
      const done = await eventually(
        () => pay.transaction(platformA, quoted.body.transactionId),
        (transaction) => transaction.status === status && isTerminal(transaction),
        40_000,
      );
      expect(done.status).toBe(status);
      expect(done.failureReason).toBe(failureReason);
      expect(done.refund ? `${done.refund.status}/${done.refund.reason}` : undefined).toBe(refund);
      if (done.refund) expect(done.refund).toMatchObject({ reference: expect.stringMatching(/^REFUND-/), initiatedAt: expect.any(String) });
      // Nothing stays held: a payment at its end has either taken the money or given it back.
      expect(await pay.balances(platformA, customer, 'USD')).toEqual([available, available]);
      await receiver.waitFor(() => webhooksOf(done.id).length >= sequence.length, `${sequence.length} webhooks for ${suffix}`);
      expect(webhooksOf(done.id)).toEqual(sequence);
    },
    60_000,
  );

  it('fails a payment the source cannot cover with QUOTE_EXECUTION_FAILED, without refund, leaving the balance untouched', async () => {
    const { customer, usd, euros } = await payer(5_000);
    const quoted = await pay.quote(platformA, usd, euros, 10_000);
    expect((await pay.execute(platformA, quoted.body.id)).status).toBe(200);
    const done = await pay.settled(platformA, quoted.body.transactionId);
    expect(done).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
    expect(done).not.toHaveProperty('refund');
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([5_000, 5_000]);
  });
});

describe('execute rules', () => {
  let fixture: { customer: Customer; usd: string; euros: string };
  beforeAll(async () => {
    fixture = await payer(1_000_000);
  });

  it('answers 404 QUOTE_NOT_FOUND for an unknown quote and for another platform’s, which stays PENDING', async () => {
    const unknown = await pay.execute(platformA, 'Quote:0190f000-0000-7000-8000-00000000dead');
    expect(unknown.body).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });
    const quoted = await pay.quote(platformA, fixture.usd, fixture.euros, 1_000);
    const foreign = await pay.execute(platformB, quoted.body.id);
    expect(foreign.body).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });
    expect((await pay.transaction(platformA, quoted.body.transactionId)).status).toBe('PENDING');
    expect((await api.call('GET', `/transactions/${quoted.body.transactionId}`, { auth: platformB })).status).toBe(404);
  });

  it('answers 409 CONFLICT to a second execute, and the money moves once', async () => {
    const quoted = await pay.quote(platformA, fixture.usd, fixture.euros, 1_000);
    expect((await pay.execute(platformA, quoted.body.id)).status).toBe(200);
    const again = await pay.execute(platformA, quoted.body.id);
    expect(again.body).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(again.body.message).toMatch(/already executed/);
    await pay.settled(platformA, quoted.body.transactionId);
    expect(await holdsFor(stack, quoted.body.transactionId)).toBe(1);
  });

  it('refuses to execute a REALTIME_FUNDING quote on request (400 naming quoteId)', async () => {
    const quoted = await api.call('POST', '/quotes', {
      auth: platformA,
      body: {
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: fixture.customer.customerId },
        destination: { destinationType: 'ACCOUNT', accountId: fixture.euros },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    expect(quoted.status).toBe(201);
    const reply = await pay.execute(platformA, quoted.body.id);
    expect(reply.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'quoteId' } });
    expect((await pay.transaction(platformA, quoted.body.transactionId)).status).toBe('PENDING');
  });

  it('answers 409 to an expired quote, whose transaction ends EXPIRED with QUOTE_EXPIRED', async () => {
    const [available] = await pay.balances(platformA, fixture.customer, 'USD');
    const quoted = await pay.quote(platformA, fixture.usd, fixture.euros, 1_000);
    stack.advanceClock((QUOTE_TTL_SECONDS + 1) * 1000);
    const reply = await pay.execute(platformA, quoted.body.id);
    expect(reply.body).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(reply.body.message).toMatch(/expired/);
    expect(await pay.transaction(platformA, quoted.body.transactionId)).toMatchObject({
      status: 'EXPIRED',
      failureReason: 'QUOTE_EXPIRED',
    });
    expect((await pay.balances(platformA, fixture.customer, 'USD'))[0]).toBe(available);
    expect(await holdsFor(stack, quoted.body.transactionId)).toBe(0);
  }, 40_000);
});

describe('idempotent execution', () => {
  it('replays a retried execute with the same Idempotency-Key, also when the two race: one payment, one hold', async () => {
    const { customer, usd, euros } = await payer(10_000);
    const quoted = await pay.quote(platformA, usd, euros, 4_000);
    const headers = { 'idempotency-key': `exec-${quoted.body.id}` };
    const replies = await Promise.all([pay.execute(platformA, quoted.body.id, headers), pay.execute(platformA, quoted.body.id, headers)]);
    expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
    expect(replies[0]!.body).toEqual(replies[1]!.body);
    expect(replies.filter((reply) => reply.headers.get('idempotency-replayed') === 'true')).toHaveLength(1);
    const later = await pay.execute(platformA, quoted.body.id, headers);
    expect([later.status, later.headers.get('idempotency-replayed')]).toEqual([200, 'true']);
    await pay.settled(platformA, quoted.body.transactionId);
    expect(await holdsFor(stack, quoted.body.transactionId)).toBe(1);
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([6_000, 6_000]);
  });

  it('without a key, of two racing executes exactly one starts the payment and the other is a 409', async () => {
    const { customer, usd, euros } = await payer(10_000);
    const quoted = await pay.quote(platformA, usd, euros, 4_000);
    const replies = await Promise.all([pay.execute(platformA, quoted.body.id), pay.execute(platformA, quoted.body.id)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
    await pay.settled(platformA, quoted.body.transactionId);
    expect(await holdsFor(stack, quoted.body.transactionId)).toBe(1);
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([6_000, 6_000]);
  });

  it('immediatelyExecute creates and executes in one call (201, PROCESSING) and completes', async () => {
    const { customer, usd, euros } = await payer(10_000);
    const quoted = await pay.quote(platformA, usd, euros, 2_500, { immediatelyExecute: true });
    expect(quoted.status).toBe(201);
    expect(quoted.body.status).toBe('PROCESSING');
    expect(await pay.settled(platformA, quoted.body.transactionId)).toMatchObject({ status: 'COMPLETED' });
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([7_500, 7_500]);
    const again = await pay.execute(platformA, quoted.body.id);
    expect(again.body).toMatchObject({ status: 409, code: 'CONFLICT' });
  });
});

describe('read-your-writes: when execute answers, every read shows at least what it said', () => {
  const rank: Record<string, number> = { PENDING: 0, PROCESSING: 1, COMPLETED: 2, FAILED: 2, EXPIRED: 2 };

  it.each([
    ['an instant payout (held and settled at once)', '000', 7_000],
    ['a long payout (~4 s here: held, not yet settled)', '003', 10_000],
  ])(
    'shows the hold on the source and the transaction at least PROCESSING right after the answer: %s',
    async (_label, suffix, totalRightAfter) => {
      const { customer, usd, euros } = await payer(10_000, suffix);
      const quoted = await pay.quote(platformA, usd, euros, 3_000);
      const executed = await pay.execute(platformA, quoted.body.id);
      expect(executed.body).toMatchObject({ status: 'PROCESSING' });
      const [[available, total], transaction, quote] = await Promise.all([
        pay.balances(platformA, customer, 'USD'),
        pay.transaction(platformA, quoted.body.transactionId),
        api.call('GET', `/quotes/${quoted.body.id}`, { auth: platformA }),
      ]);
      expect(available).toBe(7_000);
      // The long payout's hold is only settled when the rail completes; the instant one's at once.
      expect(total === 10_000 || total === totalRightAfter).toBe(true);
      expect(rank[transaction.status]).toBeGreaterThanOrEqual(rank.PROCESSING!);
      expect(rank[quote.body.status]).toBeGreaterThanOrEqual(rank.PROCESSING!);
      await pay.settled(platformA, quoted.body.transactionId);
    },
  );

  it('immediatelyExecute answers PROCESSING once the hold shows', async () => {
    const { customer, usd, euros } = await payer(10_000);
    const quoted = await pay.quote(platformA, usd, euros, 2_000, { immediatelyExecute: true });
    expect(quoted.body.status).toBe('PROCESSING');
    expect((await pay.balances(platformA, customer, 'USD'))[0]).toBe(8_000);
    expect(rank[(await pay.transaction(platformA, quoted.body.transactionId)).status]).toBeGreaterThanOrEqual(rank.PROCESSING!);
    await pay.settled(platformA, quoted.body.transactionId);
  });

  it('a second execute racing the completion never names a status that a GET right after it does not show', async () => {
    const { usd, euros } = await payer(100_000);
    const seen: { said: string; shown: string }[] = [];
    for (let round = 0; round < 12; round += 1) {
      const quoted = await pay.quote(platformA, usd, euros, 1_000);
      /** An execute, and when it is a 409, a GET of the transaction right after its answer. */
      const executeAndLook = async (): Promise<number> => {
        const reply = await pay.execute(platformA, quoted.body.id);
        if (reply.status === 409) {
          const said = (reply.body.details?.status ?? /is ([A-Z_]+)\.$/.exec(reply.body.message)?.[1]) as string;
          const shown = (await pay.transaction(platformA, quoted.body.transactionId)).status as string;
          seen.push({ said, shown });
        }
        return reply.status;
      };
      // One execute in flight while others follow one after another: racing it, right after it, and while the payment completes.
      const first = executeAndLook();
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 4; attempt += 1) statuses.push(await executeAndLook());
      statuses.push(await first);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(4);
      await pay.settled(platformA, quoted.body.transactionId);
    }
    expect(seen).toHaveLength(12 * 4);
    expect(seen.filter(({ said, shown }) => rank[shown]! < rank[said]!)).toEqual([]);
    // The race did reach the completion: some 409s already said COMPLETED.
    expect(seen.some(({ said }) => said === 'COMPLETED')).toBe(true);
  }, 60_000);
});

describe('100 concurrent payments from an account that covers 60', () => {
  it('completes exactly 60 and fails 40 cleanly; the balance ends at 0 and never went below it', async () => {
    const { customer, usd, euros } = await payer(60 * 1_000);
    const quotes = await Promise.all(Array.from({ length: 100 }, () => pay.quote(platformA, usd, euros, 1_000)));
    expect(quotes.every((quoted) => quoted.status === 201 && quoted.body.totalSendingAmount === 1_000)).toBe(true);
    const executed = await Promise.all(quotes.map((quoted) => pay.execute(platformA, quoted.body.id)));
    expect(executed.map((reply) => reply.status)).toEqual(Array(100).fill(200));
    const finals = await Promise.all(quotes.map((quoted) => pay.settled(platformA, quoted.body.transactionId, 120_000)));
    const outcome = finals.reduce<Record<string, number>>((counts, transaction) => {
      const key = `${transaction.status}${transaction.failureReason ? `/${transaction.failureReason}` : ''}`;
      return { ...counts, [key]: (counts[key] ?? 0) + 1 };
    }, {});
    expect(outcome).toEqual({ COMPLETED: 60, 'FAILED/QUOTE_EXECUTION_FAILED': 40 });
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([0, 0]);
    expect(await lowestAvailable(stack, usd)).toBe(0n);
  }, 180_000);
});

describe('POST /sandbox/send', () => {
  let fixture: { customer: Customer; usd: string; euros: string };
  const realtimeQuote = (auth: Credentials, destinationAccountId: string, amount = 3_000) =>
    api.call('POST', '/quotes', {
      auth,
      body: {
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: fixture.customer.customerId },
        destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: amount,
      },
    });
  beforeAll(async () => {
    fixture = await payer(0);
  });

  it('funds a REALTIME_FUNDING quote with the quoted amount: the quote executes and the MXN account is credited', async () => {
    const mxn = pay.accountIn(fixture.customer, 'MXN');
    const quoted = await realtimeQuote(platformA, mxn);
    expect(quoted.status).toBe(201);
    const sent = await api.call('POST', '/sandbox/send', { auth: platformA, body: { quoteId: quoted.body.id, currencyCode: 'USD' } });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      id: quoted.body.transactionId,
      type: 'OUTGOING',
      status: 'PROCESSING',
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
    });
    expect(await pay.settled(platformA, quoted.body.transactionId)).toMatchObject({ status: 'COMPLETED' });
    expect(await pay.balances(platformA, fixture.customer, 'MXN')).toEqual([
      quoted.body.totalReceivingAmount,
      quoted.body.totalReceivingAmount,
    ]);
    const again = await api.call('POST', '/sandbox/send', { auth: platformA, body: { quoteId: quoted.body.id, currencyCode: 'USD' } });
    expect(again.body).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it('fails the payment with FUNDING_AMOUNT_MISMATCH when another amount arrives, and returns the funds', async () => {
    const quoted = await realtimeQuote(platformA, fixture.euros);
    const sent = await api.call('POST', '/sandbox/send', {
      auth: platformA,
      body: { quoteId: quoted.body.id, currencyCode: 'USD', currencyAmount: 2_999 },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'FAILED', failureReason: 'FUNDING_AMOUNT_MISMATCH' });
    expect(await pay.settled(platformA, quoted.body.transactionId)).toMatchObject({
      status: 'FAILED',
      failureReason: 'FUNDING_AMOUNT_MISMATCH',
      refund: { status: 'COMPLETED' },
    });
  });

  it('refuses a currency other than the quote’s, a quote paid from an account, another platform’s quote and a production token', async () => {
    const quoted = await realtimeQuote(platformA, fixture.euros);
    const wrongCurrency = await api.call('POST', '/sandbox/send', {
      auth: platformA,
      body: { quoteId: quoted.body.id, currencyCode: 'EUR' },
    });
    expect(wrongCurrency.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'currencyCode' } });
    const foreign = await api.call('POST', '/sandbox/send', { auth: platformB, body: { quoteId: quoted.body.id, currencyCode: 'USD' } });
    expect(foreign.body).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });
    const forbidden = await api.call('POST', '/sandbox/send', { auth: production, body: { quoteId: quoted.body.id, currencyCode: 'USD' } });
    expect(forbidden.status).toBe(403);
    const badBody = await api.call('POST', '/sandbox/send', {
      auth: platformA,
      body: { quoteId: quoted.body.id, currencyCode: 'USD', currencyAmount: 1.5 },
    });
    expect(badBody.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect((await pay.transaction(platformA, quoted.body.transactionId)).status).toBe('PENDING');

    const funded = await payer(10_000);
    const accountQuote = await pay.quote(platformA, funded.usd, funded.euros, 1_000);
    const notRealtime = await api.call('POST', '/sandbox/send', {
      auth: platformA,
      body: { quoteId: accountQuote.body.id, currencyCode: 'USD' },
    });
    expect(notRealtime.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'quoteId' } });
  });
});

describe('the books', () => {
  it('balance after every scenario above: per currency the postings sum to zero, and every balance is its postings', async () => {
    // Every payment of this suite has reached its end before the check.
    const all =
      (await eventually(
        async () =>
          (await api.call('GET', '/transactions?limit=100', { auth: platformA })).body.data as {
            status: string;
            refund?: { status: string };
          }[],
        (list) => list.every((item) => item.status === 'PENDING' || item.status === 'EXPIRED' || isTerminal(item)),
        30_000,
      )) ?? [];
    expect(all.length).toBeGreaterThan(0);
    const summary = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    expect(summary.postings).toBeGreaterThan(0);
  });
});

describe('same-currency transfers', () => {
  it('send the OUTGOING_PAYMENT webhooks of a payment: a transfer-out PENDING → PROCESSING → COMPLETED, each passing the reference schema', async () => {
    const { customer, usd } = await payer(50_000);
    const bank = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: {
        customerId: customer.customerId,
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `0007${customer.platformCustomerId.replace(/\D/g, '').padStart(5, '0').slice(-5)}100`,
          routingNumber: '011000015',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Payee' },
        },
      },
    });
    expect(bank.status).toBe(201);
    const sent = await api.call('POST', '/transfer-out', {
      auth: platformA,
      body: { source: { accountId: usd }, destination: { accountId: bank.body.id }, amount: 5_000 },
    });
    expect(sent.status).toBe(201);
    await receiver.waitFor(() => webhooksOf(sent.body.id).includes('COMPLETED'), 'OUTGOING_PAYMENT.COMPLETED of the transfer');
    expect(webhooksOf(sent.body.id)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(await pay.balances(platformA, customer, 'USD')).toEqual([45_000, 45_000]);
  });
});
