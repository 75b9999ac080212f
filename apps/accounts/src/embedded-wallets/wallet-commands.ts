import {
  type AuthCredentialIdData,
  type AuthSessionIdData,
  CLIENT_PUBLIC_KEY_PATTERN,
  type CreateAuthCredentialData,
  type CustomerEmailChangeData,
  invalidInput,
  type SignedInternalAccountData,
  type VerifyWalletStampData,
  type WalletFundedChangeData,
  type WalletSignatureHeaders,
} from '@corridor/contracts';
import type { PasskeyAttestation } from './passkeys';

// The Embedded Wallet handlers' typed commands, parsed from the NATS data the gateway forwards.
// A check that today answers before any lookup runs here; a check the reference orders after a
// lookup (an unknown wallet or credential is 404 before its body is judged) keeps its place in the
// service, which then reads a typed field (`string | undefined`), never `body['x']`. A signed
// operation also keeps the body as sent: leg 2 must resend exactly the body whose digest leg 1 bound.

/** The body as sent and the two signature headers of the signed retry. */
export type SignedInput = { body: Record<string, unknown>; headers: WalletSignatureHeaders };

export type CreateEmailOtpCredentialCommand = SignedInput & { type: 'EMAIL_OTP'; accountId: string };
export type CreateOauthCredentialCommand = SignedInput & { type: 'OAUTH'; accountId: string; oidcToken: string | undefined };
/** The attestation as sent: registerPasskey judges its shape and answers 401 naming what it could not read. */
export type CreatePasskeyCredentialCommand = SignedInput & {
  type: 'PASSKEY';
  accountId: string;
  attestation: PasskeyAttestation;
  nickname: string;
  challenge: string;
};
export type CreateCredentialCommand = CreateEmailOtpCredentialCommand | CreateOauthCredentialCommand | CreatePasskeyCredentialCommand;

export type ChallengeCredentialCommand = { credentialId: string; clientPublicKey: string | undefined };
/** The verify of any credential type: the fields are judged once the credential's stored type is known. */
export type VerifyCredentialCommand = SignedInput & {
  credentialId: string;
  type: string | undefined;
  oidcToken: string | undefined;
  clientPublicKey: string | undefined;
  encryptedOtpBundle: string | undefined;
  /** As sent: the sandbox shortcut and WebAuthn judge it. */
  assertion: unknown;
};
export type RevokeCredentialCommand = { credentialId: string; headers: WalletSignatureHeaders };
export type RevokeSessionCommand = { sessionId: string; headers: WalletSignatureHeaders };
export type RefreshSessionCommand = { sessionId: string; clientPublicKey: string; headers: WalletSignatureHeaders };
export type ExportWalletCommand = { accountId: string; clientPublicKey: string; headers: WalletSignatureHeaders };
export type UpdateWalletAccountCommand = { accountId: string; privateEnabled: boolean; headers: WalletSignatureHeaders };
export type AuthorizeEmailChangeCommand = SignedInput & { customerId: string; email: string | undefined };

export const headersOf = (data: WalletSignatureHeaders): WalletSignatureHeaders => ({
  ...(data.walletSignature !== undefined ? { walletSignature: data.walletSignature } : {}),
  ...(data.requestId !== undefined ? { requestId: data.requestId } : {}),
});
export const bodyOf = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const textsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
const nonEmpty = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || value === '') throw invalidInput(`${field} must be a non-empty string.`, { field });
  return value;
};

/** 400 unless the key is an uncompressed P-256 public key in hex; `purpose` opens the message. */
export const requireClientPublicKey = (
  clientPublicKey: string | undefined,
  purpose = 'clientPublicKey must be an uncompressed P-256 public key in hex',
): string => {
  if (clientPublicKey === undefined || !CLIENT_PUBLIC_KEY_PATTERN.test(clientPublicKey))
    throw invalidInput(`${purpose} (04 followed by 128 hex digits).`, { field: 'clientPublicKey' });
  return clientPublicKey;
};

/** 400 unless the token is a non-empty string; judged where the token is verified (leg 2 of a create binds it by digest only). */
export const requireOidcToken = (oidcToken: string | undefined): string => {
  if (oidcToken === undefined || oidcToken === '')
    throw invalidInput('oidcToken is required: an OIDC ID token from a configured issuer.', { field: 'oidcToken' });
  return oidcToken;
};

