import { createQuote } from '../quotes/create-quote';
import { accountQuoteRequest, createQuoteCommand, customerId, now, transactionId } from '../quotes/quote.fixtures';
import { type Transaction, type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { type AdvanceExecution, advanceExecution, type StepResult } from './advance-execution';
import { type ExecuteQuote, executeQuote } from './execute-quote';
import type { ExecutionStep } from '../transactions/execution-events';
import type { RailDelays, RailOutcome } from '../transactions/payout-rail';

// A quote (USD from an internal account to a EUR external account, created at 10:00, expiring at
// 10:05) and helpers that run its execution step by step, so a test states only the step it is about.

export const delays: RailDelays = { instantMs: 0, longPaymentMs: 360_000, returnMs: 60_000 };
export const at = (offsetMs: number): Date => new Date(now.getTime() + offsetMs);

export const quoted: TransactionEvent[] = createQuote(createQuoteCommand(), transactionDecider.initialState());
export const realtimeQuoted: TransactionEvent[] = createQuote(
  createQuoteCommand({
    request: accountQuoteRequest({ source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId } }),
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId, platformCustomerId: 'crm-42' },
  }),
  transactionDecider.initialState(),
);

export const execute = (
  rail: RailOutcome = 'SUCCESS',
  when: Date = at(1_000),
  extra: Partial<ExecuteQuote['data']> = {},
): ExecuteQuote => ({
  type: 'ExecuteQuote',
  data: { transactionId, funding: 'ACCOUNT', rail, ...extra },
  metadata: { now: when, delays },
});

export const advance = (step: ExecutionStep, result: StepResult, when: Date): AdvanceExecution => ({
  type: 'AdvanceExecution',
  data: { transactionId, step, result },
  metadata: { now: when, delays },
});

export const held: StepResult = { kind: 'HELD', holdId: transactionId, amount: '100000', currency: 'USD' };

export const stateOf = (events: TransactionEvent[]): Transaction =>
  events.reduce(transactionDecider.evolve, transactionDecider.initialState());

/** Applies commands in order, each on the state the previous ones left; returns every event. */
export const run = (given: TransactionEvent[], ...commands: (ExecuteQuote | AdvanceExecution)[]): TransactionEvent[] =>
  commands.reduce((events, command) => {
    const state = stateOf(events);
    return [...events, ...(command.type === 'ExecuteQuote' ? executeQuote(command, state) : advanceExecution(command, state))];
  }, given);
