// Pins down that every payments setting is read in loadConfig, incoming payments' and execution's
// included (app.module hands them in), with the README's defaults and a refusal of a bad value.
import { loadConfig } from './config';

describe('loadConfig', () => {
  it('reads the incoming payment and execution settings from the environment it is given', () => {
    const config = loadConfig({ INCOMING_SWEEP_MS: '200', INCOMING_WEBHOOK_ANSWER_SECONDS: '8', SANDBOX_RAIL_DELAY_MS: '5' });
    expect(config.incoming).toEqual({ approvalWindowSeconds: 5, webhookAnswerSeconds: 8, settleRetrySeconds: 10, sweepMs: 200 });
    expect(config.execution).toEqual({ delays: { instantMs: 5, longPaymentMs: 360_000, returnMs: 60_000 }, sweepMs: 1_000 });
  });

  it.each([
    ['INCOMING_APPROVAL_WINDOW_SECONDS', '0'],
    ['PAYMENT_EXECUTION_SWEEP_MS', '10'],
  ])('refuses %s=%s at startup', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
