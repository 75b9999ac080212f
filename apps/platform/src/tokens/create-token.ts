import { type Command, DomainError, grantRefused, type Permission, ungrantablePermissions } from '@corridor/contracts';
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
  },
  { now: Date }
>;

export const createToken = (command: CreateToken, token: Token): TokenEvent[] => {
  const { tokenId, platformId, name, clientId, secretHash } = command.data;
  if (token.status !== 'None') {
    throw new DomainError('CONFLICT', 'conflict', `Token ${tokenId} already exists.`);
  }
  const permissions = [...new Set(command.data.permissions)];
  if (permissions.length === 0) {
    throw new DomainError('INVALID_INPUT', 'validation', 'A token needs at least one permission: VIEW, TRANSACT or MANAGE.', { field: 'permissions' });
  }
  const missing = ungrantablePermissions(command.data.grantorPermissions, permissions);
  if (missing.length > 0) throw grantRefused(missing, `create a token with ${permissions.join(', ')}`);
  return [
    {
      type: 'TokenCreated',
      data: { tokenId, platformId, name: name.trim(), permissions, clientId, secretHash, createdAt: command.metadata.now.toISOString() },
    },
  ];
};
