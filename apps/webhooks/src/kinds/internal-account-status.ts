import { subjects } from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// INTERNAL_ACCOUNT.BALANCE_UPDATED / STATUS_UPDATED with the InternalAccount as it was right after
// the event (apps/accounts/src/internal-accounts/internal-account.ts names the events).
const balanceEvents: ReadonlySet<string> = new Set(['AccountCredited', 'AccountDebited', 'FundsHeld', 'HoldSettled', 'HoldReleased']);

export const kind: WebhookKind = {
  name: 'internal-account-status',
  types: ['INTERNAL_ACCOUNT.BALANCE_UPDATED', 'INTERNAL_ACCOUNT.STATUS_UPDATED'],
  plan(event) {
    if (event.service !== 'accounts' || event.aggregate !== 'InternalAccount') return null;
    const type = balanceEvents.has(event.type)
      ? 'INTERNAL_ACCOUNT.BALANCE_UPDATED'
      : event.type === 'AccountStatusChanged'
        ? 'INTERNAL_ACCOUNT.STATUS_UPDATED'
        : null;
    if (!type) return null;
    return {
      type,
      resourceId: event.streamId,
      render: {
        subject: subjects.accounts.internalAccount.renderAt,
        request: { accountId: event.streamId, streamPosition: event.streamPosition },
      },
    };
  },
  retried: () => true,
};
