import { DomainError } from '@corridor/contracts';

// PATCH /customers/{id} with a new email for a customer whose Embedded Wallet has EMAIL_OTP
// credentials (the reference's updateCustomerById and section (k)): the email and every tied
// EMAIL_OTP credential change as one operation, through the wallet's signed retry. Leg 1 binds the
// set of tied credentials; leg 2 renames them under the wallet's lock before the customers service
// changes the email, so the customer's email never changes while a credential keeps the old one.

export type EmailChangeRequest = {
  newEmail: string;
  /** The customer's email as accounts knows it (from CustomerCreated/CustomerUpdated). */
  currentEmail: string | null;
  /** The wallet's active EMAIL_OTP credentials. */
  tiedCredentialIds: readonly string[];
  /** Another account's active EMAIL_OTP credential of the platform already has newEmail. */
  emailTakenElsewhere: boolean;
  /** The request carries the signed retry's headers (leg 2). */
  retry: boolean;
};

const alreadyExists = (email: string): DomainError =>
  new DomainError(
    'EMAIL_OTP_EMAIL_ALREADY_EXISTS',
    'conflict',
    `${email} is already the address of an EMAIL_OTP credential of another Embedded Wallet of this platform.`,
    { field: 'email' },
  );

/**
 * Whether the change needs the wallet's signature. A customer without tied EMAIL_OTP credentials,
 * or asking for the email it has, proceeds at once (the reference signs only email changes with
 * tied credentials); an address another wallet's EMAIL_OTP uses is a 409 before anything is
 * signed. A second leg always goes through the signed retry: it is judged against what leg 1 bound.
 */
export const decideEmailChange = (request: EmailChangeRequest): { needsSignature: boolean } => {
  if (request.retry) return { needsSignature: true };
  if (request.tiedCredentialIds.length === 0 || request.newEmail === request.currentEmail) return { needsSignature: false };
  if (request.emailTakenElsewhere) throw alreadyExists(request.newEmail);
  return { needsSignature: true };
};

/** The tied set as leg 1 binds it: order does not matter. */
export const tiedSet = (credentialIds: readonly string[]): string[] => [...new Set(credentialIds)].sort();

/**
 * Leg 2, under the wallet's lock, before the credentials are renamed: the tied set must be the one
 * leg 1 bound (a credential revoked or added since means the wallet's owner signed for something
 * else), and the address must still be free.
 */
export const decideEmailSync = (sync: {
  boundCredentialIds: readonly string[];
  currentCredentialIds: readonly string[];
  newEmail: string;
  emailTakenElsewhere: boolean;
}): void => {
  const bound = tiedSet(sync.boundCredentialIds);
  const current = tiedSet(sync.currentCredentialIds);
  if (bound.length !== current.length || bound.some((id, index) => id !== current[index])) {
    throw new DomainError(
      'EMAIL_OTP_CREDENTIAL_SET_CHANGED',
      'conflict',
      'The wallet’s EMAIL_OTP credentials changed after this email change was challenged; start again without the signature headers.',
      { boundCredentialIds: bound, currentCredentialIds: current },
    );
  }
  if (sync.emailTakenElsewhere) throw alreadyExists(sync.newEmail);
};

/**
 * Every tied credential must have been renamed, or none is and the customer's email does not change
 * (the reference's 424). Under the wallet's lock the rename reaches every credential it just read,
 * so this guards the one-operation promise rather than an expected outcome.
 */
export const checkEmailSynced = (expected: number, renamed: number): void => {
  if (renamed !== expected) {
    throw new DomainError(
      'EMAIL_OTP_CREDENTIAL_SYNC_FAILED',
      'failed_dependency',
      `Only ${renamed} of the wallet’s ${expected} EMAIL_OTP credentials could take the new email; the customer’s email was not changed.`,
    );
  }
};
