import { invalidInput, type LedgerCauseKind } from '@corridor/contracts';
import { type SystemAccountKind, systemAccountId } from './internal-account';

// Pure parsing of what callers send over NATS into the deciders' terms.

const MINOR_UNITS = /^-?[0-9]{1,39}$/;

/** Amounts travel as decimal strings of minor units; anything else (a float, "1e3", a number) is refused. */
export const parseMinorUnits = (value: unknown, field = 'amount'): bigint => {
  if (typeof value !== 'string' || !MINOR_UNITS.test(value)) {
    throw invalidInput(`${field} must be a decimal string of whole minor units, got ${JSON.stringify(value)}.`, { field });
  }
  return BigInt(value);
};

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
