import { SetMetadata } from '@nestjs/common';
import type { Permission } from '@corridor/contracts';

export const REQUIRED_PERMISSION = 'corridor:required-permission';
export const PUBLIC_ROUTE = 'corridor:public-route';

/** The permission a route needs; every authenticated route declares one. */
export const RequiresPermission = (permission: Permission) => SetMetadata(REQUIRED_PERMISSION, permission);

/** A route that needs no credentials (health). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);

// Reads are open to any token (every permission includes seeing); a write needs exactly the
// permission it names, so a VIEW+TRANSACT token cannot manage tokens or configuration.
export const isPermitted = (granted: readonly Permission[], required: Permission): boolean =>
  required === 'VIEW' ? granted.length > 0 : granted.includes(required);
