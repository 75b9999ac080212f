import { join } from 'node:path';
import { projectionRowsContract } from '@corridor/testing';
import { externalAccountViewProjection } from './external-accounts/external-account-view.projection';
import { internalAccountViewProjection } from './internal-accounts/internal-account-view.projection';

// Every plain-SQL read model of accounts maps rows the same whichever connection loaded them
// (the internal-accounts stall: a MikroORM connection's string timestamps reached toISOString).
describe('accounts read models written with plain SQL', () => {
  projectionRowsContract({
    schema: 'accounts',
    migrationsDirectory: join(__dirname, 'migrations'),
    projections: [internalAccountViewProjection, externalAccountViewProjection],
  });
});
