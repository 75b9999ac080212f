// Given an action's history, when the platform approves or rejects it or payments answers, then
// these events — or a 409 for anything but a pending action.
import { deciderSpecFor } from '@corridor/testing';
import type { TransactionWire } from '@corridor/contracts';
import {
  type ActionEvent,
  type ActionView,
  type ApproveAction,
  type RejectAction,
  type SubmitAction,
  actionDecider,
  approveAction,
  failureReasonOf,
  recordExecution,
  recordFailure,
  rejectAction,
  renderAction,
  upcastAction,
  submitAction,
  WALLET_SESSION_EXPIRED,
} from './action';

const now = new Date('2026-03-01T10:00:00.000Z');
const later = new Date('2026-03-01T10:05:00.000Z');
const ids = { actionId: 'AgentAction:019542f5-b3e7-1d02-0000-000000000009', agentId: 'Agent:a', platformId: 'Platform:p' };
const base = {
  id: ids.actionId,
  agentId: ids.agentId,
  platformId: ids.platformId,
  customerId: 'Customer:c',
  platformCustomerId: 'cust-1',
  type: 'TRANSFER_OUT' as const,
  request: {
    kind: 'TRANSFER_OUT' as const,
    sourceAccountId: 'InternalAccount:s',
    destinationAccountId: 'ExternalAccount:d',
    amount: '100',
  },
  transferDetails: { amount: '100', currency: 'USD', sourceAccountId: 'InternalAccount:s', destinationAccountId: 'ExternalAccount:d' },
  charge: '100',
};
const pending: ActionView = {
  ...base,
  status: 'PENDING_APPROVAL',
  executionDue: false,
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
};
const submittedPending: ActionEvent = { type: 'AgentActionSubmitted', data: { action: pending } };
const transaction = { id: 'Transaction:t', status: 'PROCESSING' } as unknown as TransactionWire;
const spec = deciderSpecFor(actionDecider);

describe('submitAction', () => {
  it('holds an action that needs approval, with nothing due', () => {
    spec(submitAction)
      .given()
      .when({ type: 'SubmitAction', data: { action: base, approvalRequired: true }, metadata: { now } })
      .then([submittedPending]);
  });
  it('approves at once an action that does not, with its execution due', () => {
    spec(submitAction)
      .given()
      .when({ type: 'SubmitAction', data: { action: base, approvalRequired: false }, metadata: { now } })
      .then([{ type: 'AgentActionSubmitted', data: { action: { ...pending, status: 'APPROVED', executionDue: true } } }]);
  });
});

// The action id is derived from the agent's Idempotency-Key: an existing action under it is this
// submission again or another request under a used key.
describe('submitAction under a used Idempotency-Key', () => {
  const first = 'a1'.repeat(32);
  const submitted = (fingerprint?: string): ActionEvent => ({
    type: 'AgentActionSubmitted',
    data: { action: { ...pending, ...(fingerprint ? { requestFingerprint: fingerprint } : {}) } },
  });
  const submit = (data: Partial<typeof base> & { requestFingerprint?: string }): SubmitAction => ({
    type: 'SubmitAction',
    data: { action: { ...base, ...data }, approvalRequired: true },
    metadata: { now },
  });

  it('answers the same submission again with nothing new, whatever the action became', () => {
    spec(submitAction)
      .given([submitted(first)])
      .when(submit({ requestFingerprint: first }))
      .thenNothingHappened();
    const approved: ActionEvent = {
      type: 'AgentActionApproved',
      data: { action: { ...pending, requestFingerprint: first, status: 'APPROVED', executionDue: true } },
    };
    spec(submitAction)
      .given([submitted(first), approved])
      .when(submit({ requestFingerprint: first }))
      .thenNothingHappened();
  });
  it('keeps the fingerprint with the action it records', () => {
    spec(submitAction)
      .given()
      .when(submit({ requestFingerprint: first }))
      .then([submitted(first)]);
  });
  it('refuses another request under the same key with a 409 naming the action', () => {
    spec(submitAction)
      .given([submitted(first)])
      .when(submit({ requestFingerprint: 'b2'.repeat(32), request: { ...base.request, amount: '999' } }))
      .thenThrows((error) => error.status === 409 && error.details?.['resourceId'] === ids.actionId);
  });
  it("refuses another agent's submission under the action's id", () => {
    spec(submitAction)
      .given([submitted(first)])
      .when(submit({ agentId: 'Agent:other', requestFingerprint: first }))
      .thenThrows((error) => error.status === 409);
  });
  it('refuses a submission without a key whose id names an action', () => {
    spec(submitAction)
      .given([submitted(first)])
      .when(submit({}))
      .thenThrows((error) => error.status === 409);
  });
});

