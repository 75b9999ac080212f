import { createHash } from 'node:crypto';
import {
  type Command,
  DomainError,
  idempotencyConflict,
  invalidInput,
  isIdOf,
  requireSameRequest,
  primaryIdentifierMember,
} from '@corridor/contracts';
import { type AccountInfo, primaryIdentifierOf, validateAccountInfo } from './account-info';
import type { ExternalAccount, ExternalAccountEvent } from './external-account';

export type CreateExternalAccount = Command<
  'CreateExternalAccount',
  {
    externalAccountId: string;
    platformId: string;
    /** Null for the platform's own accounts. The caller has already checked the customer exists. */
    customerId: string | null;
    currency: string;
    /** Untrusted: validated here against its accountType's variant. */
    accountInfo: unknown;
    platformAccountId: string | null;
    defaultUmaDepositAccount: boolean;
    /** The request's fingerprint, when it has an Idempotency-Key (the id is then derived from the key). */
    requestFingerprint?: string;
  },
  { now: Date }
>;

const PLATFORM_ACCOUNT_ID_MAX_LENGTH = 255;
const CURRENCY_CODE = /^[A-Z]{3,5}$/;

/** Members that, next to an account number, tell which bank holds it. */
const bankQualifiers = ['routingNumber', 'sortCode', 'bankCode', 'branchCode', 'swiftCode'] as const;
/** Identifiers that already name one account everywhere (IBAN, CLABE, a wallet address…). */
const bankLocalIdentifiers = new Set(['accountNumber', 'phoneNumber']);
const evmWallets = new Set(['ETHEREUM_WALLET', 'POLYGON_WALLET', 'BASE_WALLET']);

/**
 * What makes two external accounts "the same" for the 409 on create: one owner (a customer, or the
 * platform itself), one currency and one destination. The destination is the primary identifier,
 * plus the bank's code when that identifier is only unique within a bank (an account number). The
 * key is hashed so a long lightning invoice still gives a short stream id.
 */
export const identityKeyOf = (platformId: string, customerId: string | null, currency: string, info: AccountInfo): string => {
  const members = info as Readonly<Record<string, unknown>>;
  const identifierName = primaryIdentifierMember(members);
  let identifier = primaryIdentifierOf(info);
  // EVM addresses differ only in their checksum casing; they name the same wallet.
  if (evmWallets.has(info.accountType)) identifier = identifier.toLowerCase();
  const present = bankQualifiers.filter((name) => typeof members[name] === 'string').map((name) => `${name}=${members[name] as string}`);
  const bankName = typeof members['bankName'] === 'string' ? `bankName=${(members['bankName'] as string).toLowerCase()}` : undefined;
  const qualifiers =
    identifierName && bankLocalIdentifiers.has(identifierName) ? (present.length > 0 ? present : bankName ? [bankName] : []) : [];
  const canonical = [platformId, customerId ?? 'PLATFORM', currency, info.accountType, identifier, ...qualifiers].join('|');
  return `ExternalAccountIdentity:${createHash('sha256').update(canonical).digest('hex')}`;
};

export const createExternalAccount = (command: CreateExternalAccount, state: ExternalAccount): ExternalAccountEvent[] => {
  const { externalAccountId, platformId, customerId, currency, platformAccountId, defaultUmaDepositAccount, requestFingerprint } =
    command.data;
  // The id is derived from the Idempotency-Key (in the actor's scope): an account under it is this
  // request again, answered as it stands, or another request under a used key, a 409, and never an
  // account of another owner (decision 0028).
  if (state.kind === 'Open' && state.platformId === platformId && state.customerId === customerId) {
    requireSameRequest(state.requestFingerprint, requestFingerprint, externalAccountId);
    return [];
  }
  if (state.kind !== 'None') throw idempotencyConflict(externalAccountId);
  if (!isIdOf('ExternalAccount', externalAccountId)) {
    throw invalidInput(`externalAccountId must be an ExternalAccount id, got ${externalAccountId}.`, { field: 'externalAccountId' });
  }
  if (!CURRENCY_CODE.test(currency)) {
    throw new DomainError(
      'INVALID_CURRENCY',
      'validation',
      `currency must be an ISO 4217 code such as USD, got ${JSON.stringify(currency)}.`,
      { field: 'currency' },
    );
  }
  if (platformAccountId !== null && (platformAccountId.length === 0 || platformAccountId.length > PLATFORM_ACCOUNT_ID_MAX_LENGTH)) {
    throw invalidInput(`platformAccountId must be 1 to ${PLATFORM_ACCOUNT_ID_MAX_LENGTH} characters long.`, { field: 'platformAccountId' });
  }
  // The rule is per customer; the platform's own accounts take no part in UMA deposits.
  if (defaultUmaDepositAccount && customerId === null) {
    throw invalidInput('defaultUmaDepositAccount applies only to a customer’s external account.', { field: 'defaultUmaDepositAccount' });
  }
  const accountInfo = validateAccountInfo(command.data.accountInfo, { currency, field: 'accountInfo' });
  return [
    {
      type: 'ExternalAccountCreated',
      data: {
        externalAccountId,
        platformId,
        customerId,
        currency,
        accountInfo,
        platformAccountId,
        defaultUmaDepositAccount,
        identityKey: identityKeyOf(platformId, customerId, currency, accountInfo),
        ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
        createdAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
