import type { Command, ExternalAccountOwnerKind } from '@corridor/contracts';
import { type ExternalAccount, type ExternalAccountEvent, externalAccountNotFound, visibleAccount } from './external-account';

export type DeleteExternalAccount = Command<
  'DeleteExternalAccount',
  {
    externalAccountId: string;
    platformId: string;
    /** The route family asking: a customer's account is not deletable through the platform's routes, nor the reverse. */
    owner: ExternalAccountOwnerKind;
  },
  { now: Date }
>;

/** Soft: the stream stays for history, but the account is 404 and unlisted from now on, a repeated DELETE included. */
export const deleteExternalAccount = (command: DeleteExternalAccount, state: ExternalAccount): ExternalAccountEvent[] => {
  const { externalAccountId, platformId, owner } = command.data;
  const account = visibleAccount(state, externalAccountId, platformId);
  if ((account.customerId === null) !== (owner === 'PLATFORM')) throw externalAccountNotFound(externalAccountId);
  return [{ type: 'ExternalAccountDeleted', data: { externalAccountId, deletedAt: command.metadata.now.toISOString() } }];
};
