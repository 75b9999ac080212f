// Given what an agent submits and what was gathered for it (its quote, the policy's decision), when
// it asks to execute a quote or transfer, then the refusal it hears before anything is reserved, or
// the action recorded: held for approval or due at once, with its details and charge.
import { DomainError, type QuoteWire } from '@corridor/contracts';
import { deciderSpecFor } from '@corridor/testing';
import { type ActionView, actionDecider, submitAction } from './action';
import { judgeQuoteExecution, type Submission, type SubmissionFacts, spendOf, submitActionCommand } from './submission';

const quoteId = 'Quote:0195b000-0000-7000-8000-000000000001';
const quote = (overrides: Partial<QuoteWire> = {}): QuoteWire =>
  ({
    id: quoteId,
    status: 'PENDING',
    source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:s' },
    totalSendingAmount: 1_000,
    sendingCurrency: { code: 'USD' },
    ...overrides,
  }) as QuoteWire;
const refusal = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('judgeQuoteExecution', () => {
  it('gives the quote and the internal account it is paid from', () => {
    expect(judgeQuoteExecution({ quoteId, own: true, quote: quote() })).toEqual({ quote: quote(), accountId: 'InternalAccount:s' });
  });

  it("refuses another agent's (or an unknown) quote with the 404 that names only the id", () => {
    const error = refusal(() => judgeQuoteExecution({ quoteId, own: false }));
    expect([error.code, error.status, error.details]).toEqual(['QUOTE_NOT_FOUND', 404, { quoteId }]);
  });

  it('refuses a quote that is no longer PENDING with a 409 naming its status', () => {
    const error = refusal(() => judgeQuoteExecution({ quoteId, own: true, quote: quote({ status: 'COMPLETED' }) }));
    expect([error.code, error.status, error.details]).toEqual(['CONFLICT', 409, { quoteId, status: 'COMPLETED' }]);
  });

  it('refuses a quote funded in real time with a 400 on quoteId', () => {
    const realtime = quote({ source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' } });
    const error = refusal(() => judgeQuoteExecution({ quoteId, own: true, quote: realtime }));
    expect([error.code, error.status, error.details]).toEqual(['INVALID_INPUT', 400, { field: 'quoteId' }]);
  });

  it('judges ownership first, then the status, then the source', () => {
    const both = quote({ status: 'EXPIRED', source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' } });
    expect(refusal(() => judgeQuoteExecution({ quoteId, own: false, quote: both })).code).toBe('QUOTE_NOT_FOUND');
    expect(refusal(() => judgeQuoteExecution({ quoteId, own: true, quote: both })).code).toBe('CONFLICT');
  });
});

const now = new Date('2026-03-01T10:00:00.000Z');
const facts: SubmissionFacts = {
  actionId: 'AgentAction:019542f5-b3e7-1d02-0000-000000000009',
  agent: { id: 'Agent:a', customerId: 'Customer:c' },
  platformId: 'Platform:p',
  platformCustomerId: 'cust-1',
  requestFingerprint: 'f1',
  now,
};
const transferOut: Submission = {
  route: 'transferOut',
  permission: 'CREATE_TRANSFERS',
  accountId: 'InternalAccount:s',
  amount: 2_500n,
  currency: 'EUR',
  request: { kind: 'TRANSFER_OUT', sourceAccountId: 'InternalAccount:s', destinationAccountId: 'ExternalAccount:d', amount: '2500' },
};
const executeQuote: Submission = {
  route: 'executeQuote',
  permission: 'EXECUTE_QUOTES',
  accountId: 'InternalAccount:s',
  amount: 1_000n,
  currency: 'USD',
  request: { kind: 'EXECUTE_QUOTE', quoteId },
  quote: quote(),
};
const recorded = (action: Partial<ActionView>): ActionView => ({
  id: facts.actionId,
  agentId: 'Agent:a',
  platformId: 'Platform:p',
  customerId: 'Customer:c',
  platformCustomerId: 'cust-1',
  type: 'TRANSFER_OUT',
  status: 'APPROVED',
  request: transferOut.request,
  charge: '2700',
  requestFingerprint: 'f1',
  executionDue: true,
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
  ...action,
});
const spec = deciderSpecFor(actionDecider)(submitAction);

describe('submitActionCommand', () => {
  it('records a transfer the policy runs at once as APPROVED and due, with its details and the charge in the policy currency', () =>
    spec
      .given()
      .when(submitActionCommand(transferOut, facts, { executionMode: 'AUTO', charge: 2_700n }))
      .then([
        {
          type: 'AgentActionSubmitted',
          data: {
            action: recorded({
              transferDetails: {
                amount: '2500',
                currency: 'EUR',
                sourceAccountId: 'InternalAccount:s',
                destinationAccountId: 'ExternalAccount:d',
              },
            }),
          },
        },
      ]));

  it('holds a quote the policy sends for approval, carrying the quote and no transfer details', () =>
    spec
      .given()
      .when(submitActionCommand(executeQuote, facts, { executionMode: 'APPROVAL_REQUIRED', charge: 1_000n }))
      .then([
        {
          type: 'AgentActionSubmitted',
          data: {
            action: recorded({
              type: 'EXECUTE_QUOTE',
              request: executeQuote.request,
              quote: quote(),
              charge: '1000',
              status: 'PENDING_APPROVAL',
              executionDue: false,
            }),
          },
        },
      ]));

  it('records nothing for the same submission again under its id', () => {
    const first = submitActionCommand(transferOut, facts, { executionMode: 'AUTO', charge: 2_700n });
    spec
      .given([{ type: 'AgentActionSubmitted', data: { action: recorded({}) } }])
      .when(first)
      .thenNothingHappened();
  });

  it("refuses another agent's submission under the same id with a 409", () =>
    spec
      .given([{ type: 'AgentActionSubmitted', data: { action: recorded({}) } }])
      .when(
        submitActionCommand(
          transferOut,
          { ...facts, agent: { id: 'Agent:b', customerId: 'Customer:c' } },
          { executionMode: 'AUTO', charge: 1n },
        ),
      )
      .thenThrows((error) => error.status === 409));

  it('judges the spend in the request currency, on the account the money leaves', () =>
    expect(spendOf(transferOut)).toEqual({
      permission: 'CREATE_TRANSFERS',
      accountId: 'InternalAccount:s',
      amount: 2_500n,
      currency: 'EUR',
    }));
});
