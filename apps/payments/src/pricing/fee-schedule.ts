import { currencies } from '@corridor/contracts';
import type { Ratio } from './quote-math';

// What a platform pays per outgoing payment. Neither the spec nor the reference's PlatformConfig
// has a place for fees, so they are deployment configuration: a default schedule, and optional
// per-platform schedules that replace it (PAYMENTS_FEE_SCHEDULE, JSON; see the README). A fixed
// fee in minor units of the sending currency, plus a variable fee in basis points of the sending
// amount.

export type FeeSchedule = { fixedFees: Readonly<Record<string, bigint>>; variableFeeBps: number };
export type FeeSchedules = { default: FeeSchedule; platforms: Readonly<Record<string, FeeSchedule>> };
export type FeeTerms = { fixedFee: bigint; variableFeeRate: Ratio };

/** About 0.10 USD in every currency, plus 0.3 %. */
export const defaultFeeSchedule: FeeSchedule = {
  fixedFees: {
    USD: 10n,
    EUR: 10n,
    GBP: 10n,
    MXN: 200n,
    BRL: 50n,
    INR: 800n,
    NGN: 15_000n,
    PHP: 550n,
    CAD: 15n,
    AED: 40n,
    BTC: 150n,
    USDC: 100_000n,
    USDB: 100_000n,
  },
  variableFeeBps: 30,
};

const BPS = 10_000;

export const feeTermsFor = (schedules: FeeSchedules, platformId: string, currency: string): FeeTerms => {
  const schedule = schedules.platforms[platformId] ?? schedules.default;
  return {
    fixedFee: schedule.fixedFees[currency] ?? 0n,
    variableFeeRate: { numerator: BigInt(schedule.variableFeeBps), denominator: BigInt(BPS) },
  };
};

const parseSchedule = (value: unknown, where: string): FeeSchedule => {
  if (typeof value !== 'object' || value === null) throw new Error(`${where} must be an object with fixedFees and variableFeeBps.`);
  const { fixedFees, variableFeeBps } = value as Record<string, unknown>;
  if (!Number.isInteger(variableFeeBps) || (variableFeeBps as number) < 0 || (variableFeeBps as number) >= BPS) {
    throw new Error(`${where}.variableFeeBps must be a whole number of basis points from 0 to ${BPS - 1}.`);
  }
  if (typeof fixedFees !== 'object' || fixedFees === null) throw new Error(`${where}.fixedFees must map currency codes to minor units.`);
  const parsed = Object.fromEntries(
    Object.entries(fixedFees).map(([code, fee]) => {
      if (!currencies[code]) throw new Error(`${where}.fixedFees.${code} is not a supported currency.`);
      if (!Number.isSafeInteger(fee) || (fee as number) < 0)
        throw new Error(`${where}.fixedFees.${code} must be a whole number of minor units, 0 or more.`);
      return [code, BigInt(fee as number)];
    }),
  );
  return { fixedFees: parsed, variableFeeBps: variableFeeBps as number };
};

/** PAYMENTS_FEE_SCHEDULE: {"default": {...}?, "platforms": {"Platform:…": {...}}?}. Refuses a bad value at startup. */
export const parseFeeSchedules = (json: string | undefined): FeeSchedules => {
  if (json === undefined || json.trim() === '') return { default: defaultFeeSchedule, platforms: {} };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('PAYMENTS_FEE_SCHEDULE must be JSON.');
  }
  const { default: fallback, platforms } = (value ?? {}) as Record<string, unknown>;
  return {
    default: fallback === undefined ? defaultFeeSchedule : parseSchedule(fallback, 'PAYMENTS_FEE_SCHEDULE.default'),
    platforms: Object.fromEntries(
      Object.entries((platforms ?? {}) as Record<string, unknown>).map(([platformId, schedule]) => [
        platformId,
        parseSchedule(schedule, `PAYMENTS_FEE_SCHEDULE.platforms.${platformId}`),
      ]),
    ),
  };
};
