import { invalidInput, MINOR_UNITS_MAX, parseMinorUnits } from '@corridor/contracts';
import type { QuoteTerms } from '../transactions/transaction';

/** What a sandbox send says it funded a quote with. */
export type RealtimeFundingSent = { currencyCode?: unknown; currencyAmount?: unknown };

/**
 * A sandbox send funds a REALTIME_FUNDING quote, in the quote's sending currency. Returns the amount
 * funded in minor units (the quoted total when the send names none; another amount is recorded as
 * sent, and the execution fails it with FUNDING_AMOUNT_MISMATCH), or refuses with a 400 naming the field.
 */
export const judgeRealtimeFunding = (
  quoteId: string,
  terms: Pick<QuoteTerms, 'source' | 'sendingCurrency' | 'totalSendingAmount'>,
  sent: RealtimeFundingSent,
): string => {
  if (terms.source.sourceType !== 'REALTIME_FUNDING') {
    throw invalidInput(
      `Quote ${quoteId} is paid from an internal account, not by real-time funding: execute it with POST /quotes/{quoteId}/execute.`,
      { field: 'quoteId' },
    );
  }
  if (sent.currencyCode !== terms.sendingCurrency) {
    throw invalidInput(
      `currencyCode must be ${terms.sendingCurrency}, the currency quote ${quoteId} is funded in; ` +
        `got ${JSON.stringify(sent.currencyCode)}.`,
      { field: 'currencyCode' },
    );
  }
  if (sent.currencyAmount === undefined) return terms.totalSendingAmount;
  return parseMinorUnits(sent.currencyAmount, { field: 'currencyAmount', min: 1n, max: MINOR_UNITS_MAX }).toString();
};
