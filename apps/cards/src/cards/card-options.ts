export type CardOptions = { eligibleCurrencies: readonly string[]; provisioningSweepSeconds: number };
export const CARD_OPTIONS = 'CARD_OPTIONS';
