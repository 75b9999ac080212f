import type { RailDelays } from '../transactions/payout-rail';

/** Settings of quote execution, read from the environment in ../config.ts. */
export type ExecutionOptions = {
  delays: RailDelays;
  /** How often the processor looks for payments whose next step is due (the recovery path; steps normally run at once). */
  sweepMs: number;
};
export const EXECUTION_OPTIONS = 'EXECUTION_OPTIONS';
