import { type Command, DomainError, invalidInput } from '@corridor/contracts';
import { isRepeat } from './account-rules';
import { fingerprints, type InternalAccount, type InternalAccountEvent } from './internal-account';

export type ChangeAccountPrivacy = Command<
  'ChangeAccountPrivacy',
  { accountId: string; operationId: string; privateEnabled: boolean },
  { now: Date }
>;

/** privateEnabled of an Embedded Wallet account; the caller has already checked the wallet's signature. */
export const changeAccountPrivacy = (command: ChangeAccountPrivacy, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, operationId, privateEnabled } = command.data;
  if (state.kind !== 'Open') throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Internal account ${accountId} does not exist.`);
  if (state.accountType !== 'EMBEDDED_WALLET') {
    throw invalidInput(`privateEnabled applies only to EMBEDDED_WALLET accounts; ${accountId} is ${state.accountType}.`, {
      field: 'privateEnabled',
    });
  }
  if (isRepeat(state, operationId, fingerprints.privacy(privateEnabled))) return [];
  if ((state.privateEnabled ?? false) === privateEnabled) return [];
  return [
    { type: 'AccountPrivacyChanged', data: { accountId, operationId, privateEnabled, changedAt: command.metadata.now.toISOString() } },
  ];
};
