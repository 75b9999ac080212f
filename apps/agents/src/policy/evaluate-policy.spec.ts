// Given a policy and today's usage, when an agent asks to move an amount, then it runs at once,
// waits for approval, or is refused with the limit it hit. Every limit is checked at its
// boundary: exactly the limit passes, one minor unit over is refused.
import type { DomainError } from '@corridor/contracts';
import type { StoredPolicy } from './policy';
import {
  convert,
  currenciesToConvertInto,
  evaluateSpend,
  rateFromQuoteRate,
  type Rates,
  requirePermission,
  type SpendRequest,
  type UsageCounters,
} from './evaluate-policy';

const ACCOUNT = 'InternalAccount:019542f5-b3e7-1d02-0000-000000000001';
const OTHER = 'InternalAccount:019542f5-b3e7-1d02-0000-000000000002';

// The policy as the agent stream stores it: amount limits are decimal strings of minor units.
const policy = (overrides: Partial<StoredPolicy> = {}): StoredPolicy => ({
  permissions: ['CREATE_TRANSFERS', 'EXECUTE_QUOTES'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: '50000', dailyLimit: '100000', dailyTransactionLimit: 3, monthlyLimit: '300000' },
  ...overrides,
});
const fresh: UsageCounters = { dailyCount: 0, dailySpend: 0n, monthlySpend: 0n };
const request = (amount: bigint, overrides: Partial<SpendRequest> = {}): SpendRequest => ({
  permission: 'CREATE_TRANSFERS',
  accountId: ACCOUNT,
  amount,
  currency: 'USD',
  ...overrides,
});
// 1 EUR = 1.25 USD: USD minor units = ceil(EUR minor × 5 / 4).
const eurToUsd: Rates = { USD: { numerator: 5n, denominator: 4n } };

const refusal = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a refusal');
};

