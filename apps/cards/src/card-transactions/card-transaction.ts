import { type Command, DomainError, type Event } from '@corridor/contracts';

// One stream per card transaction (stream id = the CardTransaction id). The money lives in the
// accounts ledger: authorization holds it on one funding source, clearings settle the hold (and
// pull any excess as a debit), returns credit the account. The stream records what the ledger
// did, so the summaries the reference shows are sums over these events and nothing else.

export type CardTransactionStatus = 'AUTHORIZED' | 'PARTIALLY_SETTLED' | 'SETTLED' | 'REFUNDED' | 'EXCEPTION';
export type CardMerchant = { descriptor: string; mcc?: string; country?: string };
export type PullStatus = 'PENDING' | 'CONFIRMED' | 'FAILED';
/** A movement out of the funding source: the authorization's hold, or a post-hoc pull at clearing. */
export type Pull = { amount: bigint; status: PullStatus };
export type CardRefund = { refundId: string; amount: bigint; refundedAt: string };

/** How long the sandbox's delayed pull (descriptor suffix 005) stays PENDING on the service clock. */
export const DELAYED_PULL_MS = 30_000;

export const cardTransactionStreamId = (cardTransactionId: string): string => cardTransactionId;

/** The ledger's hold for a card transaction: one per transaction, named by the transaction. */
export const holdIdOf = (cardTransactionId: string): string => cardTransactionId;

/**
 * Ledger operation ids, one per step, so a crash of either side resumes a step without repeating
 * it: the ledger answers a repeated operation id with nothing new.
 */
export const operationIds = {
  hold: (id: string) => `${id}:authorization:hold`,
  settle: (id: string, clearing: number) => `${id}:clearing:${clearing}:settle`,
  release: (id: string, clearing: number) => `${id}:clearing:${clearing}:release`,
  pull: (id: string, clearing: number) => `${id}:clearing:${clearing}:pull`,
  refund: (id: string, refund: number) => `${id}:return:${refund}:credit`,
};

type Amount = string;

export type CardTransactionAuthorized = Event<
  'CardTransactionAuthorized',
  {
    cardTransactionId: string;
    cardId: string;
    platformId: string;
    accountId: string;
    currency: string;
    amount: Amount;
    merchant: CardMerchant;
    pullStatus: 'PENDING' | 'CONFIRMED';
    /** When a PENDING pull confirms (the sandbox's delayed pull). */
    pullDueAt?: string;
    authorizedAt: string;
  }
>;
/** The authorization's pull went through but its confirmation reported FAILED: money is held, the books disagree. */
export type PullConfirmationFailed = Event<'PullConfirmationFailed', { cardTransactionId: string; failedAt: string }>;
export type PullConfirmed = Event<'PullConfirmed', { cardTransactionId: string; confirmedAt: string }>;
export type ClearingPosted = Event<
  'ClearingPosted',
  {
    cardTransactionId: string;
    clearing: number;
    amount: Amount;
    /** Taken from the hold; the rest of the clearing (if any) is a post-hoc pull. */
    fromHold: Amount;
    /** Left reserved for later clearings; 0 closes the transaction. */
    holdRemaining: Amount;
    postedAt: string;
  }
>;
export type PostHocPullPosted = Event<
  'PostHocPullPosted',
  { cardTransactionId: string; clearing: number; amount: Amount; status: 'CONFIRMED' | 'FAILED'; reason?: string; postedAt: string }
>;
/** A clearing of 0: the authorization expired with nothing (more) to clear, and the hold was released. */
export type AuthorizationExpired = Event<
  'AuthorizationExpired',
  { cardTransactionId: string; clearing: number; releasedAmount: Amount; expiredAt: string }
>;
export type CardRefunded = Event<
  'CardRefunded',
  { cardTransactionId: string; refund: number; refundId: string; amount: Amount; refundedAt: string }
>;

export type CardTransactionEvent =
  | CardTransactionAuthorized
  | PullConfirmationFailed
  | PullConfirmed
  | ClearingPosted
  | PostHocPullPosted
  | AuthorizationExpired
  | CardRefunded;

/** Every event type of a card-transaction stream, for the read model's canHandle. */
export const cardTransactionEventTypes = [
  'CardTransactionAuthorized',
  'PullConfirmationFailed',
  'PullConfirmed',
  'ClearingPosted',
  'PostHocPullPosted',
  'AuthorizationExpired',
  'CardRefunded',
] as const satisfies readonly CardTransactionEvent['type'][];