/** The credential type decides the rest of the command; any other type is 400 before anything is looked up. */
export const parseCreateCredential = (data: CreateAuthCredentialData): CreateCredentialCommand => {
  const body = bodyOf(data.body);
  const signed = { body, headers: headersOf(data), accountId: String(body['accountId']) };
  const type = body['type'];
  if (type === 'EMAIL_OTP') return { ...signed, type };
  if (type === 'OAUTH') return { ...signed, type, oidcToken: textOf(body['oidcToken']) };
  if (type === 'PASSKEY') {
    return {
      ...signed,
      type,
      attestation: body['attestation'] as PasskeyAttestation,
      nickname: String(body['nickname'] ?? ''),
      challenge: String(body['challenge'] ?? ''),
    };
  }
  throw invalidInput('type must be one of OAUTH, EMAIL_OTP, PASSKEY.', { field: 'type' });
};

export const parseChallengeCredential = (data: AuthCredentialIdData): ChallengeCredentialCommand => ({
  credentialId: data.credentialId,
  clientPublicKey: textOf(bodyOf(data.body)['clientPublicKey']),
});

export const parseVerifyCredential = (data: AuthCredentialIdData): VerifyCredentialCommand => {
  const body = bodyOf(data.body);
  return {
    credentialId: data.credentialId,
    body,
    headers: headersOf(data),
    type: textOf(body['type']),
    oidcToken: textOf(body['oidcToken']),
    clientPublicKey: textOf(body['clientPublicKey']),
    encryptedOtpBundle: textOf(body['encryptedOtpBundle']),
    assertion: body['assertion'],
  };
};

export const parseRefreshSession = (data: AuthSessionIdData): RefreshSessionCommand => ({
  sessionId: data.sessionId,
  clientPublicKey: requireClientPublicKey(textOf(bodyOf(data.body)['clientPublicKey'])),
  headers: headersOf(data),
});

export const parseExportWallet = (data: SignedInternalAccountData): ExportWalletCommand => ({
  accountId: data.accountId,
  clientPublicKey: requireClientPublicKey(textOf(bodyOf(data.body)['clientPublicKey'])),
  headers: headersOf(data),
});

/** privateEnabled is the only field an internal account lets you change. */
export const parseUpdateWalletAccount = (data: SignedInternalAccountData): UpdateWalletAccountCommand => {
  const privateEnabled = bodyOf(data.body)['privateEnabled'];
  if (privateEnabled === undefined) {
    throw invalidInput('The update names no field; privateEnabled is the field an internal account lets you change.', {
      field: 'privateEnabled',
    });
  }
  if (typeof privateEnabled !== 'boolean') throw invalidInput('privateEnabled must be true or false.', { field: 'privateEnabled' });
  return { accountId: data.accountId, privateEnabled, headers: headersOf(data) };
};

/** A customer update: only a string email can touch the wallet's EMAIL_OTP credentials; the whole body is what the wallet signs. */
export const parseAuthorizeEmailChange = (data: CustomerEmailChangeData): AuthorizeEmailChangeCommand => {
  const body = bodyOf(data.body);
  return { customerId: data.customerId, email: textOf(body['email']), body, headers: headersOf(data) };
};

/** The stamp check's data; a grant must name the transaction, the amount and the currency. */
export const parseVerifyStamp = (data: VerifyWalletStampData): VerifyWalletStampData => {
  const grant =
    data.grant === undefined
      ? {}
      : {
          grant: {
            transactionId: nonEmpty(data.grant.transactionId, 'grant.transactionId'),
            amount: nonEmpty(data.grant.amount, 'grant.amount'),
            currency: nonEmpty(data.grant.currency, 'grant.currency'),
          },
        };
  return {
    accountId: data.accountId,
    payloadToSign: nonEmpty(data.payloadToSign, 'payloadToSign'),
    ...(typeof data.walletSignature === 'string' ? { walletSignature: data.walletSignature } : {}),
    ...grant,
  };
};

const WALLET_FUNDED_OPERATIONS: readonly WalletFundedChangeData['operation'][] = ['CREATE_CARD', 'UPDATE_CARD', 'TRANSFER_OUT'];

export const parseWalletFundedChange = (data: WalletFundedChangeData): WalletFundedChangeData => {
  const { accountIds, bindAccountIds, operation, targetId, body } = data;
  if (!WALLET_FUNDED_OPERATIONS.includes(operation))
    throw invalidInput(`operation must be one of ${WALLET_FUNDED_OPERATIONS.join(', ')}.`, { field: 'operation' });
  return {
    accountIds: textsOf(accountIds),
    bindAccountIds: textsOf(bindAccountIds),
    operation,
    targetId: String(targetId),
    body: bodyOf(body),
  };
};