describe('evaluateSpend', () => {
  it('runs within every limit at once in AUTO mode and charges the amount', () => {
    expect(evaluateSpend(policy(), request(10_000n), fresh, {})).toEqual({ executionMode: 'AUTO', charge: 10_000n });
  });

  it('refuses an operation the policy does not permit (403 FORBIDDEN, naming the permission)', () => {
    const error = refusal(() => evaluateSpend(policy({ permissions: ['EXECUTE_QUOTES'] }), request(1n), fresh, {}));
    expect(error).toMatchObject({ code: 'FORBIDDEN', status: 403, details: { requiredPermission: 'CREATE_TRANSFERS' } });
  });

  it.each([
    ['exactly the per-transaction limit passes', 50_000n, true],
    ['one minor unit over the per-transaction limit is refused', 50_001n, false],
  ])('%s', (_name, amount, passes) => {
    const run = () => evaluateSpend(policy(), request(amount), fresh, {});
    if (passes) expect(run().charge).toBe(amount);
    else expect(refusal(run)).toMatchObject({ code: 'FORBIDDEN', status: 403, details: { limit: 'perTransactionLimit' } });
  });

  it.each([
    ['a third transaction of 3 passes', 2, true],
    ['a fourth transaction of 3 is refused', 3, false],
  ])('daily count: %s', (_name, dailyCount, passes) => {
    const run = () => evaluateSpend(policy(), request(1n), { ...fresh, dailyCount }, {});
    if (passes) expect(run().executionMode).toBe('AUTO');
    else expect(refusal(run)).toMatchObject({ code: 'VELOCITY_LIMIT_EXCEEDED', status: 403, details: { limit: 'dailyTransactionLimit' } });
  });

  it.each([
    ['spend reaching exactly the daily limit passes', 60_000n, 40_000n, true],
    ['spend one minor unit over the daily limit is refused', 60_000n, 40_001n, false],
  ])('daily amount: %s', (_name, spent, amount, passes) => {
    const run = () => evaluateSpend(policy(), request(amount), { ...fresh, dailySpend: spent, monthlySpend: spent }, {});
    if (passes) expect(run().charge).toBe(amount);
    else expect(refusal(run)).toMatchObject({ code: 'VELOCITY_LIMIT_EXCEEDED', details: { limit: 'dailyLimit' } });
  });

  it.each([
    ['spend reaching exactly the monthly limit passes', 250_000n, 50_000n, true],
    ['spend one minor unit over the monthly limit is refused', 250_001n, 50_000n, false],
  ])('monthly amount: %s', (_name, spentThisMonth, amount, passes) => {
    const run = () => evaluateSpend(policy(), request(amount), { ...fresh, monthlySpend: spentThisMonth }, {});
    if (passes) expect(run().charge).toBe(amount);
    else expect(refusal(run)).toMatchObject({ code: 'VELOCITY_LIMIT_EXCEEDED', details: { limit: 'monthlyLimit' } });
  });

  it('a null daily or monthly limit, or no daily count, limits nothing', () => {
    const unlimited = policy({ spendingLimits: { currency: 'USD', perTransactionLimit: '50000', dailyLimit: null, monthlyLimit: null } });
    expect(
      evaluateSpend(unlimited, request(50_000n), { dailyCount: 1_000, dailySpend: 10n ** 12n, monthlySpend: 10n ** 13n }, {}).charge,
    ).toBe(50_000n);
  });

  describe('currency conversion at the evaluation-time rate, rounded up', () => {
    it('charges the converted amount in the policy currency', () => {
      expect(evaluateSpend(policy(), request(40_000n, { currency: 'EUR' }), fresh, eurToUsd)).toEqual({
        executionMode: 'AUTO',
        charge: 50_000n,
      });
    });
    it('exactly the per-transaction limit after conversion passes; one minor unit over is refused', () => {
      expect(evaluateSpend(policy(), request(40_000n, { currency: 'EUR' }), fresh, eurToUsd).charge).toBe(50_000n);
      // 40001 EUR cents = 50001.25 USD cents, rounded up to 50002: over.
      expect(refusal(() => evaluateSpend(policy(), request(40_001n, { currency: 'EUR' }), fresh, eurToUsd))).toMatchObject({
        details: { limit: 'perTransactionLimit' },
      });
    });
    it('rounds a fraction of a minor unit up, so conversion never lets an agent past a limit', () => {
      expect(convert(1n, 'EUR', 'USD', eurToUsd)).toBe(2n);
      expect(convert(4n, 'EUR', 'USD', eurToUsd)).toBe(5n);
    });
    it('daily limit reached exactly through a converted amount passes; one unit more is refused', () => {
      expect(evaluateSpend(policy(), request(40_000n, { currency: 'EUR' }), { ...fresh, dailySpend: 50_000n }, eurToUsd).charge).toBe(
        50_000n,
      );
      expect(
        refusal(() => evaluateSpend(policy(), request(40_000n, { currency: 'EUR' }), { ...fresh, dailySpend: 50_001n }, eurToUsd)),
      ).toMatchObject({ details: { limit: 'dailyLimit' } });
    });
    it('monthly limit reached exactly through a converted amount passes; one unit more is refused', () => {
      // 8000 EUR cents are 10000 USD cents: with 290000 spent this month that is exactly the 300000 limit.
      const spent = { ...fresh, monthlySpend: 290_000n };
      expect(evaluateSpend(policy(), request(8_000n, { currency: 'EUR' }), spent, eurToUsd).charge).toBe(10_000n);
      expect(
        refusal(() => evaluateSpend(policy(), request(8_000n, { currency: 'EUR' }), { ...fresh, monthlySpend: 290_001n }, eurToUsd)),
      ).toMatchObject({
        code: 'VELOCITY_LIMIT_EXCEEDED',
        details: { limit: 'monthlyLimit', monthlyLimit: 300_000 },
      });
      // One EUR cent more is 10002 USD cents (10001.25 rounded up): over the month's limit too.
      expect(refusal(() => evaluateSpend(policy(), request(8_001n, { currency: 'EUR' }), spent, eurToUsd))).toMatchObject({
        details: { limit: 'monthlyLimit' },
      });
    });
    it("an account rule's per-transaction limit compares the converted amount, at its boundary", () => {
      const ruled = policy({ accountRestrictions: { accountRules: [{ accountId: ACCOUNT, perTransactionLimit: '10000' }] } });
      // 8000 EUR cents are exactly 10000 USD cents; 8001 are 10001.25, rounded up to 10002.
      expect(evaluateSpend(ruled, request(8_000n, { currency: 'EUR' }), fresh, eurToUsd).charge).toBe(10_000n);
      expect(refusal(() => evaluateSpend(ruled, request(8_001n, { currency: 'EUR' }), fresh, eurToUsd))).toMatchObject({
        code: 'FORBIDDEN',
        details: { limit: 'perTransactionLimit', amount: 10_002, perTransactionLimit: 10_000 },
      });
    });
    it('reads a payments exchange rate (sending units per receiving unit) into a minor-unit conversion', () => {
      // 0.8 EUR per USD: 100 EUR cents are 125 USD cents.
      const rate = rateFromQuoteRate('0.8', 'EUR', 'USD');
      expect(convert(100n, 'EUR', 'USD', { USD: rate })).toBe(125n);
      // 0.00001 BTC per USD (8 decimals against 2): 1000 satoshis are 1 USD, 100 cents.
      expect(convert(1_000n, 'BTC', 'USD', { USD: rateFromQuoteRate('0.00001', 'BTC', 'USD') })).toBe(100n);
    });
    it('names the currencies a request must be converted into', () => {
      expect(currenciesToConvertInto(policy(), 'USD')).toEqual([]);
      expect(currenciesToConvertInto(policy({ approvalThresholds: { currency: 'EUR', amount: '10' } }), 'USD')).toEqual(['EUR']);
      expect(currenciesToConvertInto(policy(), 'MXN')).toEqual(['USD']);
    });
  });

  describe('execution mode', () => {
    it('APPROVAL_REQUIRED holds every action for the platform', () => {
      expect(evaluateSpend(policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }), request(1n), fresh, {}).executionMode).toBe(
        'APPROVAL_REQUIRED',
      );
    });
    it.each([
      ['exactly the threshold runs at once', 20_000n, 'AUTO'],
      ['one minor unit above the threshold waits for approval', 20_001n, 'APPROVAL_REQUIRED'],
    ])('threshold: %s', (_name, amount, mode) => {
      expect(
        evaluateSpend(policy({ approvalThresholds: { currency: 'USD', amount: '20000' } }), request(amount), fresh, {}).executionMode,
      ).toBe(mode);
    });
    it('a threshold in another currency compares the converted amount', () => {
      const thresholdInUsd = policy({
        spendingLimits: { currency: 'EUR', perTransactionLimit: '100000' },
        approvalThresholds: { currency: 'USD', amount: '50000' },
      });
      expect(evaluateSpend(thresholdInUsd, request(40_000n, { currency: 'EUR' }), fresh, eurToUsd).executionMode).toBe('AUTO');
      expect(evaluateSpend(thresholdInUsd, request(40_001n, { currency: 'EUR' }), fresh, eurToUsd).executionMode).toBe('APPROVAL_REQUIRED');
    });
    it('a null threshold forces nothing', () => {
      expect(evaluateSpend(policy({ approvalThresholds: { amount: null } }), request(50_000n), fresh, {}).executionMode).toBe('AUTO');
    });
  });

  describe('account restrictions', () => {
    it('allowedAccountIds refuses any other account; null allows all', () => {
      const restricted = policy({ accountRestrictions: { allowedAccountIds: [OTHER] } });
      expect(refusal(() => evaluateSpend(restricted, request(1n), fresh, {}))).toMatchObject({
        code: 'FORBIDDEN',
        details: { accountId: ACCOUNT },
      });
      expect(evaluateSpend(restricted, request(1n, { accountId: OTHER }), fresh, {}).executionMode).toBe('AUTO');
      expect(evaluateSpend(policy({ accountRestrictions: { allowedAccountIds: null } }), request(1n), fresh, {}).executionMode).toBe(
        'AUTO',
      );
    });
    it("an account rule's per-transaction limit overrides the policy's, at its boundary", () => {
      const ruled = policy({ accountRestrictions: { accountRules: [{ accountId: ACCOUNT, perTransactionLimit: '10000' }] } });
      expect(evaluateSpend(ruled, request(10_000n), fresh, {}).charge).toBe(10_000n);
      expect(refusal(() => evaluateSpend(ruled, request(10_001n), fresh, {}))).toMatchObject({
        details: { limit: 'perTransactionLimit', perTransactionLimit: 10_000 },
      });
      // The rule's account only: another account keeps the policy's limit.
      expect(evaluateSpend(ruled, request(50_000n, { accountId: OTHER }), fresh, {}).charge).toBe(50_000n);
    });
    it('a null per-transaction override inherits the policy limit', () => {
      const ruled = policy({ accountRestrictions: { accountRules: [{ accountId: ACCOUNT, perTransactionLimit: null }] } });
      expect(evaluateSpend(ruled, request(50_000n), fresh, {}).charge).toBe(50_000n);
      expect(refusal(() => evaluateSpend(ruled, request(50_001n), fresh, {}))).toMatchObject({ details: { limit: 'perTransactionLimit' } });
    });
    it("an account rule's mode overrides the default either way", () => {
      const strict = policy({ accountRestrictions: { accountRules: [{ accountId: ACCOUNT, executionMode: 'APPROVAL_REQUIRED' }] } });
      expect(evaluateSpend(strict, request(1n), fresh, {}).executionMode).toBe('APPROVAL_REQUIRED');
      expect(evaluateSpend(strict, request(1n, { accountId: OTHER }), fresh, {}).executionMode).toBe('AUTO');
      const relaxed = policy({
        defaultExecutionMode: 'APPROVAL_REQUIRED',
        accountRestrictions: { accountRules: [{ accountId: ACCOUNT, executionMode: 'AUTO' }] },
      });
      expect(evaluateSpend(relaxed, request(1n), fresh, {}).executionMode).toBe('AUTO');
    });
  });

  it('checks in a fixed order: permission before account before amounts', () => {
    const everythingWrong = policy({ permissions: [], accountRestrictions: { allowedAccountIds: [OTHER] } });
    expect(
      refusal(() =>
        evaluateSpend(everythingWrong, request(10n ** 9n), { dailyCount: 99, dailySpend: 10n ** 9n, monthlySpend: 10n ** 9n }, {}),
      ).details,
    ).toEqual({ requiredPermission: 'CREATE_TRANSFERS' });
  });
});