describe('approve and reject', () => {
  const approve: ApproveAction = { type: 'ApproveAction', data: ids, metadata: { now: later } };
  const reject = (reason?: string): RejectAction => ({
    type: 'RejectAction',
    data: { ...ids, ...(reason ? { reason } : {}) },
    metadata: { now: later },
  });
  const approved: ActionEvent = {
    type: 'AgentActionApproved',
    data: { action: { ...pending, status: 'APPROVED', executionDue: true, updatedAt: later.toISOString() } },
  };

  it('approving makes the execution due', () => {
    spec(approveAction).given([submittedPending]).when(approve).then([approved]);
  });
  it('rejecting records the reason and executes nothing', () => {
    spec(rejectAction)
      .given([submittedPending])
      .when(reject('too much'))
      .then([
        {
          type: 'AgentActionRejected',
          data: { action: { ...pending, status: 'REJECTED', rejectionReason: 'too much', updatedAt: later.toISOString() } },
        },
      ]);
  });
  it('409 to approve or reject an approved action', () => {
    spec(approveAction)
      .given([submittedPending, approved])
      .when(approve)
      .thenThrows((error) => error.status === 409);
    spec(rejectAction)
      .given([submittedPending, approved])
      .when(reject())
      .thenThrows((error) => error.status === 409);
  });
  it('409 to approve a rejected or failed action', () => {
    const rejected: ActionEvent = { type: 'AgentActionRejected', data: { action: { ...pending, status: 'REJECTED' } } };
    spec(approveAction)
      .given([submittedPending, rejected])
      .when(approve)
      .thenThrows((error) => error.status === 409);
    const failed: ActionEvent = { type: 'AgentActionFailed', data: { action: { ...pending, status: 'FAILED' } } };
    spec(approveAction)
      .given([submittedPending, failed])
      .when(approve)
      .thenThrows((error) => error.status === 409);
  });
  it("404 for another agent's or platform's action", () => {
    spec(approveAction)
      .given([submittedPending])
      .when({ type: 'ApproveAction', data: { ...ids, agentId: 'Agent:other' }, metadata: { now } })
      .thenThrows((error) => error.status === 404);
    spec(approveAction)
      .given([submittedPending])
      .when({ type: 'ApproveAction', data: { ...ids, platformId: 'Platform:other' }, metadata: { now } })
      .thenThrows((error) => error.status === 404);
  });

  describe('execution is recorded once', () => {
    it('records the transaction of a due action', () => {
      spec(recordExecution)
        .given([submittedPending, approved])
        .when({ type: 'RecordExecution', data: { actionId: ids.actionId, transaction }, metadata: { now: later } })
        .then([
          {
            type: 'AgentActionExecuted',
            data: { action: { ...pending, status: 'APPROVED', executionDue: false, transaction, updatedAt: later.toISOString() } },
          },
        ]);
    });
    it('a second answer (a resumed execution) records nothing', () => {
      const executed: ActionEvent = {
        type: 'AgentActionExecuted',
        data: { action: { ...pending, status: 'APPROVED', executionDue: false, transaction } },
      };
      spec(recordExecution)
        .given([submittedPending, approved, executed])
        .when({ type: 'RecordExecution', data: { actionId: ids.actionId, transaction }, metadata: { now } })
        .thenNothingHappened();
      spec(recordFailure)
        .given([submittedPending, approved, executed])
        .when({ type: 'RecordFailure', data: { actionId: ids.actionId, reason: 'x' }, metadata: { now } })
        .thenNothingHappened();
    });
    it('a refusal fails a due action', () => {
      spec(recordFailure)
        .given([submittedPending, approved])
        .when({ type: 'RecordFailure', data: { actionId: ids.actionId, reason: 'QUOTE_EXPIRED' }, metadata: { now: later } })
        .then([
          {
            type: 'AgentActionFailed',
            data: {
              action: { ...pending, status: 'FAILED', failureReason: 'QUOTE_EXPIRED', executionDue: false, updatedAt: later.toISOString() },
            },
          },
        ]);
    });
    it('nothing is recorded for a pending action', () => {
      spec(recordExecution)
        .given([submittedPending])
        .when({ type: 'RecordExecution', data: { actionId: ids.actionId, transaction }, metadata: { now } })
        .thenNothingHappened();
    });
  });
});

