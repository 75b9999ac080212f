import { DomainError, type Event } from '@corridor/contracts';
import type { AccountInfo, BeneficiaryVerificationStatus } from './account-info';

// One stream per external account (stream id = the account id). The state is plain JSON (no
// bigint, no Map) so the replay CLI can fold and print it with the decider itself.

export type ExternalAccountStatus = 'PENDING' | 'ACTIVE' | 'UNDER_REVIEW' | 'INACTIVE';
export type BeneficiaryVerification = { status: BeneficiaryVerificationStatus; verifiedData: { fullName: string } | null };

export type ExternalAccountCreated = Event<
  'ExternalAccountCreated',
  {
    externalAccountId: string;
    platformId: string;
    /** Null for the platform's own accounts. */
    customerId: string | null;
    currency: string;
    accountInfo: AccountInfo;
    platformAccountId: string | null;
    /**
     * What the client asked for. Whether the account IS the default is decided in the customer's
     * UmaDepositDefault stream (see uma-deposit-default.ts), which is what the read model shows.
     */
    defaultUmaDepositAccount: boolean;
    /** The duplicate-detection key this account holds (see account-identity.ts); released on delete. */
    identityKey: string;
    /** The gateway's fingerprint of the request that made it, when it came with an Idempotency-Key (decision 0028). */
    requestFingerprint?: string;
    createdAt: string;
  }
>;
export type BeneficiaryVerificationRecorded = Event<
  'BeneficiaryVerificationRecorded',
  { externalAccountId: string; status: BeneficiaryVerificationStatus; verifiedData: { fullName: string } | null; recordedAt: string }
>;
export type ExternalAccountStatusChanged = Event<
  'ExternalAccountStatusChanged',
  { externalAccountId: string; from: ExternalAccountStatus; to: ExternalAccountStatus; reason: string; changedAt: string }
>;
export type ExternalAccountDeleted = Event<'ExternalAccountDeleted', { externalAccountId: string; deletedAt: string }>;

export type ExternalAccountEvent =
  ExternalAccountCreated | BeneficiaryVerificationRecorded | ExternalAccountStatusChanged | ExternalAccountDeleted;

export type ExistingExternalAccount = {
  externalAccountId: string;
  platformId: string;
  customerId: string | null;
  currency: string;
  accountInfo: AccountInfo;
  identityKey: string;
  requestFingerprint?: string;
  status: ExternalAccountStatus;
  verification: BeneficiaryVerification | null;
};

export type ExternalAccount =
  | { kind: 'None' }
  | ({ kind: 'Open' } & ExistingExternalAccount)
  /** Deleted accounts keep their stream for history; to every command they are as if absent. */
  | ({ kind: 'Deleted' } & ExistingExternalAccount);

export const initialExternalAccount = (): ExternalAccount => ({ kind: 'None' });

export const evolveExternalAccount = (state: ExternalAccount, event: ExternalAccountEvent): ExternalAccount => {
  if (event.type === 'ExternalAccountCreated') {
    const { externalAccountId, platformId, customerId, currency, accountInfo, identityKey, requestFingerprint } = event.data;
    const fingerprint = requestFingerprint !== undefined ? { requestFingerprint } : {};
    return {
      kind: 'Open',
      externalAccountId,
      platformId,
      customerId,
      currency,
      accountInfo,
      identityKey,
      ...fingerprint,
      status: 'PENDING',
      verification: null,
    };
  }
  // A recorded event is never refused; one that precedes the creation has nothing to apply to.
  if (state.kind === 'None') return state;
  switch (event.type) {
    case 'BeneficiaryVerificationRecorded':
      return { ...state, verification: { status: event.data.status, verifiedData: event.data.verifiedData } };
    case 'ExternalAccountStatusChanged':
      return { ...state, status: event.data.to };
    case 'ExternalAccountDeleted':
      return { ...state, kind: 'Deleted' };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const externalAccountDecider = { evolve: evolveExternalAccount, initialState: initialExternalAccount };

/**
 * The one answer for "no such account here": unknown, deleted and another platform's account look
 * the same, so a caller cannot learn that an id exists elsewhere. REFERENCE_NOT_FOUND is the
 * reference's 404 code for a resource it has no dedicated code for.
 */
export const externalAccountNotFound = (externalAccountId: string): DomainError =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `External account ${externalAccountId} was not found.`, { externalAccountId });

/** The account as the command's platform may see it, or a 404. */
export const visibleAccount = (
  state: ExternalAccount,
  externalAccountId: string,
  platformId: string,
): ExistingExternalAccount & { kind: 'Open' } => {
  if (state.kind !== 'Open' || state.platformId !== platformId) throw externalAccountNotFound(externalAccountId);
  return state;
};

/**
 * Runs decisions one after another on one stream, each seeing the state the previous ones left,
 * so that several steps (create, record the sandbox verification, activate) land in one append:
 * either all of them are recorded or none is.
 */
export const decideInSequence = (
  state: ExternalAccount,
  decisions: readonly ((current: ExternalAccount) => ExternalAccountEvent[])[],
): ExternalAccountEvent[] => {
  const decided: ExternalAccountEvent[] = [];
  let current = state;
  for (const decide of decisions) {
    const events = decide(current);
    decided.push(...events);
    current = events.reduce(evolveExternalAccount, current);
  }
  return decided;
};
