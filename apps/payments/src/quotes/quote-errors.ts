import { DomainError } from '@corridor/contracts';

// The refusals every reader of a quote answers the same way, whichever controller reads it
// (quotes.controller.ts for GET /quotes/{id}, execution.controller.ts for execute and sandbox send).

export const quoteNotFound = (quoteId: string): DomainError =>
  new DomainError('QUOTE_NOT_FOUND', 'not_found', `Quote ${quoteId} was not found.`, { quoteId });
