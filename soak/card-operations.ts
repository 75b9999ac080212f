import type { Operation, SoakContext } from './context';
import type { SoakPlatform } from './workload';

// Card traffic: issue (every sandbox issuer outcome), freeze, unfreeze, close, reads, and the
// simulator's authorizations, clearings and returns.

/**
 * The sandbox issuer's platformCardId suffixes: 001 stays PENDING_ISSUE, 002
 * is rejected (CLOSED), 005 activates after 30 s; anything else at once.
 */
const CARD_SUFFIXES = ['001', '002', '005', 'x', 'x', 'x', 'x', 'x', 'x', 'x'];
/** A merchant descriptor without the simulator's suffix magic (its last three characters are not digits). */
const MERCHANT = { descriptor: 'SOAK COFFEE SF' };
/** Declines are outcomes a card user expects (no money moved), not errors. */
const CARD_DECLINES = new Set(['INSUFFICIENT_FUNDS', 'CARD_PAUSED']);

const runIssueCard = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, stats, runTag, next, pick, expect, ready } = ctx;
  const customer = pick(ready(platform));
  if (!customer?.usd) return;
  const suffix = pick(CARD_SUFFIXES)!;
  const platformCardId = `soak-card-${runTag}-${next()}${suffix === 'x' ? 'c' : `-${suffix}`}`;
  const reply = await client.call('POST /cards', platform.auth, 'POST', '/cards', {
    body: { cardholderId: customer.id, platformCardId, form: 'VIRTUAL', fundingSources: [customer.usd] },
  });
  if (reply.status === 409 && reply.retried) {
    // A lost answer: the first attempt made the card, the retry found the platformCardId taken. The card is the one with that id.
    const found = await client.call(
      'GET /cards (platformCardId)',
      platform.auth,
      'GET',
      `/cards?platformCardId=${encodeURIComponent(platformCardId)}`,
    );
    const card = found.body?.data?.[0];
    if (card) platform.cards.push({ id: card.id, customerId: customer.id, account: customer.usd, platformCardId, state: card.state });
    else stats.surprise('POST /cards retried into 409 but no card has its platformCardId', platformCardId);
    return;
  }
  if (!expect('POST /cards', reply, [201])) return;
  platform.cards.push({ id: reply.body.id, customerId: customer.id, account: customer.usd, platformCardId, state: reply.body.state });
};

const runPatchCard = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick, expect } = ctx;
  const card = pick(platform.cards.filter((candidate) => candidate.state !== 'CLOSED'));
  if (!card) return;
  const roll = random();
  const body =
    roll < 0.1
      ? { state: 'CLOSED' }
      : roll < 0.3
        ? { fundingSources: [card.account] }
        : { state: card.state === 'FROZEN' ? 'ACTIVE' : 'FROZEN' };
  const reply = await client.call('PATCH /cards/{id}', platform.auth, 'PATCH', `/cards/${card.id}`, { body });
  // 409: a move the card's state does not allow (still PENDING_ISSUE, or another user moved it first).
  if (expect('PATCH /cards/{id}', reply, [200, 409])) {
    if (reply.status === 200) card.state = reply.body.state;
    else if (reply.body?.code === 'CARD_ALREADY_CLOSED' || reply.body?.code === 'CARD_NOT_MUTABLE') card.state = 'CLOSED';
    else {
      const current = await client.call('GET /cards/{id}', platform.auth, 'GET', `/cards/${card.id}`);
      if (current.status === 200) card.state = current.body.state;
    }
  }
};

const runReadCards = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick, expect } = ctx;
  const card = pick(platform.cards);
  const reads: [string, string][] = [
    ['GET /cards', `/cards?limit=20&sortOrder=${random() < 0.5 ? 'asc' : 'desc'}`],
    ['GET /cards (state)', `/cards?state=${pick(['ACTIVE', 'FROZEN', 'CLOSED', 'PENDING_ISSUE'])}&limit=20`],
  ];
  if (card) {
    reads.push(
      ['GET /cards/{id}', `/cards/${card.id}`],
      ['GET /cards (cardholderId)', `/cards?cardholderId=${encodeURIComponent(card.customerId)}`],
      ['GET /cards (accountId)', `/cards?accountId=${encodeURIComponent(card.account)}`],
      ['GET /cards (platformCardId)', `/cards?platformCardId=${encodeURIComponent(card.platformCardId)}`],
    );
  }
  const [operation, path] = pick(reads)!;
  const reply = await client.call(operation, platform.auth, 'GET', path);
  if (expect(operation, reply, [200]) && card && operation === 'GET /cards/{id}') card.state = reply.body.state;
};

