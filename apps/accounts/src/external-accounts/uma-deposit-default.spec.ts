// Pins down the default UMA deposit rule: at most one default per customer, a new default
// replaces the old one, and deleting the default leaves none.
import { deciderSpec } from '@corridor/testing';
import { at, customerId, externalAccountId, now, otherExternalAccountId } from './external-account.fixtures';
import {
  type AssignUmaDepositDefault,
  assignUmaDepositDefault,
  type ClearUmaDepositDefault,
  clearUmaDepositDefault,
  type UmaDepositDefaultEvent,
  umaDepositDefaultDecider,
} from './uma-deposit-default';

const assign = (id = externalAccountId): AssignUmaDepositDefault => ({
  type: 'AssignUmaDepositDefault',
  data: { customerId, externalAccountId: id },
  metadata: { now },
});
const clear = (id = externalAccountId): ClearUmaDepositDefault => ({
  type: 'ClearUmaDepositDefault',
  data: { customerId, externalAccountId: id },
  metadata: { now },
});
const assigned = (id = externalAccountId): UmaDepositDefaultEvent => ({
  type: 'UmaDepositDefaultAssigned',
  data: { customerId, externalAccountId: id, assignedAt: at },
});
const cleared = (id: string, replacedBy: string | null): UmaDepositDefaultEvent => ({
  type: 'UmaDepositDefaultCleared',
  data: { customerId, externalAccountId: id, replacedBy, clearedAt: at },
});

describe('AssignUmaDepositDefault', () => {
  const { given } = deciderSpec({ decide: assignUmaDepositDefault, ...umaDepositDefaultDecider });

  it('makes the first default', () => given([]).when(assign()).then([assigned()]));

  it('replaces the old default, clearing its flag in the same append', () =>
    given([assigned(otherExternalAccountId)])
      .when(assign())
      .then([cleared(otherExternalAccountId, externalAccountId), assigned()]));

  it('does nothing when the account already is the default', () => given([assigned()]).when(assign()).thenNothingHappened());
});

describe('ClearUmaDepositDefault', () => {
  const { given } = deciderSpec({ decide: clearUmaDepositDefault, ...umaDepositDefaultDecider });

  it('leaves the customer without a default when the default is deleted', () =>
    given([assigned()])
      .when(clear())
      .then([cleared(externalAccountId, null)]));

  it('does nothing when another account is the default', () =>
    given([assigned(otherExternalAccountId)])
      .when(clear())
      .thenNothingHappened());

  it('does nothing after the account was already replaced', () =>
    given([assigned(), cleared(externalAccountId, otherExternalAccountId), assigned(otherExternalAccountId)])
      .when(clear())
      .thenNothingHappened());
});
