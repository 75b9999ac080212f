// Pins down POST /quotes with immediatelyExecute: the quote and the start of its payment in one
// decision (so one append), and a plain create, or one whose quote is refused, executes nothing.
import { DomainError } from '@corridor/contracts';
import { accountQuoteRequest, createQuoteCommand } from '../quotes/quote.fixtures';
import { transactionDecider } from '../transactions/transaction';
import { delays, stateOf } from './execution.fixtures';
import { createQuoteAndExecute } from './immediate-execution';

const decide = (immediatelyExecute: boolean | undefined, lockedCurrencyAmount = '100000') =>
  createQuoteAndExecute(
    createQuoteCommand({ request: accountQuoteRequest({ immediatelyExecute, lockedCurrencyAmount }) }),
    delays,
  )(transactionDecider.initialState());

describe('createQuoteAndExecute', () => {
  it('creates the quote and starts its payment in one decision when immediatelyExecute is true', () => {
    const events = decide(true);
    expect(events.map((event) => event.type)).toEqual(['QuoteCreated', 'PaymentExecutionStarted']);
    expect(stateOf(events)).toMatchObject({ transaction: { status: 'PROCESSING' }, execution: { step: 'HOLD', funding: 'ACCOUNT' } });
  });

  it.each([[false], [undefined]])('only creates the quote when immediatelyExecute is %s', (immediatelyExecute) => {
    expect(decide(immediatelyExecute).map((event) => event.type)).toEqual(['QuoteCreated']);
  });

  it('executes nothing when the quote itself is refused', () => {
    expect(() => decide(true, '99')).toThrow(DomainError);
  });
});
