// Given a quote, when a sandbox send funds it, then the amount it funds or the 400 naming the field.
import { DomainError } from '@corridor/contracts';
import { quoted, realtimeQuoted, stateOf } from './execution.fixtures';
import { judgeRealtimeFunding } from './realtime-funding';

const termsOf = (events: typeof quoted) => {
  const state = stateOf(events);
  if (state.kind !== 'Quoted') throw new Error(`fixture is ${state.kind}`);
  return state.quote;
};
const realtime = termsOf(realtimeQuoted);
const fromAccount = termsOf(quoted);

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return { status: error.status, field: (error.details as { field?: string }).field };
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('judgeRealtimeFunding', () => {
  it('funds the quoted total when the send names no amount', () => {
    expect(judgeRealtimeFunding('Quote:1', realtime, { currencyCode: realtime.sendingCurrency })).toBe(realtime.totalSendingAmount);
  });

  it('records another amount as sent (the execution fails it with FUNDING_AMOUNT_MISMATCH)', () => {
    expect(judgeRealtimeFunding('Quote:1', realtime, { currencyCode: realtime.sendingCurrency, currencyAmount: '123' })).toBe('123');
  });

  it('refuses a quote paid from an internal account, naming quoteId', () => {
    expect(refusal(() => judgeRealtimeFunding('Quote:1', fromAccount, { currencyCode: fromAccount.sendingCurrency }))).toEqual({
      status: 400,
      field: 'quoteId',
    });
  });

  it('refuses another currency than the quote is funded in, naming currencyCode', () => {
    expect(refusal(() => judgeRealtimeFunding('Quote:1', realtime, { currencyCode: 'JPY' }))).toEqual({
      status: 400,
      field: 'currencyCode',
    });
  });

  it.each(['0', '-5', '1.5', 12, '100000000000000000'])('refuses the amount %p, naming currencyAmount', (currencyAmount) => {
    expect(refusal(() => judgeRealtimeFunding('Quote:1', realtime, { currencyCode: realtime.sendingCurrency, currencyAmount }))).toEqual({
      status: 400,
      field: 'currencyAmount',
    });
  });
});
