// Settings of the card-transaction slice, read from the environment by its module.

export type CardTransactionOptions = {
  /** How often delayed pulls that fell due are confirmed (CARD_PULL_SWEEP_SECONDS, 1–3600, default 1). */
  pullSweepSeconds: number;
};

export const CARD_TRANSACTION_OPTIONS = Symbol('CARD_TRANSACTION_OPTIONS');

export const loadCardTransactionOptions = (env: NodeJS.ProcessEnv = process.env): CardTransactionOptions => {
  const value = env['CARD_PULL_SWEEP_SECONDS'];
  if (value === undefined || value === '') return { pullSweepSeconds: 1 };
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 3_600)
    throw new Error(`CARD_PULL_SWEEP_SECONDS must be a whole number of seconds from 1 to 3600, got "${value}".`);
  return { pullSweepSeconds: parsed };
};
