// GET /quotes/{id}?asOf=: the quote's transaction stream folded by the quotes view up to that time.
import { recordedEvents } from '@corridor/testing';
import { transactionDecider } from '../transactions/transaction';
import { createQuote } from './create-quote';
import { expireQuote } from './expire-quote';
import { createQuoteCommand, platformId, quoteId, transactionId } from './quote.fixtures';
import { quoteAsOf } from './quote-as-of';

const created = createQuote(createQuoteCommand(), transactionDecider.initialState());
const expired = expireQuote(
  { type: 'ExpireQuote', data: { transactionId }, metadata: { now: new Date('2026-03-01T10:05:00.000Z') } },
  created.reduce(transactionDecider.evolve, transactionDecider.initialState()),
);
const stream = recordedEvents(
  transactionId,
  platformId,
  [...created, ...expired],
  ['2026-03-01T10:00:00.000Z', '2026-03-01T10:05:00.000Z'],
);
const at = (iso: string, quote = quoteId, platform = platformId) => quoteAsOf(stream, new Date(iso), quote, platform);

describe('quoteAsOf', () => {
  it('given a quote that later expired, answers PENDING until the expiry and EXPIRED from it, the bound included', () => {
    expect(at('2026-03-01T10:00:00.000Z')).toMatchObject({ id: quoteId, status: 'PENDING', transactionId });
    expect(at('2026-03-01T10:04:59.999Z')?.status).toBe('PENDING');
    expect(at('2026-03-01T10:05:00.000Z')?.status).toBe('EXPIRED');
  });

  it('answers the same wire shape as today once every event is folded in', () => {
    const now = at('2030-01-01T00:00:00.000Z');
    expect(Object.keys(now ?? {}).sort()).toEqual(Object.keys(at('2026-03-01T10:00:00.000Z') ?? {}).sort());
    expect(now?.totalSendingAmount).toBe(100_000);
  });

  it('answers nothing before the quote was created, for another quote id, or for another platform', () => {
    expect(at('2026-03-01T09:59:59.999Z')).toBeNull();
    expect(at('2026-03-01T10:01:00.000Z', 'Quote:0190f000-0000-7000-8000-0000000000ff')).toBeNull();
    expect(at('2026-03-01T10:01:00.000Z', quoteId, 'Platform:0190f000-0000-7000-8000-0000000000ee')).toBeNull();
  });
});
