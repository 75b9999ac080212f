import { DomainError } from '@corridor/contracts';
import { defaultCounterAccount, parseLedgerAmount } from './ledger-input';

describe('ledger input', () => {
  it('parses decimal strings of minor units exactly, beyond the safe integer range', () => {
    expect(parseLedgerAmount('123456789012345678901234567890')).toBe(123456789012345678901234567890n);
    expect(parseLedgerAmount('-5')).toBe(-5n);
  });

  it.each([['1.5'], ['1e3'], [''], [' 1'], [12], [null], ['0x10'], ['1'.repeat(40)]])('refuses %p with a 400 naming amount', (value) => {
    let caught: unknown;
    try {
      parseLedgerAmount(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect([(caught as DomainError).status, (caught as DomainError).details?.['field']]).toEqual([400, 'amount']);
  });

  it('posts each cause against its system account by default', () => {
    expect(
      ['FUNDING', 'TRANSACTION', 'CARD_SETTLEMENT', 'TRANSFER', 'ADJUSTMENT'].map((kind) => defaultCounterAccount(kind as never, 'EUR')),
    ).toEqual([
      'SystemAccount:FUNDING_RAIL:EUR',
      'SystemAccount:PAYOUT_RAIL:EUR',
      'SystemAccount:PAYOUT_RAIL:EUR',
      'SystemAccount:TRANSFER_CLEARING:EUR',
      'SystemAccount:FEES:EUR',
    ]);
    expect(() => defaultCounterAccount('GIFT' as never, 'EUR')).toThrow(DomainError);
  });
});
