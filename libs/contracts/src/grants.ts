import type { AgentPermission } from './agents';
import { DomainError } from './errors';
import { type Permission, permissions } from './requests';

// Who may grant what (decision 0022): a credential grants no more than it holds. An API token
// creates tokens with its own permissions or fewer; an agent's permissions stand for the platform
// permission of the route that does the same thing for the platform, so an agent that moves money
// is created (or given money permissions, or handed a device code) only by a TRANSACT token.

/** Reads are open to any token (every permission includes seeing); anything else needs exactly the permission. */
export const isPermitted = (held: readonly Permission[], required: Permission): boolean =>
  required === 'VIEW' ? held.length > 0 : held.includes(required);

/** The asking token's permissions as a message carried them; anything unreadable grants nothing. */
export const grantorPermissionsOf = (data: { grantorPermissions?: unknown }): Permission[] =>
  Array.isArray(data.grantorPermissions)
    ? permissions.filter((permission) => (data.grantorPermissions as unknown[]).includes(permission))
    : [];

/** The platform permission each agent permission stands for (the permission of the platform's own route). */
export const platformPermissionOfAgent: Readonly<Record<AgentPermission, Permission>> = {
  VIEW_TRANSACTIONS: 'VIEW',
  CREATE_TRANSFERS: 'TRANSACT',
  CREATE_QUOTES: 'TRANSACT',
  EXECUTE_QUOTES: 'TRANSACT',
  MANAGE_EXTERNAL_ACCOUNTS: 'MANAGE',
};

/** The requested permissions the holder may not grant (empty: it may grant them all). */
export const ungrantablePermissions = (held: readonly Permission[], requested: readonly Permission[]): Permission[] =>
  [...new Set(requested)].filter((permission) => !isPermitted(held, permission));

/** The platform permissions an agent with these permissions needs its grantor to hold, and which of them it lacks. */
export const ungrantableAgentPermissions = (held: readonly Permission[], requested: readonly AgentPermission[]): Permission[] =>
  ungrantablePermissions(
    held,
    requested.map((permission) => platformPermissionOfAgent[permission]),
  );

/** 403 FORBIDDEN naming what is missing: requiredPermission as a route's refusal has it, and every missing one. */
export const grantRefused = (missing: readonly Permission[], what: string): DomainError =>
  new DomainError(
    'FORBIDDEN',
    'forbidden',
    `This token cannot ${what}: that needs ${missing.join(' and ')}, which it does not hold. ` +
      `A token grants only permissions it holds; use a token with ${missing.join(' and ')}, or ask for fewer permissions.`,
    { requiredPermission: missing[0], requiredPermissions: [...missing] },
  );
