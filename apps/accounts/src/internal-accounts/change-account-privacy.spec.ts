import { changeAccountPrivacy } from './change-account-privacy';
import { evolveInternalAccount, initialInternalAccount, type InternalAccount, type InternalAccountEvent } from './internal-account';

const now = new Date('2026-11-25T12:00:00Z');
const opened = (accountType: 'EMBEDDED_WALLET' | 'INTERNAL_FIAT'): InternalAccountEvent => ({
  type: 'InternalAccountOpened',
  data: {
    accountId: 'InternalAccount:1',
    platformId: 'Platform:1',
    customerId: 'Customer:1',
    accountType,
    currency: 'USDB',
    status: 'ACTIVE',
    operationId: 'open',
    openedAt: now.toISOString(),
  },
});
const given = (...events: InternalAccountEvent[]): InternalAccount => events.reduce(evolveInternalAccount, initialInternalAccount());
const when = (state: InternalAccount, privateEnabled: boolean, operationId = 'op-1') =>
  changeAccountPrivacy(
    { type: 'ChangeAccountPrivacy', data: { accountId: 'InternalAccount:1', operationId, privateEnabled }, metadata: { now } },
    state,
  );

describe('changeAccountPrivacy', () => {
  it('given a wallet, when privateEnabled turns on, then the change is recorded', () => {
    expect(when(given(opened('EMBEDDED_WALLET')), true)).toEqual([
      {
        type: 'AccountPrivacyChanged',
        data: { accountId: 'InternalAccount:1', operationId: 'op-1', privateEnabled: true, changedAt: now.toISOString() },
      },
    ]);
  });

  it('given the same value already set, when it is asked again, then nothing is recorded', () => {
    const state = given(opened('EMBEDDED_WALLET'), ...when(given(opened('EMBEDDED_WALLET')), true));
    expect(when(state, true, 'op-2')).toEqual([]);
  });

  it('given a fiat account, when privateEnabled is set, then it is refused', () => {
    expect(() => when(given(opened('INTERNAL_FIAT')), true)).toThrow(/only to EMBEDDED_WALLET/);
  });

  it('given no account, when privateEnabled is set, then it is not found', () => {
    expect(() => when(given(), true)).toThrow(/does not exist/);
  });
});
