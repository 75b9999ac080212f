import type { Command } from '@corridor/contracts';
import { type HoldFunds, holdFunds } from './hold-funds';
import { evolveInternalAccount, type InternalAccount, type InternalAccountEvent } from './internal-account';
import { settleHold } from './settle-hold';

/**
 * A hold that settles in full at once (an instant rail): the hold and its settle decided one after
 * the other and committed in one append, so the caller makes one ledger request instead of two.
 * Each keeps its own operation id and its own rules, so the outcome is the one the two requests
 * would have had: a refused hold settles nothing, a repeat of either is a no-op, and a hold that
 * an earlier request already placed is only settled.
 */
export type HoldAndSettle = Command<'HoldAndSettle', HoldFunds['data'] & { settleOperationId: string }, { now: Date }>;

export const holdAndSettle = (command: HoldAndSettle, state: InternalAccount): InternalAccountEvent[] => {
  const { settleOperationId, ...hold } = command.data;
  const heldEvents = holdFunds({ type: 'HoldFunds', data: hold, metadata: command.metadata }, state);
  const afterHold = heldEvents.reduce(evolveInternalAccount, state);
  const settleData = { accountId: hold.accountId, platformId: hold.platformId, operationId: settleOperationId, holdId: hold.holdId };
  return [...heldEvents, ...settleHold({ type: 'SettleHold', data: settleData, metadata: command.metadata }, afterHold)];
};
