// Pins down a hold that settles at once: the same events, refusals and repeats as a hold followed by a settle.
import { deciderSpec } from '@corridor/testing';
import { type HoldAndSettle, holdAndSettle } from './hold-and-settle';
import { internalAccountDecider } from './internal-account';
import { credited, held, holdCommand, opened, released, settled, statusChanged } from './internal-account.fixtures';

const { given } = deciderSpec({ decide: holdAndSettle, ...internalAccountDecider });

const holdAndSettleCommand = (data: Partial<HoldAndSettle['data']> = {}): HoldAndSettle => {
  const hold = holdCommand();
  return { type: 'HoldAndSettle', data: { ...hold.data, settleOperationId: 'op-settle', ...data }, metadata: hold.metadata };
};

describe('HoldAndSettle', () => {
  it('holds and settles in one decision', () => given([opened(), credited()]).when(holdAndSettleCommand()).then([held(), settled()]));

  it('refuses without settling anything when the funds are short', () =>
    given([opened(), credited('100')])
      .when(holdAndSettleCommand())
      .thenThrows((error) => error.code === 'INSUFFICIENT_FUNDS'));

  it('refuses on a frozen account, as the hold would', () =>
    given([opened(), credited(), statusChanged('ACTIVE', 'FROZEN')])
      .when(holdAndSettleCommand())
      .thenThrows((error) => error.status >= 400 && error.status < 500));

  it('only settles a hold an earlier request placed', () =>
    given([opened(), credited(), held()]).when(holdAndSettleCommand()).then([settled()]));

  it('does nothing when both were already done', () =>
    given([opened(), credited(), held(), settled()]).when(holdAndSettleCommand()).thenNothingHappened());

  it('refuses to settle a hold that was released', () =>
    given([opened(), credited(), held(), released()])
      .when(holdAndSettleCommand())
      .thenThrows((error) => error.code === 'HOLD_ALREADY_CLOSED'));
});