describe('requirePermission', () => {
  it('passes a route that needs nothing, or a granted permission; refuses a missing one', () => {
    expect(() => requirePermission(policy(), null)).not.toThrow();
    expect(() => requirePermission(policy(), ['EXECUTE_QUOTES'])).not.toThrow();
    expect(refusal(() => requirePermission(policy(), ['MANAGE_EXTERNAL_ACCOUNTS']))).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      details: { requiredPermission: 'MANAGE_EXTERNAL_ACCOUNTS' },
    });
  });
  it('passes a route that accepts several when any one of them is granted; refuses naming them all', () => {
    expect(() => requirePermission(policy({ permissions: ['EXECUTE_QUOTES'] }), ['CREATE_QUOTES', 'EXECUTE_QUOTES'])).not.toThrow();
    expect(() => requirePermission(policy({ permissions: ['CREATE_QUOTES'] }), ['CREATE_QUOTES', 'EXECUTE_QUOTES'])).not.toThrow();
    const error = refusal(() => requirePermission(policy({ permissions: ['VIEW_TRANSACTIONS'] }), ['CREATE_QUOTES', 'EXECUTE_QUOTES']));
    expect(error).toMatchObject({ code: 'FORBIDDEN', status: 403, details: { requiredPermission: 'CREATE_QUOTES or EXECUTE_QUOTES' } });
  });
});
