import type { QuoteWire } from '@corridor/contracts';
import { foldAsOf, type RecordedEvent } from '@corridor/event-store';
import { evolveQuoteView, type QuoteRow, renderQuote } from './quote-view.projection';

/**
 * GET /quotes/{id}?asOf= (decision 0039): the quote as the read model showed it at `at`, its
 * transaction's stream folded by the quotes view up to then. Null before the quote was created,
 * or when the stream holds another quote or another platform's: all answer like an unknown id.
 */
export const quoteAsOf = (events: readonly RecordedEvent[], at: Date, quoteId: string, platformId: string): QuoteWire | null => {
  const row = foldAsOf<QuoteRow>(events, at, evolveQuoteView);
  return row && row.id === quoteId && row.platformId === platformId ? renderQuote(row) : null;
};
