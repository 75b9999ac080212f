import { type CreateQuote, createQuote } from '../quotes/create-quote';
import type { RailDelays } from '../transactions/payout-rail';
import { railOutcomeOfQuote } from '../transactions/payout-rail';
import { type Transaction, type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { type ExecuteQuote, executeQuote } from './execute-quote';

// POST /quotes with immediatelyExecute: the quote and the start of its payment are one append, so
// neither exists without the other. Both decisions stay their own deciders' (createQuote,
// executeQuote); this only runs the second on the state the first leaves. Pure, like them.

/** The decision of a quote's create: createQuote, then executeQuote when the request asks for it and the quote was made. */
export const createQuoteAndExecute =
  (command: CreateQuote, delays: RailDelays) =>
  (current: Transaction): TransactionEvent[] => {
    const created = createQuote(command, current);
    if (command.data.request.immediatelyExecute !== true) return created;
    const quoted = created.reduce(transactionDecider.evolve, current);
    if (quoted.kind !== 'Quoted') return created;
    const execute: ExecuteQuote = {
      type: 'ExecuteQuote',
      data: { transactionId: command.data.transactionId, funding: 'ACCOUNT', rail: railOutcomeOfQuote(quoted.quote) },
      metadata: { now: command.metadata.now, delays },
    };
    return [...created, ...executeQuote(execute, quoted)];
  };
