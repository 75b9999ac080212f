// Pins down the sandbox's stand-in for the verification rail and onboarding: each magic suffix of
// the reference (102–107) and where it leaves the account.
import { DomainError } from '@corridor/contracts';
import type { AccountInfo } from './account-info';
import { decideInSequence, externalAccountDecider } from './external-account';
import { created, externalAccountId, now, platformId, statusChanged, usdInfo, verified, walletInfo } from './external-account.fixtures';
import { sandboxOnboarding, sandboxVerificationOf, statusAfterVerification } from './sandbox-onboarding';

const withSuffix = (suffix: string): AccountInfo => ({ ...usdInfo, accountNumber: `000123456${suffix}` }) as AccountInfo;

describe('sandboxVerificationOf', () => {
  it.each([
    ['102', 'NOT_MATCHED', null],
    ['103', 'PARTIAL_MATCH', { fullName: 'A. Lovelace' }],
    ['104', 'PENDING', null],
    ['106', 'UNSUPPORTED', null],
    ['107', 'CHECKED_BY_RECEIVING_FI', null],
    ['789', 'MATCHED', { fullName: 'Ada Lovelace' }],
  ])('answers suffix %s with %s', (suffix, status, verifiedData) =>
    expect(sandboxVerificationOf(withSuffix(suffix))).toEqual({ status, verifiedData }),
  );

  it('refuses suffix 105 as an invalid bank account', () => {
    expect(() => sandboxVerificationOf(withSuffix('105'))).toThrow(DomainError);
    try {
      sandboxVerificationOf(withSuffix('105'));
    } catch (error) {
      expect((error as DomainError).toBody()).toMatchObject({
        status: 400,
        code: 'INVALID_BANK_ACCOUNT',
        details: { field: 'accountInfo' },
      });
    }
  });

  it('verifies a business by its legal name', () =>
    expect(
      sandboxVerificationOf({ ...usdInfo, beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme GmbH' } } as AccountInfo),
    ).toEqual({
      status: 'MATCHED',
      verifiedData: { fullName: 'Acme GmbH' },
    }));

  it('has nothing to verify on a wallet', () => expect(sandboxVerificationOf(walletInfo)).toBeNull());
});

describe('statusAfterVerification', () => {
  it('activates matched and unverifiable accounts, and wallets', () => {
    for (const status of ['MATCHED', 'PARTIAL_MATCH', 'UNSUPPORTED', 'CHECKED_BY_RECEIVING_FI'] as const) {
      expect(statusAfterVerification({ status, verifiedData: null })?.to).toBe('ACTIVE');
    }
    expect(statusAfterVerification(null)?.to).toBe('ACTIVE');
  });

  it('holds a name mismatch for review and leaves a pending verification pending', () => {
    expect(statusAfterVerification({ status: 'NOT_MATCHED', verifiedData: null })).toEqual({
      to: 'UNDER_REVIEW',
      reason: 'BENEFICIARY_NOT_MATCHED',
    });
    expect(statusAfterVerification({ status: 'PENDING', verifiedData: null })).toBeNull();
  });
});

describe('sandboxOnboarding in sequence after the creation', () => {
  const onboard = (info: AccountInfo) => {
    const start = [created({ accountInfo: info })].reduce(externalAccountDecider.evolve, externalAccountDecider.initialState());
    return decideInSequence(start, sandboxOnboarding(externalAccountId, platformId, sandboxVerificationOf(info), now));
  };

  it('records the verification, then activates', () => expect(onboard(usdInfo)).toEqual([verified(), statusChanged('PENDING', 'ACTIVE')]));

  it('activates a wallet without a verification', () => expect(onboard(walletInfo)).toEqual([statusChanged('PENDING', 'ACTIVE')]));

  it('records a mismatch and holds the account for review', () =>
    expect(onboard(withSuffix('102'))).toEqual([
      verified({ status: 'NOT_MATCHED', verifiedData: null }),
      statusChanged('PENDING', 'UNDER_REVIEW', 'BENEFICIARY_NOT_MATCHED'),
    ]));
});