describe('renderAction', () => {
  it('shows the transaction only once approved, and the reason only when rejected', () => {
    expect(renderAction({ ...pending, transaction })).not.toHaveProperty('transaction');
    expect(renderAction({ ...pending, status: 'APPROVED', transaction })).toHaveProperty('transaction', transaction);
    expect(renderAction({ ...pending, status: 'REJECTED', rejectionReason: 'no' })).toHaveProperty('rejectionReason', 'no');
    expect(renderAction(pending)).not.toHaveProperty('charge');
  });
  it('never shows the request, so a wallet stamp carried for execution stays off the wire (and out of the webhook)', () => {
    const walletQuote: ActionView = {
      ...pending,
      type: 'EXECUTE_QUOTE',
      request: { kind: 'EXECUTE_QUOTE', quoteId: 'Quote:q', walletSignature: 'stamp' },
    };
    expect(JSON.stringify(renderAction(walletQuote))).not.toContain('stamp');
  });
});

describe('failureReasonOf', () => {
  const walletQuote = { kind: 'EXECUTE_QUOTE' as const, quoteId: 'Quote:q', walletSignature: 'stamp' };
  it('a wallet stamp verified at submission and refused at execution names the ended session', () => {
    expect(failureReasonOf(walletQuote, 'WALLET_SIGNATURE_INVALID')).toBe(WALLET_SESSION_EXPIRED);
  });
  it("any other refusal keeps payments' code", () => {
    expect(failureReasonOf(walletQuote, 'CONFLICT')).toBe('CONFLICT');
    expect(failureReasonOf({ kind: 'EXECUTE_QUOTE', quoteId: 'Quote:q' }, 'WALLET_SIGNATURE_MISSING')).toBe('WALLET_SIGNATURE_MISSING');
    expect(failureReasonOf(base.request, 'INSUFFICIENT_BALANCE')).toBe('INSUFFICIENT_BALANCE');
  });
});

// Actions stored before money became decimal strings carry JSON numbers; every read lifts them.
describe('upcastAction', () => {
  const stored = {
    ...pending,
    request: { ...base.request, amount: 100 },
    transferDetails: { ...base.transferDetails, amount: 100 },
  } as unknown as ActionView;

  it('given an action stored with number amounts, when the stream is folded, then its amounts are decimal strings', () => {
    const state = actionDecider.evolve(actionDecider.initialState(), { type: 'AgentActionSubmitted', data: { action: stored } });
    expect(state).toEqual({ kind: 'Exists', action: pending });
  });

  it('given an action stored with strings or without a transfer, then it is read unchanged', () => {
    expect(upcastAction(pending)).toEqual(pending);
    const quote = { ...pending, type: 'EXECUTE_QUOTE' as const, request: { kind: 'EXECUTE_QUOTE' as const, quoteId: 'Quote:q' } };
    const { transferDetails: _none, ...withoutDetails } = quote;
    expect(upcastAction(withoutDetails)).toBe(withoutDetails);
  });

  it('given either form, the wire shows the JSON integer the reference declares', () => {
    expect(renderAction(upcastAction(stored)).transferDetails?.amount).toBe(100);
    expect(renderAction(pending).transferDetails?.amount).toBe(100);
  });
});
