import type { AuthMethodWire, AuthSessionWire } from '@corridor/contracts';
import type { CredentialRow, SessionRow } from './wallet-store';

export const renderCredential = (row: CredentialRow): AuthMethodWire => ({
  id: row.id,
  accountId: row.accountId,
  type: row.type,
  ...(row.credentialId ? { credentialId: row.credentialId } : {}),
  nickname: row.nickname,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** AuthSession: the credential's fields with the session's id and expiry (never the key, unless sealed for the client). */
export const renderSession = (session: SessionRow, credential: CredentialRow, encryptedSessionSigningKey?: string): AuthSessionWire => ({
  ...renderCredential(credential),
  id: session.id,
  createdAt: session.createdAt.toISOString(),
  updatedAt: session.createdAt.toISOString(),
  ...(encryptedSessionSigningKey ? { encryptedSessionSigningKey } : {}),
  expiresAt: session.expiresAt.toISOString(),
});

/** A Turnkey-style activity, the shape of the reference's payloadToSign examples; timestampMs and requestId make each one unique. */
export const activityPayload = (
  type: string,
  organizationId: string,
  parameters: Record<string, unknown>,
  now: Date,
  requestId: string,
): string => JSON.stringify({ organizationId, parameters: { ...parameters, requestId }, timestampMs: String(now.getTime()), type });
