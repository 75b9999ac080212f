import type { OutgoingFailureReason } from '@corridor/contracts';

// The sandbox payout rail. What it does with a payment is decided once, when the payment is
// executed, from the destination (the reference's suffix table, grid-conventions (f)), and recorded
// in the payment's stream: a restart replays the same outcome instead of asking again. When it
// happens comes from the delays below and the service's clock. It sits beside the Transaction
// aggregate because the outcome is part of what the stream records (ExecutionState.rail); the
// transfer rail, a different one, is ../transfers/sandbox-rail.ts.

export type RailOutcome =
  /** Anything else: completes. */
  | 'SUCCESS'
  /** 002: quote execution failed. */
  | 'EXECUTION_FAILED'
  /** 003: long payment, completes after about six minutes. */
  | 'LONG_PAYMENT'
  /** 004: counterparty delivery failed. */
  | 'DELIVERY_FAILED'
  /** 005: the receiving bank returned the payment (completes, then fails). */
  | 'RETURNED'
  /** 006: user cancellation (refunded, then completed). */
  | 'CANCELLED'
  /** 007: payout and refund failed. */
  | 'PAYOUT_AND_REFUND_FAILED'
  /** $fail.compliance…@sandbox.uma.money */
  | 'COMPLIANCE_FAILED';

export const railOutcomes: readonly RailOutcome[] = [
  'SUCCESS',
  'EXECUTION_FAILED',
  'LONG_PAYMENT',
  'DELIVERY_FAILED',
  'RETURNED',
  'CANCELLED',
  'PAYOUT_AND_REFUND_FAILED',
  'COMPLIANCE_FAILED',
];

const bySuffix: Readonly<Record<string, RailOutcome>> = {
  '002': 'EXECUTION_FAILED',
  '003': 'LONG_PAYMENT',
  '004': 'DELIVERY_FAILED',
  '005': 'RETURNED',
  '006': 'CANCELLED',
  '007': 'PAYOUT_AND_REFUND_FAILED',
};

/**
 * The outcome for an external account, from the last three characters of
 * its primary identifier (the user part of an address with a domain).
 */
export const railOutcomeOfIdentifier = (identifier: string): RailOutcome => {
  const localPart = identifier.split('@')[0] ?? identifier;
  return bySuffix[localPart.slice(-3)] ?? 'SUCCESS';
};

/** The reference's sandbox UMA receivers: `$pending.long…` is a long payment, `$fail.compliance…` fails. */
export const railOutcomeOfUmaAddress = (umaAddress: string): RailOutcome => {
  const name = umaAddress.replace(/^\$/, '').split('@')[0] ?? '';
  if (name.startsWith('pending.long')) return 'LONG_PAYMENT';
  if (name.startsWith('fail.compliance')) return 'COMPLIANCE_FAILED';
  return 'SUCCESS';
};

/** How long the rail takes, in milliseconds of the service's clock. */
export type RailDelays = {
  /** A payment that completes or fails at once (the sandbox's "instant settlement"). */
  instantMs: number;
  /** 003: the long payment. */
  longPaymentMs: number;
  /** 005: from completion to the bank's return. */
  returnMs: number;
};

export const defaultRailDelays: RailDelays = { instantMs: 0, longPaymentMs: 360_000, returnMs: 60_000 };

export const railDelayOf = (outcome: RailOutcome, delays: RailDelays): number =>
  outcome === 'LONG_PAYMENT' ? delays.longPaymentMs : delays.instantMs;

/** The failure reason the rail reports for an outcome that fails; null for one that does not. */
export const railFailureOf = (outcome: RailOutcome): OutgoingFailureReason | null => {
  switch (outcome) {
    case 'EXECUTION_FAILED':
    case 'PAYOUT_AND_REFUND_FAILED':
    case 'COMPLIANCE_FAILED':
      return 'QUOTE_EXECUTION_FAILED';
    case 'DELIVERY_FAILED':
      return 'COUNTERPARTY_POST_TX_FAILED';
    default:
      return null;
  }
};

/** The outcome for a quote's destination: an internal account always succeeds. */
export const railOutcomeOfQuote = (quote: {
  destination: { destinationType: string; accountId?: string; umaAddress?: string };
  payoutIdentifier?: string;
}): RailOutcome => {
  const { destination } = quote;
  if (destination.destinationType === 'UMA_ADDRESS') return railOutcomeOfUmaAddress(destination.umaAddress ?? '');
  return quote.payoutIdentifier === undefined ? 'SUCCESS' : railOutcomeOfIdentifier(quote.payoutIdentifier);
};
