// The sandbox rail's outcome from the identifier's last three digits, and which accounts can be pulled from.
import { canPull, sandboxRailOutcome } from './sandbox-rail';

describe('sandboxRailOutcome', () => {
  it.each([
    [{ accountType: 'USD_ACCOUNT', accountNumber: '123456002' }, 'INSUFFICIENT_FUNDS'],
    [{ accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013003' }, 'ACCOUNT_CLOSED'],
    [{ accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118359004' }, 'REJECTED_BY_BANK'],
    [{ accountType: 'BRL_ACCOUNT', pixKey: 'testuser.005@pix.com.br' }, 'PENDING_THEN_FAILS'],
    [{ accountType: 'USD_ACCOUNT', accountNumber: '123456001' }, 'SUCCEEDS'],
    [{ accountType: 'USD_ACCOUNT', accountNumber: '123456102' }, 'SUCCEEDS'],
  ])('%j → %s', (accountInfo, outcome) => expect(sandboxRailOutcome(accountInfo)).toBe(outcome));
});

describe('canPull', () => {
  it('pulls only over ACH', () => {
    expect(canPull({ paymentRails: ['ACH', 'WIRE', 'RTP'] })).toBe(true);
    expect(canPull({ paymentRails: ['SEPA', 'SEPA_INSTANT'] })).toBe(false);
    expect(canPull({})).toBe(false);
  });
});
