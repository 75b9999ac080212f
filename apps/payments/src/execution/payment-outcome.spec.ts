// Pins down which payment events count as a terminal outcome on /metrics, and with which reason.
import { paymentOutcomeOf } from './payment-outcome';

describe('paymentOutcomeOf', () => {
  it('counts a completed payment', () =>
    expect(paymentOutcomeOf({ type: 'PaymentCompleted', data: {} })).toEqual({ kind: 'payment', outcome: 'COMPLETED' }));

  it('counts a failed payment with its failure reason', () =>
    expect(
      paymentOutcomeOf({ type: 'PaymentFailed', data: { transaction: { status: 'FAILED', failureReason: 'INSUFFICIENT_BALANCE' } } }),
    ).toEqual({
      kind: 'payment',
      outcome: 'FAILED',
      reason: 'INSUFFICIENT_BALANCE',
    }));

  it('counts nothing for a step that is not terminal', () => expect(paymentOutcomeOf({ type: 'PaymentFundsHeld', data: {} })).toBeNull());
});