export type OpenCardTransaction = {
  kind: 'Open';
  id: string;
  cardId: string;
  platformId: string;
  accountId: string;
  currency: string;
  merchant: CardMerchant;
  status: CardTransactionStatus;
  authorizedAmount: bigint;
  holdRemaining: bigint;
  pulls: readonly Pull[];
  pullDueAt?: string;
  clearings: number;
  settlements: readonly bigint[];
  refunds: readonly CardRefund[];
  authorizedAt: string;
  lastEventAt: string;
};

export type CardTransaction = { kind: 'None' } | OpenCardTransaction;

export const initialCardTransaction = (): CardTransaction => ({ kind: 'None' });

const sum = (amounts: readonly bigint[]): bigint => amounts.reduce((total, amount) => total + amount, 0n);
export const settledTotal = (state: OpenCardTransaction): bigint => sum(state.settlements);
export const refundedTotal = (state: OpenCardTransaction): bigint => sum(state.refunds.map((refund) => refund.amount));
export const netSettled = (state: OpenCardTransaction): bigint => settledTotal(state) - refundedTotal(state);

/**
 * The status once money moved, unless the transaction is an EXCEPTION: open while some of the
 * authorization is still held (PARTIALLY_SETTLED), REFUNDED once returns gave back everything
 * settled and nothing is held any more, SETTLED otherwise. A full return on a PARTIALLY_SETTLED
 * transaction therefore leaves it PARTIALLY_SETTLED: the rest of its hold can still be cleared or
 * released (clearing 0), and only then is it REFUNDED.
 */
const settledStatus = (next: OpenCardTransaction): CardTransactionStatus => {
  if (next.status === 'EXCEPTION') return 'EXCEPTION';
  if (next.holdRemaining > 0n) return 'PARTIALLY_SETTLED';
  return next.refunds.length > 0 && netSettled(next) === 0n ? 'REFUNDED' : 'SETTLED';
};

const withPull = (pulls: readonly Pull[], index: number, status: PullStatus): Pull[] =>
  pulls.map((pull, at) => (at === index ? { ...pull, status } : pull));

const evolveOpen = (state: OpenCardTransaction, event: Exclude<CardTransactionEvent, CardTransactionAuthorized>): OpenCardTransaction => {
  switch (event.type) {
    case 'PullConfirmationFailed':
      return { ...state, status: 'EXCEPTION', pulls: withPull(state.pulls, 0, 'FAILED'), lastEventAt: event.data.failedAt };
    case 'PullConfirmed': {
      const { pullDueAt: _confirmed, ...rest } = state;
      return { ...rest, pulls: withPull(state.pulls, 0, 'CONFIRMED'), lastEventAt: event.data.confirmedAt };
    }
    case 'ClearingPosted': {
      const next = {
        ...state,
        holdRemaining: BigInt(event.data.holdRemaining),
        clearings: event.data.clearing,
        settlements: [...state.settlements, BigInt(event.data.amount)],
        lastEventAt: event.data.postedAt,
      };
      return { ...next, status: settledStatus(next) };
    }
    case 'PostHocPullPosted':
      return {
        ...state,
        // The network settled the whole clearing; a pull that failed leaves us short of it.
        status: event.data.status === 'FAILED' ? 'EXCEPTION' : state.status,
        pulls: [...state.pulls, { amount: BigInt(event.data.amount), status: event.data.status }],
        lastEventAt: event.data.postedAt,
      };
    case 'AuthorizationExpired': {
      // The enum has no EXPIRED: a transaction closed against its funding source is SETTLED,
      // here for what was cleared before (0 when nothing was), or REFUNDED if all of that came back.
      const next = { ...state, holdRemaining: 0n, clearings: event.data.clearing, lastEventAt: event.data.expiredAt };
      return { ...next, status: settledStatus(next) };
    }
    case 'CardRefunded': {
      const refunds = [
        ...state.refunds,
        { refundId: event.data.refundId, amount: BigInt(event.data.amount), refundedAt: event.data.refundedAt },
      ];
      const next = { ...state, refunds, lastEventAt: event.data.refundedAt };
      return { ...next, status: settledStatus(next) };
    }
    default: {
      const unexpected: never = event;
      return unexpected;
    }
  }
};

