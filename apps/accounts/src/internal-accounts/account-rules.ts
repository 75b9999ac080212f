import { DomainError, invalidInput } from '@corridor/contracts';
import { forgottenIn, type InternalAccount, isSystemAccountOf, type OpenAccount } from './internal-account';

// The guards every ledger command runs, in the order the deciders call them: tenancy first (so a
// stranger learns nothing, not even about a retry), then idempotency, then the account's status,
// then the request itself.

/**
 * REFERENCE_NOT_FOUND is the reference's code for a resource it has no dedicated code for (its
 * Error404 lists none for internal accounts), so callers over NATS and HTTP see the same answer.
 */
export const internalAccountNotFound = (accountId: string): DomainError =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Internal account ${accountId} was not found.`, { accountId });

/** Another platform's account answers exactly like one that does not exist. */
export const requireAccount = (state: InternalAccount, accountId: string, platformId: string): OpenAccount => {
  if (state.kind === 'None' || state.accountId !== accountId || state.platformId !== platformId) throw internalAccountNotFound(accountId);
  return state;
};

/**
 * Thrown by a decision that needs an id the account's windows let go of (docs/decisions/0018):
 * the writer looks the ids up in the account's events and decides again with them recalled. A
 * pure decider cannot read the store, and guessing "never seen" could apply a movement twice.
 */
export class NeedsRecall extends Error {
  constructor(
    readonly operationIds: readonly string[],
    readonly holdIds: readonly string[],
  ) {
    super(
      `The decision needs ids older than the account's window: operations [${operationIds.join(', ')}], holds [${holdIds.join(', ')}].`,
    );
    this.name = 'NeedsRecall';
  }
}

/** The fingerprint recorded for an operation id, from the window or what was recalled; undefined when never used. */
const recordedOperation = (account: OpenAccount, operationId: string): string | undefined => {
  const remembered = account.operations.get(operationId);
  if (remembered !== undefined || forgottenIn(account.operations) === 0) return remembered;
  const recalled = account.recalled?.operations;
  if (!recalled?.has(operationId)) throw new NeedsRecall([operationId], []);
  return recalled.get(operationId) ?? undefined;
};

/** The amount a settled or released hold had, from the window or what was recalled; undefined when the id never closed here. */
export const closedHoldAmount = (account: OpenAccount, holdId: string): bigint | undefined => {
  const remembered = account.closedHolds.get(holdId);
  if (remembered !== undefined || forgottenIn(account.closedHolds) === 0) return remembered;
  const recalled = account.recalled?.closedHolds;
  if (!recalled?.has(holdId)) throw new NeedsRecall([], [holdId]);
  return recalled.get(holdId) ?? undefined;
};

/** True for a retry (decide nothing); throws when the id was already used for something else. */
export const isRepeat = (account: OpenAccount, operationId: string, fingerprint: string): boolean => {
  const recorded = recordedOperation(account, operationId);
  if (recorded === undefined) return false;
  if (recorded === fingerprint) return true;
  throw new DomainError('CONFLICT', 'conflict', `Operation ${operationId} was already used with a different request.`, { operationId });
};

export const refuseClosed = (account: OpenAccount): void => {
  if (account.status === 'CLOSED') {
    throw new DomainError('ACCOUNT_CLOSED', 'conflict', `Internal account ${account.accountId} is closed.`, {
      accountId: account.accountId,
    });
  }
};

/** Money may leave (or be set aside to leave) only an ACTIVE account. */
export const refuseUnlessSpendable = (account: OpenAccount): void => {
  if (account.status === 'FROZEN') {
    throw new DomainError('ACCOUNT_FROZEN', 'conflict', `Internal account ${account.accountId} is frozen.`, {
      accountId: account.accountId,
    });
  }
  if (account.status !== 'ACTIVE') {
    throw new DomainError('ACCOUNT_NOT_ACTIVE', 'conflict', `Internal account ${account.accountId} is ${account.status}.`, {
      accountId: account.accountId,
      status: account.status,
    });
  }
};

export const checkCurrency = (account: OpenAccount, currency: string): void => {
  if (currency !== account.currency) {
    throw new DomainError(
      'INVALID_CURRENCY',
      'validation',
      `Internal account ${account.accountId} holds ${account.currency}, not ${currency}.`,
      {
        field: 'currency',
        expected: account.currency,
        actual: currency,
      },
    );
  }
};

export const checkAmount = (amount: bigint, field = 'amount'): void => {
  if (amount <= 0n) {
    throw new DomainError('INVALID_AMOUNT', 'validation', `${field} must be a positive number of minor units, got ${amount}.`, { field });
  }
};

export const checkCounterAccount = (account: OpenAccount, counterAccountId: string): void => {
  if (!isSystemAccountOf(account.currency, counterAccountId)) {
    throw invalidInput(`counterAccountId must be a ${account.currency} system account, got ${counterAccountId}.`, {
      field: 'counterAccountId',
    });
  }
};

export const checkFunds = (account: OpenAccount, requested: bigint): void => {
  if (requested > account.available) {
    throw new DomainError(
      'INSUFFICIENT_FUNDS',
      'validation',
      `Internal account ${account.accountId} has ${account.available} ${account.currency} available; ${requested} was requested.`,
      { accountId: account.accountId, available: account.available.toString(), requested: requested.toString() },
    );
  }
};

export const checkMovement = (account: OpenAccount, amount: bigint, currency: string, counterAccountId: string): void => {
  checkCurrency(account, currency);
  checkAmount(amount);
  checkCounterAccount(account, counterAccountId);
};
