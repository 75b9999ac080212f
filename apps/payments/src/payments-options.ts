import type { FeeSchedules } from './pricing/fee-schedule';

/** The payments settings controllers need, from PaymentsServiceConfig. */
export type PaymentsOptions = { quoteTtlSeconds: number; expirySweepSeconds: number; feeSchedules: FeeSchedules };
export const PAYMENTS_OPTIONS = 'PAYMENTS_OPTIONS';
