// The sandbox's fixed market: a mid price in US dollars per one major unit of every currency the
// platform trades, written as exact decimals (never floats), and per sending currency the amounts
// a payment may send and the rail a payout in that currency uses. A deployment with a real rate
// source implements RateProvider; the limits and rails stay here.

/** US dollars per one major unit. BTC at 65 000 USD; the stablecoins at par. */
export const sandboxUsdPrices: Readonly<Record<string, string>> = {
  USD: '1',
  EUR: '1.08',
  GBP: '1.27',
  MXN: '0.0585',
  BRL: '0.18',
  INR: '0.012',
  NGN: '0.00065',
  PHP: '0.0175',
  CAD: '0.73',
  AED: '0.2723',
  BTC: '65000',
  USDC: '1',
  USDB: '1',
};

/**
 * Sending limits in minor units: about 1 USD to about 10 million USD in each currency. The upper
 * bound also keeps every receiving amount far below 2^53, the largest amount a JSON number holds
 * exactly on the HTTP wire.
 */
export const sandboxSendingLimits: Readonly<Record<string, { min: bigint; max: bigint }>> = {
  USD: { min: 100n, max: 1_000_000_000n },
  EUR: { min: 100n, max: 1_000_000_000n },
  GBP: { min: 100n, max: 1_000_000_000n },
  MXN: { min: 2_000n, max: 20_000_000_000n },
  BRL: { min: 600n, max: 6_000_000_000n },
  INR: { min: 10_000n, max: 100_000_000_000n },
  NGN: { min: 200_000n, max: 2_000_000_000_000n },
  PHP: { min: 6_000n, max: 60_000_000_000n },
  CAD: { min: 150n, max: 1_500_000_000n },
  AED: { min: 400n, max: 4_000_000_000n },
  BTC: { min: 2_000n, max: 15_000_000_000n },
  USDC: { min: 1_000_000n, max: 10_000_000_000_000n },
  USDB: { min: 1_000_000n, max: 10_000_000_000_000n },
};

/**
 * The reference's ExchangeRate requires a destinationPaymentRail from a list of bank rails only;
 * the crypto currencies have none there, so their corridors are quoted but not listed by
 * GET /exchange-rates (see docs/decisions/0006-payments.md).
 */
export const sandboxPayoutRails: Readonly<Record<string, string>> = {
  USD: 'ACH',
  EUR: 'SEPA_INSTANT',
  GBP: 'FASTER_PAYMENTS',
  MXN: 'SPEI',
  BRL: 'PIX',
  INR: 'UPI',
  NGN: 'BANK_TRANSFER',
  PHP: 'INSTAPAY',
  CAD: 'BANK_TRANSFER',
  AED: 'BANK_TRANSFER',
};
