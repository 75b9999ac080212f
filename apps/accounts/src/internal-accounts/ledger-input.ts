import { invalidInput, type LedgerCauseKind, parseMinorUnits } from '@corridor/contracts';
import { type SystemAccountKind, systemAccountId } from './internal-account';

// Pure parsing of what callers send over NATS into the deciders' terms.

/** The ledger's widest amount, 39 digits. */
const LEDGER_AMOUNT_MAX = 10n ** 39n - 1n;

/**
 * Amounts travel between services as decimal strings of minor units, signed and up to 39 digits: the
 * ledger's rules, not the parser, refuse a non-positive amount with their own codes.
 */
export const parseLedgerAmount = (value: unknown, field = 'amount'): bigint =>
  parseMinorUnits(value, { field, min: -LEDGER_AMOUNT_MAX, max: LEDGER_AMOUNT_MAX });

/**
 * The system account a movement posts against when the caller names none. Adjustments are the
 * platform operator's corrections, not money crossing a rail, so they book against FEES: that
 * keeps the rails equal to what the banks report and shows corrections as the platform's own cost.
 */
const counterKinds: Record<LedgerCauseKind, SystemAccountKind> = {
  FUNDING: 'FUNDING_RAIL',
  TRANSACTION: 'PAYOUT_RAIL',
  CARD_SETTLEMENT: 'PAYOUT_RAIL',
  TRANSFER: 'TRANSFER_CLEARING',
  ADJUSTMENT: 'FEES',
};

export const defaultCounterAccount = (kind: LedgerCauseKind, currency: string): string => {
  const counter = counterKinds[kind];
  if (!counter)
    throw invalidInput(`cause.kind must be one of ${Object.keys(counterKinds).join(', ')}, got ${JSON.stringify(kind)}.`, {
      field: 'cause.kind',
    });
  return systemAccountId(counter, currency);
};

export const requireText = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || value.length === 0 || value.length > 200)
    throw invalidInput(`${field} must be a non-empty string of at most 200 characters.`, { field });
  return value;
};
