// Pins down which member is an external account's primary identifier: the one whose last three
// digits pick the sandbox's outcomes in accounts and payments alike.
import { primaryIdentifier, primaryIdentifierMember } from './external-accounts';

describe('primaryIdentifier', () => {
  it('takes the first member present in the reference order (an account number before an IBAN)', () => {
    const info = { accountType: 'USD_ACCOUNT', iban: 'DE89370400440532013000', accountNumber: '40000001002' };
    expect(primaryIdentifierMember(info)).toBe('accountNumber');
    expect(primaryIdentifier(info)).toBe('40000001002');
  });

  it.each([
    [{ accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118359719' }, 'clabeNumber'],
    [{ accountType: 'BRL_ACCOUNT', pixKey: 'ana@example.com' }, 'pixKey'],
    [{ accountType: 'LIGHTNING', lightningAddress: 'ana@wallet.example' }, 'lightningAddress'],
    [{ accountType: 'PHONE', phoneNumber: '+5511999990005' }, 'phoneNumber'],
  ])('finds the identifier of %j', (info, member) => {
    expect(primaryIdentifierMember(info)).toBe(member);
  });

  it('is empty for an account without an identifier, and ignores members that are not strings', () => {
    expect(primaryIdentifier({ accountType: 'USD_ACCOUNT' })).toBe('');
    expect(primaryIdentifierMember({ accountNumber: 40000001002, iban: 'DE89370400440532013000' })).toBe('iban');
  });
});
