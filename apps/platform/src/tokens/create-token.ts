import {
  type Command,
  DomainError,
  grantRefused,
  idempotencyConflict,
  type Permission,
  requireSameRequest,
  ungrantablePermissions,
} from '@corridor/contracts';
import type { Token, TokenEvent } from './token';

export type CreateToken = Command<
  'CreateToken',
  {
    tokenId: string;
    platformId: string;
    name: string;
    permissions: Permission[];
    /** The asking token's permissions: a token grants only what it holds. */
    grantorPermissions: Permission[];
    clientId: string;
    secretHash: string;
    /** The request's fingerprint, when it has an Idempotency-Key (the token id is then derived from the key). */
    requestFingerprint?: string;
  },
  { now: Date }
>;

/**
 * The token id is derived from the Idempotency-Key, so a token under it is this request again (a
 * retry after a lost answer: nothing new) or another request under a used key, a 409 (decision
 * 0028). A token deleted since is no answer to a retry either: its key is used.
 */
export const requireSameToken = (
  token: Exclude<Token, { status: 'None' }>,
  request: { platformId: string; requestFingerprint?: string | undefined },
): void => {
  if (token.status !== 'Active' || token.platformId !== request.platformId) throw idempotencyConflict(token.tokenId);
  requireSameRequest(token.requestFingerprint, request.requestFingerprint, token.tokenId);
};

export const createToken = (command: CreateToken, token: Token): TokenEvent[] => {
  const { tokenId, platformId, name, clientId, secretHash, requestFingerprint } = command.data;
  if (token.status !== 'None') {
    requireSameToken(token, command.data);
    return [];
  }
  const permissions = [...new Set(command.data.permissions)];
  if (permissions.length === 0) {
    throw new DomainError('INVALID_INPUT', 'validation', 'A token needs at least one permission: VIEW, TRANSACT or MANAGE.', {
      field: 'permissions',
    });
  }
  const missing = ungrantablePermissions(command.data.grantorPermissions, permissions);
  if (missing.length > 0) throw grantRefused(missing, `create a token with ${permissions.join(', ')}`);
  return [
    {
      type: 'TokenCreated',
      data: {
        tokenId,
        platformId,
        name: name.trim(),
        permissions,
        clientId,
        secretHash,
        ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
        createdAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
