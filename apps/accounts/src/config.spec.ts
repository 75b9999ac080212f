// Pins down the ledger's operation window as config.ts reads it (decision 0018): a default, a value, and a refusal that names the variable.
import { loadConfig } from './config';

describe('LEDGER_OPERATION_WINDOW', () => {
  it('remembers 10,000 operation ids unless set', () => expect(loadConfig({}).operationWindow).toBe(10_000));

  it('takes a whole number of operations', () => expect(loadConfig({ LEDGER_OPERATION_WINDOW: '5' }).operationWindow).toBe(5));

  it.each(['0', '2.5', 'many'])('refuses %s', (value) =>
    expect(() => loadConfig({ LEDGER_OPERATION_WINDOW: value })).toThrow(
      `LEDGER_OPERATION_WINDOW must be a whole number of operations (at least 1), got "${value}".`,
    ),
  );
});
