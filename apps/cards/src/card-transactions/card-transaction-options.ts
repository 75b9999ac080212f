// Settings of the card-transaction slice; parsed from the environment in config.ts and handed to its module.

export type CardTransactionOptions = {
  /** How often delayed pulls that fell due are confirmed (CARD_PULL_SWEEP_SECONDS, 1–3600, default 1). */
  pullSweepSeconds: number;
};

export const CARD_TRANSACTION_OPTIONS = Symbol('CARD_TRANSACTION_OPTIONS');
