import { INCOMING_SENDER, type Operation, type SoakContext } from './context';
import type { SoakPlatform } from './workload';

// Money traffic: funding, quotes (a quarter left to expire), transfers out and in, bursts on one hot
// account, and incoming UMA payments.

const HOT_BURST = 16;

export const fund = async (ctx: SoakContext, platform: SoakPlatform, accountId: string, amount: number): Promise<boolean> => {
  const { client, expect } = ctx;
  return expect(
    'POST /sandbox/internal-accounts/{id}/fund',
    await client.call('POST /sandbox/internal-accounts/{id}/fund', platform.auth, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, {
      body: { amount },
    }),
    [200],
  );
};

export const transferOut = async (
  ctx: SoakContext,
  platform: SoakPlatform,
  source: string,
  destination: string,
  amount: number,
  operation = 'POST /transfer-out',
): Promise<void> => {
  const { client, expect } = ctx;
  const reply = await client.call(operation, platform.auth, 'POST', '/transfer-out', {
    body: { source: { accountId: source }, destination: { accountId: destination }, amount },
  });
  // 400: a shortfall on a busy account, refused without moving money.
  if (expect(operation, reply, [201, 400]) && reply.status === 201) platform.transactionIds.add(reply.body.id);
};

const runFund = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { pick, ready } = ctx;
  const customer = pick(ready(platform));
  if (customer?.usd && (await fund(ctx, platform, customer.usd, 200_000))) customer.funded = true;
};

const runQuote = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick, expect, ready } = ctx;
  const customer = pick(ready(platform).filter((candidate) => candidate.funded));
  if (!customer) return;
  const quote = await client.call('POST /quotes', platform.auth, 'POST', '/quotes', {
    body: {
      source: { sourceType: 'ACCOUNT', accountId: customer.usd },
      destination: { destinationType: 'ACCOUNT', accountId: customer.eur },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    },
  });
  if (!expect('POST /quotes', quote, [200, 201])) return;
  const transactionId = quote.body.transactionId as string;
  platform.transactionIds.add(transactionId);
  if (random() < 0.25) {
    platform.quotesNotExecuted.add(transactionId);
    return;
  }
  expect(
    'POST /quotes/{id}/execute',
    await client.call('POST /quotes/{id}/execute', platform.auth, 'POST', `/quotes/${quote.body.id}/execute`),
    [200, 201, 400],
  );
};

const runTransferOut = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { pick, ready } = ctx;
  const customer = pick(ready(platform).filter((candidate) => candidate.funded && candidate.banks.length > 0));
  if (customer?.usd) await transferOut(ctx, platform, customer.usd, pick(customer.banks)!, 500);
};

const runTransferIn = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, pick, expect, ready } = ctx;
  const customer = pick(ready(platform).filter((candidate) => candidate.banks.length > 0));
  if (!customer?.usd) return;
  const reply = await client.call('POST /transfer-in', platform.auth, 'POST', '/transfer-in', {
    body: { source: { accountId: pick(customer.banks) }, destination: { accountId: customer.usd }, amount: 700 },
  });
  if (expect('POST /transfer-in', reply, [201]) && reply.status === 201) platform.transactionIds.add(reply.body.id);
};

const runHotBurst = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const hot = platform.hot;
  if (!hot) return;
  await Promise.all(
    Array.from({ length: HOT_BURST }, () => transferOut(ctx, platform, hot.usd, hot.bank, 100, 'POST /transfer-out (hot account)')),
  );
};

const runIncoming = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick, expect, ready } = ctx;
  const customer = pick(ready(platform));
  if (!customer) return;
  const reply = await client.call('POST /sandbox/uma/receive', platform.auth, 'POST', '/sandbox/uma/receive', {
    body: {
      senderUmaAddress: INCOMING_SENDER,
      customerId: customer.id,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1_000 + Math.floor(random() * 1_000),
    },
  });
  if (expect('POST /sandbox/uma/receive', reply, [200, 201])) platform.transactionIds.add(reply.body.id);
};

export const paymentOperations = (ctx: SoakContext): Record<string, Operation> => ({
  fund: { weight: 4, run: (platform) => runFund(ctx, platform) },
  quote: { weight: 5, run: (platform) => runQuote(ctx, platform) },
  transferOut: { weight: 4, run: (platform) => runTransferOut(ctx, platform) },
  transferIn: { weight: 2, run: (platform) => runTransferIn(ctx, platform) },
  hotBurst: { weight: 0.7, run: (platform) => runHotBurst(ctx, platform) },
  incoming: { weight: 4, run: (platform) => runIncoming(ctx, platform) },
});
