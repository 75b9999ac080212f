import { type AgentPermission, type AgentRoute, DomainError, invalidInput, type QuoteWire } from '@corridor/contracts';
import type { SpendDecision, SpendRequest } from '../policy/evaluate-policy';
import type { ActionRequest, SubmitAction } from './action';

// What an agent submits, judged before anything is reserved or recorded, and the SubmitAction
// command once the spending policy has admitted it (usage-ledger.ts reserves under the policy).
// The controller gathers the facts (the agent, its customer, the quote, the accounts, the rates)
// and runs the steps; the choices are made here.

/** What an agent asks for, with the facts the policy is evaluated on. */
export type Submission = {
  route: AgentRoute;
  permission: AgentPermission;
  /** The customer's internal account the money leaves or enters. */
  accountId: string;
  amount: bigint;
  currency: string;
  request: ActionRequest;
  quote?: QuoteWire;
};

/** The quote an agent asks to execute, as gathered: `own` is whether this agent created it; the quote is read only when it did. */
export type QuoteExecutionFacts = { quoteId: string; own: boolean; quote?: QuoteWire };

/**
 * An agent executes only a quote it created (another's, or an unknown id, is the same 404), only
 * while it is PENDING (409), and only one paid from an internal account (400): a quote funded in
 * real time moves no money the policy could reserve. Checked in that order, as callers have heard
 * them. Gives the quote and the account it is paid from.
 */
export const judgeQuoteExecution = (facts: QuoteExecutionFacts): { quote: QuoteWire; accountId: string } => {
  const { quoteId, own, quote } = facts;
  if (!own || !quote) {
    const shown = String(quoteId).slice(0, 80);
    throw new DomainError('QUOTE_NOT_FOUND', 'not_found', `Quote ${shown} was not found among the quotes this agent created.`, {
      quoteId: shown,
    });
  }
  if (quote.status !== 'PENDING')
    throw new DomainError('CONFLICT', 'conflict', `Quote ${quoteId} is ${quote.status}; only a PENDING quote can be executed.`, {
      quoteId,
      status: quote.status,
    });
  if (quote.source.sourceType !== 'ACCOUNT')
    throw invalidInput(`Quote ${quoteId} is funded in real time; an agent executes only quotes paid from an internal account.`, {
      field: 'quoteId',
    });
  return { quote, accountId: quote.source.accountId };
};

/** The spend the policy judges: the account, the amount in its own currency, and the permission the route needs. */
export const spendOf = (submission: Submission): SpendRequest => ({
  permission: submission.permission,
  accountId: submission.accountId,
  amount: submission.amount,
  currency: submission.currency,
});

/** Who submits, under which action id, and when. */
export type SubmissionFacts = {
  actionId: string;
  agent: { id: string; customerId: string };
  platformId: string;
  platformCustomerId: string;
  requestFingerprint?: string;
  now: Date;
};

/**
 * The command that records an action the policy admitted: a transfer carries its details (the
 * amount in the stream's decimal string, the pair's currency), a quote the quote as read; the
 * charge is what the usage counters grew by, and the policy's execution mode says whether the
 * platform must approve it first.
 */
export const submitActionCommand = (submission: Submission, facts: SubmissionFacts, decision: SpendDecision): SubmitAction => {
  const { request } = submission;
  const details =
    request.kind === 'EXECUTE_QUOTE'
      ? {}
      : {
          transferDetails: {
            amount: request.amount,
            currency: submission.currency,
            sourceAccountId: request.sourceAccountId,
            destinationAccountId: request.destinationAccountId,
          },
        };
  return {
    type: 'SubmitAction',
    data: {
      action: {
        id: facts.actionId,
        agentId: facts.agent.id,
        platformId: facts.platformId,
        customerId: facts.agent.customerId,
        platformCustomerId: facts.platformCustomerId,
        type: request.kind,
        request,
        ...(submission.quote ? { quote: submission.quote } : {}),
        ...details,
        charge: decision.charge.toString(),
        ...(facts.requestFingerprint !== undefined ? { requestFingerprint: facts.requestFingerprint } : {}),
      },
      approvalRequired: decision.executionMode === 'APPROVAL_REQUIRED',
    },
    metadata: { now: facts.now },
  };
};