const runCardAuthorization = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, stats, random, pick, expect } = ctx;
  const funded = new Set(platform.customers.filter((customer) => customer.funded).map((customer) => customer.id));
  // PENDING_ISSUE as last seen: the sandbox issuer usually activated it since (a decline refreshes what we know).
  const card = pick(
    platform.cards.filter((candidate) => ['ACTIVE', 'PENDING_ISSUE'].includes(candidate.state) && funded.has(candidate.customerId)),
  );
  if (!card) return;
  const amount = 100 + Math.floor(random() * 4_900);
  const reply = await client.call(
    'POST /sandbox/cards/{id}/simulate/authorization',
    platform.auth,
    'POST',
    `/sandbox/cards/${card.id}/simulate/authorization`,
    {
      body: { amount, currency: { code: 'USD' }, merchant: MERCHANT },
    },
  );
  if (reply.status === 400 && CARD_DECLINES.has(reply.body?.code)) {
    stats.outcome(`card authorization declined ${reply.body.code}`);
    if (reply.body.code === 'CARD_PAUSED') {
      const current = await client.call('GET /cards/{id}', platform.auth, 'GET', `/cards/${card.id}`);
      if (current.status === 200) card.state = current.body.state;
    }
    return;
  }
  if (!expect('POST /sandbox/cards/{id}/simulate/authorization', reply, [200])) return;
  platform.cardTransactions.set(reply.body.id, {
    id: reply.body.id,
    cardId: card.id,
    account: reply.body.accountId,
    authorized: amount,
    settled: 0,
    returned: 0,
    status: reply.body.status,
    busy: false,
  });
};

const runCardClearing = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, stats, random, pick, expect } = ctx;
  const transaction = pick(
    [...platform.cardTransactions.values()].filter(
      (candidate) => !candidate.busy && (candidate.status === 'AUTHORIZED' || candidate.status === 'PARTIALLY_SETTLED'),
    ),
  );
  if (!transaction) return;
  const open = transaction.authorized - transaction.settled;
  const roll = random();
  // Full, partial, or 0 (the authorization expires and its hold is released).
  const amount = roll < 0.5 ? open : roll < 0.85 ? Math.max(1, Math.floor(open / 2)) : 0;
  transaction.busy = true;
  try {
    const reply = await client.call(
      'POST /sandbox/cards/{id}/simulate/clearing',
      platform.auth,
      'POST',
      `/sandbox/cards/${transaction.cardId}/simulate/clearing`,
      { body: { cardTransactionId: transaction.id, amount } },
    );
    // Closing a card expires its open authorizations (a clearing of 0): a clearing after that,
    // or racing it, is a 409 naming the status the close left.
    const closed = platform.cards.find((card) => card.id === transaction.cardId)?.state === 'CLOSED';
    if (reply.status === 409 && reply.body?.code === 'INVALID_STATE_TRANSITION' && closed) {
      transaction.status = reply.body.details?.status ?? 'SETTLED';
      return stats.outcome('card clearing after the card was closed: 409');
    }
    if (expect('POST /sandbox/cards/{id}/simulate/clearing', reply, reply.retried ? [200, 400, 409] : [200]) && reply.status === 200) {
      transaction.status = reply.body.status;
      transaction.settled = Number(reply.body.settlementSummary?.totalAmount ?? transaction.settled);
    }
  } finally {
    transaction.busy = false;
  }
};

const runCardReturn = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick, expect } = ctx;
  // Returns on SETTLED and PARTIALLY_SETTLED transactions: a full return on a partly settled
  // one keeps it PARTIALLY_SETTLED with the rest of its hold still clearable (this soak's hold
  // check once found it REFUNDED with money held and nothing left to release it).
  const transaction = pick(
    [...platform.cardTransactions.values()].filter(
      (candidate) =>
        !candidate.busy &&
        candidate.settled - candidate.returned > 0 &&
        (candidate.status === 'SETTLED' || candidate.status === 'PARTIALLY_SETTLED'),
    ),
  );
  if (!transaction) return;
  const net = transaction.settled - transaction.returned;
  const amount = random() < 0.5 ? net : Math.max(1, Math.floor(net / 3));
  transaction.busy = true;
  try {
    const reply = await client.call(
      'POST /sandbox/cards/{id}/simulate/return',
      platform.auth,
      'POST',
      `/sandbox/cards/${transaction.cardId}/simulate/return`,
      { body: { cardTransactionId: transaction.id, amount } },
    );
    if (expect('POST /sandbox/cards/{id}/simulate/return', reply, reply.retried ? [200, 400, 409] : [200]) && reply.status === 200) {
      transaction.status = reply.body.status;
      transaction.returned = Number(reply.body.refundSummary?.totalAmount ?? transaction.returned);
    }
  } finally {
    transaction.busy = false;
  }
};

export const cardOperations = (ctx: SoakContext): Record<string, Operation> => ({
  issueCard: { weight: 2, run: (platform) => runIssueCard(ctx, platform) },
  patchCard: { weight: 2, run: (platform) => runPatchCard(ctx, platform) },
  readCards: { weight: 3, run: (platform) => runReadCards(ctx, platform) },
  cardAuthorization: { weight: 3, run: (platform) => runCardAuthorization(ctx, platform) },
  cardClearing: { weight: 2, run: (platform) => runCardClearing(ctx, platform) },
  cardReturn: { weight: 1, run: (platform) => runCardReturn(ctx, platform) },
});
