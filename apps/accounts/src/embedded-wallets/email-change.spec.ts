// The rules of a wallet customer's email change: when it needs the wallet's signature, and the
// reference's 409s and 424 on either leg.
import { checkEmailSynced, decideEmailChange, decideEmailSync, type EmailChangeRequest } from './email-change';

const request = (overrides: Partial<EmailChangeRequest> = {}): EmailChangeRequest => ({
  newEmail: 'new@example.com',
  currentEmail: 'old@example.com',
  tiedCredentialIds: ['AuthMethod:1'],
  emailTakenElsewhere: false,
  retry: false,
  ...overrides,
});
const codeOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return `${(error as { status: number }).status} ${(error as { code: string }).code}`;
  }
  return 'none';
};

describe('decideEmailChange (leg 1)', () => {
  it('given a new email and a tied EMAIL_OTP credential, then the wallet signs', () =>
    expect(decideEmailChange(request())).toEqual({ needsSignature: true }));
  it('given no tied EMAIL_OTP credential, then the change proceeds at once', () =>
    expect(decideEmailChange(request({ tiedCredentialIds: [] }))).toEqual({ needsSignature: false }));
  it('given the email the customer has, then nothing to sign', () =>
    expect(decideEmailChange(request({ newEmail: 'old@example.com' }))).toEqual({ needsSignature: false }));
  it('given an address another wallet’s EMAIL_OTP has, then 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS', () =>
    expect(codeOf(() => decideEmailChange(request({ emailTakenElsewhere: true })))).toBe('409 EMAIL_OTP_EMAIL_ALREADY_EXISTS'));
  it('given a second leg, then the signed retry judges it, whatever the credentials are now', () =>
    expect(decideEmailChange(request({ retry: true, tiedCredentialIds: [], emailTakenElsewhere: true }))).toEqual({
      needsSignature: true,
    }));
});

describe('decideEmailSync (leg 2)', () => {
  const sync = {
    boundCredentialIds: ['AuthMethod:2', 'AuthMethod:1'],
    currentCredentialIds: ['AuthMethod:1', 'AuthMethod:2'],
    newEmail: 'new@example.com',
    emailTakenElsewhere: false,
  };
  it('given the set leg 1 bound, in any order, then the credentials are renamed', () =>
    expect(codeOf(() => decideEmailSync(sync))).toBe('none'));
  it('given a credential revoked since leg 1, then 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED', () =>
    expect(codeOf(() => decideEmailSync({ ...sync, currentCredentialIds: ['AuthMethod:1'] }))).toBe(
      '409 EMAIL_OTP_CREDENTIAL_SET_CHANGED',
    ));
  it('given the EMAIL_OTP revoked and added again since leg 1, then 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED', () =>
    expect(codeOf(() => decideEmailSync({ ...sync, boundCredentialIds: ['AuthMethod:1'], currentCredentialIds: ['AuthMethod:3'] }))).toBe(
      '409 EMAIL_OTP_CREDENTIAL_SET_CHANGED',
    ));
  it('given none left, then 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED', () =>
    expect(codeOf(() => decideEmailSync({ ...sync, currentCredentialIds: [] }))).toBe('409 EMAIL_OTP_CREDENTIAL_SET_CHANGED'));
  it('given the address taken by another wallet since leg 1, then 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS', () =>
    expect(codeOf(() => decideEmailSync({ ...sync, emailTakenElsewhere: true }))).toBe('409 EMAIL_OTP_EMAIL_ALREADY_EXISTS'));
});

describe('checkEmailSynced', () => {
  it('given every tied credential renamed, then the customer’s email may change', () =>
    expect(codeOf(() => checkEmailSynced(2, 2))).toBe('none'));
  it('given one of them not renamed, then 424 EMAIL_OTP_CREDENTIAL_SYNC_FAILED', () =>
    expect(codeOf(() => checkEmailSynced(2, 1))).toBe('424 EMAIL_OTP_CREDENTIAL_SYNC_FAILED'));
});
