// Pins down which ledger events count as operations on /metrics.
import { ledgerOutcomeOf } from './ledger-outcome';

describe('ledgerOutcomeOf', () => {
  it.each(['AccountCredited', 'AccountDebited', 'FundsHeld', 'HoldSettled', 'HoldReleased'])('counts %s', (type) =>
    expect(ledgerOutcomeOf({ type })).toEqual({ kind: 'ledger_operation', outcome: type }),
  );

  it('counts nothing for a change that moves no money', () => expect(ledgerOutcomeOf({ type: 'AccountStatusChanged' })).toBeNull());
});