export const evolveCardTransaction = (state: CardTransaction, event: CardTransactionEvent): CardTransaction => {
  if (event.type === 'CardTransactionAuthorized') {
    const data = event.data;
    return {
      kind: 'Open',
      id: data.cardTransactionId,
      cardId: data.cardId,
      platformId: data.platformId,
      accountId: data.accountId,
      currency: data.currency,
      merchant: data.merchant,
      status: 'AUTHORIZED',
      authorizedAmount: BigInt(data.amount),
      holdRemaining: BigInt(data.amount),
      pulls: [{ amount: BigInt(data.amount), status: data.pullStatus }],
      ...(data.pullDueAt !== undefined ? { pullDueAt: data.pullDueAt } : {}),
      clearings: 0,
      settlements: [],
      refunds: [],
      authorizedAt: data.authorizedAt,
      lastEventAt: data.authorizedAt,
    };
  }
  // An event for a transaction that was never authorized cannot come from our deciders.
  if (state.kind === 'None') throw new RangeError(`${event.type} arrived before the card transaction was authorized.`);
  return evolveOpen(state, event);
};

export const cardTransactionDecider = { evolve: evolveCardTransaction, initialState: initialCardTransaction };

// ---- Decline screening (before any money moves) ----

export type DeclineReason = 'INSUFFICIENT_FUNDS' | 'CARD_PAUSED';
export type CardForAuthorization = { id: string; platformId: string; state: string; currency: string };
/** What the sandbox does with the pull, from the last three characters of merchant.descriptor. */
export type SandboxPull = 'IMMEDIATE' | 'DELAYED' | 'CONFIRMATION_FAILS';

/** The sandbox's descriptor suffixes: 002 and 003 decline before the ledger is asked. */
export const sandboxDeclineOf = (descriptor: string): DeclineReason | undefined =>
  descriptor.endsWith('002') ? 'INSUFFICIENT_FUNDS' : descriptor.endsWith('003') ? 'CARD_PAUSED' : undefined;

export const sandboxPullOf = (descriptor: string): SandboxPull =>
  descriptor.endsWith('005') ? 'DELAYED' : descriptor.endsWith('006') ? 'CONFIRMATION_FAILS' : 'IMMEDIATE';

export const declined = (reason: DeclineReason, cardId: string): DomainError =>
  new DomainError(
    reason,
    'validation',
    reason === 'CARD_PAUSED'
      ? `Card ${cardId} is not active (frozen, closed or still being issued), so the authorization was declined; no money moved.`
      : `None of card ${cardId}'s funding sources can cover the authorization, so it was declined; no money moved.`,
    { cardId, declineReason: reason },
  );

/**
 * Declines that need no ledger: a card that is not ACTIVE (CARD_PAUSED), the sandbox's decline
 * suffixes, and a currency other than the card's (a plain bad request, not a decline).
 */
export const screenAuthorization = (card: CardForAuthorization, request: { currency: string; merchant: CardMerchant }): void => {
  if (request.currency !== card.currency) {
    throw new DomainError(
      'INVALID_CURRENCY',
      'validation',
      `Card ${card.id} spends ${card.currency}; the authorization is in ${request.currency}.`,
      { field: 'currency' },
    );
  }
  if (card.state !== 'ACTIVE') throw declined('CARD_PAUSED', card.id);
  const sandboxDecline = sandboxDeclineOf(request.merchant.descriptor);
  if (sandboxDecline) throw declined(sandboxDecline, card.id);
};

// ---- Commands ----

export type AuthorizeCardTransaction = Command<
  'AuthorizeCardTransaction',
  {
    cardTransactionId: string;
    card: CardForAuthorization;
    /** The funding source whose ledger hold succeeded. */
    accountId: string;
    amount: bigint;
    currency: string;
    merchant: CardMerchant;
  },
  { now: Date }
>;

