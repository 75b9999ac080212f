import { SetMetadata } from '@nestjs/common';
import type { Permission } from '@corridor/contracts';

export const REQUIRED_PERMISSION = 'corridor:required-permission';
export const PUBLIC_ROUTE = 'corridor:public-route';

/** The permission a route needs; every authenticated route declares one. */
export const RequiresPermission = (permission: Permission) => SetMetadata(REQUIRED_PERMISSION, permission);

/** A route that needs no credentials (health). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);

// Whether a token's permissions permit a route is isPermitted (libs/contracts grants.ts): reads
// are open to any token, a write needs exactly the permission it names.
