import { defaultRailDelays, type RailDelays } from '../transactions/payout-rail';

/** Settings of quote execution, from the environment (see loadExecutionOptions). */
export type ExecutionOptions = {
  delays: RailDelays;
  /** How often the processor looks for payments whose next step is due (the recovery path; steps normally run at once). */
  sweepMs: number;
};
export const EXECUTION_OPTIONS = 'EXECUTION_OPTIONS';

const milliseconds = (name: string, value: string | undefined, fallback: number, min: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > 86_400_000)
    throw new Error(`${name} must be a whole number of milliseconds from ${min} to 86400000, got "${value}".`);
  return parsed;
};

export const loadExecutionOptions = (env: NodeJS.ProcessEnv = process.env): ExecutionOptions => ({
  delays: {
    instantMs: milliseconds('SANDBOX_RAIL_DELAY_MS', env['SANDBOX_RAIL_DELAY_MS'], defaultRailDelays.instantMs, 0),
    longPaymentMs: milliseconds('SANDBOX_RAIL_LONG_PAYMENT_MS', env['SANDBOX_RAIL_LONG_PAYMENT_MS'], defaultRailDelays.longPaymentMs, 0),
    returnMs: milliseconds('SANDBOX_RAIL_RETURN_MS', env['SANDBOX_RAIL_RETURN_MS'], defaultRailDelays.returnMs, 0),
  },
  sweepMs: milliseconds('PAYMENT_EXECUTION_SWEEP_MS', env['PAYMENT_EXECUTION_SWEEP_MS'], 1_000, 50),
});
