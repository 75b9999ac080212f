import type { PlatformEnvironment } from '@corridor/contracts';
import { type CreateExternalAccount, createExternalAccount } from './create-external-account';
import { decideInSequence, type ExternalAccount, type ExternalAccountCreated, type ExternalAccountEvent } from './external-account';
import { sandboxOnboarding, sandboxVerificationOf } from './sandbox-onboarding';

// What a new external account's create does, decided before anything is written (every refusal is
// thrown here or by the customer check, so a refused create leaves nothing behind): the identity it
// claims, the one append that records it (in the sandbox, with its verification and activation),
// and whether it becomes its customer's default UMA deposit account. The controller runs the steps.

export type ExternalAccountPlan = {
  /** The identity claimed before the append (409 on a duplicate). */
  identityKey: string;
  /** The append: the creation and its onboarding, or, when a twin under the same key got there first, the retry's answer. */
  decide: (state: ExternalAccount) => ExternalAccountEvent[];
  /** The customer whose default UMA deposit account this becomes once recorded; null when it does not. */
  defaultFor: string | null;
};

export const planExternalAccount = (command: CreateExternalAccount, environment: PlatformEnvironment): ExternalAccountPlan => {
  const { externalAccountId, platformId, customerId, defaultUmaDepositAccount } = command.data;
  const [created] = createExternalAccount(command, { kind: 'None' }) as [ExternalAccountCreated];
  // Suffix 105 (an account the bank refuses) throws its 400 here, before anything is written.
  const onboarding =
    environment === 'SANDBOX'
      ? sandboxOnboarding(externalAccountId, platformId, sandboxVerificationOf(created.data.accountInfo), command.metadata.now)
      : [];
  return {
    identityKey: created.data.identityKey,
    // A twin under the same key that got there first leaves nothing to onboard: this request is
    // answered with its account, or refused.
    decide: (state) =>
      state.kind === 'None'
        ? decideInSequence(state, [(current) => createExternalAccount(command, current), ...onboarding])
        : createExternalAccount(command, state),
    defaultFor: customerId !== null && defaultUmaDepositAccount ? customerId : null,
  };
};
