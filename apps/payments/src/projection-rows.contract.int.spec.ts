import { join } from 'node:path';
import { projectionRowsContract } from '@corridor/testing';
import { paymentExecutionProjection } from './execution/payment-execution.projection';
import { incomingTimerProjection } from './incoming/incoming-timer.projection';
import { invitationViewProjection } from './invitations/invitation-view.projection';
import { quoteViewProjection } from './quotes/quote-view.projection';
import { transactionCountProjection } from './transactions/transaction-count.projection';
import { transactionViewProjection } from './transactions/transaction-view.projection';
import { transferTimerProjection } from './transfers/transfer-timer.projection';
import { lookupViewProjection } from './uma/lookup-view.projection';

// Every plain-SQL read model of payments maps rows the same whichever connection loaded them.
describe('payments read models written with plain SQL', () => {
  projectionRowsContract({
    schema: 'payments',
    migrationsDirectory: join(__dirname, 'migrations'),
    projections: [
      quoteViewProjection,
      transactionViewProjection,
      lookupViewProjection,
      invitationViewProjection,
      incomingTimerProjection,
      transferTimerProjection,
      transactionCountProjection,
      paymentExecutionProjection,
    ],
  });
});