const notFound = (cardTransactionId: string): DomainError =>
  new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Card transaction ${cardTransactionId} does not exist.`, { cardTransactionId });

export const requireCardTransaction = (
  state: CardTransaction,
  cardTransactionId: string,
  platformId: string,
  cardId: string,
): OpenCardTransaction => {
  // Another platform's transaction, or another card's, is answered as if it did not exist.
  if (state.kind === 'None' || state.platformId !== platformId || state.cardId !== cardId) throw notFound(cardTransactionId);
  return state;
};

export const authorizeCardTransaction = (command: AuthorizeCardTransaction, state: CardTransaction): CardTransactionEvent[] => {
  const { cardTransactionId, card, accountId, amount, currency, merchant } = command.data;
  if (state.kind === 'Open') {
    // The same authorization retried (same id from the same Idempotency-Key) is answered as it stands.
    if (state.accountId === accountId && state.authorizedAmount === amount && state.merchant.descriptor === merchant.descriptor) return [];
    throw new DomainError('CONFLICT', 'conflict', `Card transaction ${cardTransactionId} already exists with different terms.`, {
      cardTransactionId,
    });
  }
  if (amount <= 0n) throw new DomainError('INVALID_AMOUNT', 'validation', 'amount must be at least 1 minor unit.', { field: 'amount' });
  const now = command.metadata.now;
  const pull = sandboxPullOf(merchant.descriptor);
  const authorized: CardTransactionAuthorized = {
    type: 'CardTransactionAuthorized',
    data: {
      cardTransactionId,
      cardId: card.id,
      platformId: card.platformId,
      accountId,
      currency,
      amount: amount.toString(),
      merchant,
      pullStatus: pull === 'DELAYED' ? 'PENDING' : 'CONFIRMED',
      ...(pull === 'DELAYED' ? { pullDueAt: new Date(now.getTime() + DELAYED_PULL_MS).toISOString() } : {}),
      authorizedAt: now.toISOString(),
    },
  };
  if (pull !== 'CONFIRMATION_FAILS') return [authorized];
  return [authorized, { type: 'PullConfirmationFailed', data: { cardTransactionId, failedAt: now.toISOString() } }];
};

export type ConfirmPendingPull = Command<'ConfirmPendingPull', { cardTransactionId: string }, { now: Date }>;

/** The delayed pull confirms once its time has come on the service clock; before that, nothing. */
export const confirmPendingPull = (command: ConfirmPendingPull, state: CardTransaction): CardTransactionEvent[] => {
  if (state.kind === 'None' || state.pullDueAt === undefined) return [];
  if (command.metadata.now.getTime() < Date.parse(state.pullDueAt)) return [];
  return [{ type: 'PullConfirmed', data: { cardTransactionId: state.id, confirmedAt: command.metadata.now.toISOString() } }];
};

/** What a clearing does to the ledger, decided from the state before any money moves. */
export type ClearingPlan = {
  clearing: number;
  amount: bigint;
  /** Settled out of the hold (0 on an expiry). */
  fromHold: bigint;
  /** Still reserved afterwards. */
  holdRemaining: bigint;
  /** Released from the hold (an expiry). */
  release: bigint;
  /** Beyond what the hold still reserved: pulled from the funding source after the fact. */
  postHocPull: bigint;
};

export const planClearing = (state: OpenCardTransaction, amount: bigint): ClearingPlan => {
  if (state.status !== 'AUTHORIZED' && state.status !== 'PARTIALLY_SETTLED') {
    throw new DomainError(
      'INVALID_STATE_TRANSITION',
      'conflict',
      `Card transaction ${state.id} is ${state.status}; only an AUTHORIZED or PARTIALLY_SETTLED transaction can be cleared.`,
      { cardTransactionId: state.id, status: state.status },
    );
  }
  if (amount < 0n) throw new DomainError('INVALID_AMOUNT', 'validation', 'amount must be 0 or more minor units.', { field: 'amount' });
  const clearing = state.clearings + 1;
  if (amount === 0n) return { clearing, amount, fromHold: 0n, holdRemaining: 0n, release: state.holdRemaining, postHocPull: 0n };
  const fromHold = amount < state.holdRemaining ? amount : state.holdRemaining;
  return { clearing, amount, fromHold, holdRemaining: state.holdRemaining - fromHold, release: 0n, postHocPull: amount - fromHold };
};

export type ClearCardTransaction = Command<
  'ClearCardTransaction',
  {
    cardTransactionId: string;
    platformId: string;
    cardId: string;
    /**
     * The plan the ledger operations were named and sized by (planClearing on the state the
     * controller loaded). It travels in the command so the events record exactly what the ledger
     * was asked to do, never a plan made again from a state that moved in between.
     */
    plan: ClearingPlan;
    /** How the post-hoc pull went at the ledger, when the plan had one. */
    postHocPull?: { status: 'CONFIRMED' } | { status: 'FAILED'; reason: string };
  },
  { now: Date }
>;

/**
 * Another request recorded this step first: two identical requests at once plan the same step,
 * their ledger operations share one id (so the ledger moved the money once), and only the first
 * may record it. The second is told that its request did nothing, rather than answered as if it had.
 */
const stepTaken = (cardTransactionId: string, step: 'clearing' | 'return', number: number): DomainError =>
  new DomainError(
    'CONFLICT',
    'conflict',
    `${step === 'clearing' ? 'Clearing' : 'Return'} ${number} of card transaction ${cardTransactionId} was recorded by a request ` +
      `that ran at the same time; this one moved no money. Send it again to post another ${step}.`,
    { cardTransactionId, [step]: number },
  );

const sameClearingPlan = (left: ClearingPlan, right: ClearingPlan): boolean =>
  left.clearing === right.clearing &&
  left.amount === right.amount &&
  left.fromHold === right.fromHold &&
  left.holdRemaining === right.holdRemaining &&
  left.release === right.release &&
  left.postHocPull === right.postHocPull;

/** The plan still holds on the state the decision sees, or the ledger and the stream would disagree: a 409. */
const requireClearingPlan = (transaction: OpenCardTransaction, plan: ClearingPlan): void => {
  // A transaction that cannot be cleared any more says so first (INVALID_STATE_TRANSITION), whoever closed it.
  const current = planClearing(transaction, plan.amount);
  if (plan.clearing <= transaction.clearings) throw stepTaken(transaction.id, 'clearing', plan.clearing);
  if (!sameClearingPlan(current, plan)) {
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `Card transaction ${transaction.id} changed while clearing ${plan.clearing} was being posted; send the clearing again.`,
      {
        cardTransactionId: transaction.id,
        clearing: plan.clearing,
      },
    );
  }
};

export const clearCardTransaction = (command: ClearCardTransaction, state: CardTransaction): CardTransactionEvent[] => {
  const { cardTransactionId, platformId, cardId, plan, postHocPull } = command.data;
  const transaction = requireCardTransaction(state, cardTransactionId, platformId, cardId);
  requireClearingPlan(transaction, plan);
  const amount = plan.amount;
  const at = command.metadata.now.toISOString();
  if (plan.amount === 0n) {
    return [
      {
        type: 'AuthorizationExpired',
        data: { cardTransactionId, clearing: plan.clearing, releasedAmount: plan.release.toString(), expiredAt: at },
      },
    ];
  }
  const posted: ClearingPosted = {
    type: 'ClearingPosted',
    data: {
      cardTransactionId,
      clearing: plan.clearing,
      amount: amount.toString(),
      fromHold: plan.fromHold.toString(),
      holdRemaining: plan.holdRemaining.toString(),
      postedAt: at,
    },
  };
  if (plan.postHocPull === 0n) return [posted];
  if (postHocPull === undefined)
    throw new RangeError(
      `Clearing ${plan.clearing} of ${cardTransactionId} needs a post-hoc pull of ${plan.postHocPull}; its outcome is missing.`,
    );
  return [
    posted,
    {
      type: 'PostHocPullPosted',
      data: {
        cardTransactionId,
        clearing: plan.clearing,
        amount: plan.postHocPull.toString(),
        status: postHocPull.status,
        ...(postHocPull.status === 'FAILED' ? { reason: postHocPull.reason } : {}),
        postedAt: at,
      },
    },
  ];
};

export type RefundPlan = { refund: number; amount: bigint };

export const planRefund = (state: OpenCardTransaction, amount: bigint): RefundPlan => {
  if (state.status !== 'SETTLED' && state.status !== 'PARTIALLY_SETTLED') {
    throw new DomainError(
      'INVALID_STATE_TRANSITION',
      'conflict',
      `Card transaction ${state.id} is ${state.status}; only a settled transaction can be returned.`,
      { cardTransactionId: state.id, status: state.status },
    );
  }
  const net = netSettled(state);
  if (amount <= 0n || amount > net) {
    throw new DomainError(
      'INVALID_AMOUNT',
      'validation',
      `amount must be from 1 to the net settled amount ${net} (settled minus already returned); got ${amount}.`,
      {
        field: 'amount',
        netSettled: net.toString(),
        requested: amount.toString(),
      },
    );
  }
  return { refund: state.refunds.length + 1, amount };
};

export type ReturnCardTransaction = Command<
  'ReturnCardTransaction',
  /** The plan the ledger credit was named by (its operation id and refundId carry plan.refund). */
  { cardTransactionId: string; platformId: string; cardId: string; refundId: string; plan: RefundPlan },
  { now: Date }
>;

export const returnCardTransaction = (command: ReturnCardTransaction, state: CardTransaction): CardTransactionEvent[] => {
  const { cardTransactionId, platformId, cardId, refundId, plan } = command.data;
  const transaction = requireCardTransaction(state, cardTransactionId, platformId, cardId);
  if (plan.refund <= transaction.refunds.length) throw stepTaken(cardTransactionId, 'return', plan.refund);
  const current = planRefund(transaction, plan.amount);
  if (current.refund !== plan.refund) throw stepTaken(cardTransactionId, 'return', current.refund);
  return [
    {
      type: 'CardRefunded',
      data: {
        cardTransactionId,
        refund: plan.refund,
        refundId,
        amount: plan.amount.toString(),
        refundedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
