import { subjects } from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// INTERNAL_ACCOUNT.BALANCE_UPDATED / STATUS_UPDATED with the InternalAccount as it was right after
// the event (apps/accounts/src/internal-accounts/internal-account.ts names the events). The event
// carries that account as `account` (decision 0054), rendered by accounts as renderAt would render
// it, so the webhook needs no call back; an event recorded before it carries none and is rendered
// by asking accounts for the account as of the event's stream position.
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
    const account = event.data['account'];
    if (typeof account === 'object' && account !== null) {
      return { type, resourceId: event.streamId, render: { inline: account as Record<string, unknown> } };
    }
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
