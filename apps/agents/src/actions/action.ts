import {
  type AgentActionStatus,
  type AgentActionType,
  type AgentActionWire,
  type AgentTransferDetails,
  type Command,
  DomainError,
  type Event,
  idempotencyConflict,
  type QuoteWire,
  requireSameRequest,
  type TransactionWire,
  toWireMinorUnits,
} from '@corridor/contracts';

// The AgentAction aggregate: one stream per action (`AgentAction:<uuid>`), every event carrying the
// action as it is after it. An action is submitted PENDING_APPROVAL (the platform decides) or
// APPROVED; an APPROVED action without its transaction is "execution due": the executor sends it
// to payments, keyed by the action id so a second attempt never moves money twice, and records
// the transaction (Executed) or the refusal (Failed). Because "due" is persisted, an approval whose
// process died before the call to payments is resumed by the sweep (action-executor.ts).
//
//   submit ──► PENDING_APPROVAL ──approve──► APPROVED (due) ──► APPROVED + transaction
//          │                    └─reject───► REJECTED              └────► FAILED
//          └─► APPROVED (due) ─────────────────────────────────────────────┘

/**
 * What to ask payments for when the action executes (not on the wire). walletSignature: the
 * customer's stamp for a quote from an Embedded Wallet, verified when the action was submitted. It
 * is kept in the stream and the read model: a stamp is a signature over this one quote's payload,
 * so it can execute nothing but the quote this action executes. transactionId: the transfer out of
 * an Embedded Wallet its owner signed for when the action was submitted (decision 0020); the
 * ledger holds the wallet's money only for a transfer of that id.
 */
export type ActionRequest =
  | { kind: 'EXECUTE_QUOTE'; quoteId: string; walletSignature?: string }
  | {
      kind: 'TRANSFER_OUT' | 'TRANSFER_IN';
      sourceAccountId: string;
      destinationAccountId: string;
      /** Minor units as a decimal string, as every stream stores money. */
      amount: string;
      paymentRail?: string;
      transactionId?: string;
    };

/** AgentTransferDetails as the stream keeps it: the amount a decimal string of minor units. */
export type StoredTransferDetails = Omit<AgentTransferDetails, 'amount'> & { amount: string };

export type ActionView = {
  id: string;
  agentId: string;
  platformId: string;
  customerId: string;
  platformCustomerId: string;
  type: AgentActionType;
  status: AgentActionStatus;
  request: ActionRequest;
  quote?: QuoteWire;
  transferDetails?: StoredTransferDetails;
  transaction?: TransactionWire;
  rejectionReason?: string;
  failureReason?: string;
  /** Minor units of the policy currency reserved against the agent's usage (released on REJECTED and FAILED). */
  charge: string;
  /** The gateway's fingerprint of the request that submitted it, which a retry under its key must match (not on the wire). */
  requestFingerprint?: string;
  executionDue: boolean;
  createdAt: string;
  updatedAt: string;
};

export type AgentActionSubmitted = Event<'AgentActionSubmitted', { action: ActionView }>;
export type AgentActionApproved = Event<'AgentActionApproved', { action: ActionView }>;
export type AgentActionRejected = Event<'AgentActionRejected', { action: ActionView }>;
export type AgentActionExecuted = Event<'AgentActionExecuted', { action: ActionView }>;
export type AgentActionFailed = Event<'AgentActionFailed', { action: ActionView }>;
export type ActionEvent = AgentActionSubmitted | AgentActionApproved | AgentActionRejected | AgentActionExecuted | AgentActionFailed;
export const actionEventTypes: readonly ActionEvent['type'][] = [
  'AgentActionSubmitted',
  'AgentActionApproved',
  'AgentActionRejected',
  'AgentActionExecuted',
  'AgentActionFailed',
];

export type Action = { kind: 'None' } | { kind: 'Exists'; action: ActionView };

const decimalOf = (amount: string | number): string => (typeof amount === 'number' ? BigInt(amount).toString() : amount);

/**
 * Events written before money was stored as decimal strings carry the transfer's amount as a JSON
 * number (always a safe integer: the controller refused anything else). Every read of an action's
 * stream (this decider, the read model, the integration events) lifts such an action to strings.
 */
export const upcastAction = (action: ActionView): ActionView => {
  const { request, transferDetails } = action;
  if (request.kind === 'EXECUTE_QUOTE' && transferDetails === undefined) return action;
  return {
    ...action,
    ...(request.kind !== 'EXECUTE_QUOTE' ? { request: { ...request, amount: decimalOf(request.amount as string | number) } } : {}),
    ...(transferDetails !== undefined
      ? { transferDetails: { ...transferDetails, amount: decimalOf(transferDetails.amount as string | number) } }
      : {}),
  };
};

export const actionDecider = {
  initialState: (): Action => ({ kind: 'None' }),
  evolve: (_state: Action, event: ActionEvent): Action => {
    switch (event.type) {
      case 'AgentActionSubmitted':
      case 'AgentActionApproved':
      case 'AgentActionRejected':
      case 'AgentActionExecuted':
      case 'AgentActionFailed':
        return { kind: 'Exists', action: upcastAction(event.data.action) };
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  },
};

export const actionNotFound = (actionId: string): DomainError =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Agent action ${String(actionId).slice(0, 80)} was not found.`, {
    actionId: String(actionId).slice(0, 80),
  });

type At = { now: Date };

export type SubmitAction = Command<
  'SubmitAction',
  { action: Omit<ActionView, 'status' | 'executionDue' | 'createdAt' | 'updatedAt'>; approvalRequired: boolean },
  At
>;

/**
 * An action id is derived from the agent's Idempotency-Key, so an existing action under it is either
 * this submission again (a retry after a lost answer: answered with the action as it stands) or
 * another request under a used key: a 409, whatever state the action is in.
 */
export const requireSameSubmission = (
  existing: ActionView,
  submitted: { agentId: string; requestFingerprint?: string | undefined },
): void => {
  if (existing.agentId !== submitted.agentId) throw idempotencyConflict(existing.id);
  requireSameRequest(existing.requestFingerprint, submitted.requestFingerprint, existing.id);
};

export const submitAction = (command: SubmitAction, state: Action): ActionEvent[] => {
  if (state.kind === 'Exists') {
    requireSameSubmission(state.action, command.data.action);
    return [];
  }
  const at = command.metadata.now.toISOString();
  const { approvalRequired } = command.data;
  const action: ActionView = {
    ...command.data.action,
    status: approvalRequired ? 'PENDING_APPROVAL' : 'APPROVED',
    executionDue: !approvalRequired,
    createdAt: at,
    updatedAt: at,
  };
  return [{ type: 'AgentActionSubmitted', data: { action } }];
};

/** The action of this agent of this platform; anything else is a 404, never a 403 that leaks it. */
const existing = (state: Action, ids: { actionId: string; agentId: string; platformId: string }): ActionView => {
  if (state.kind !== 'Exists' || state.action.platformId !== ids.platformId || state.action.agentId !== ids.agentId)
    throw actionNotFound(ids.actionId);
  return state.action;
};

const requirePending = (action: ActionView, verb: string): void => {
  if (action.status !== 'PENDING_APPROVAL') {
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `Agent action ${action.id} is ${action.status}; only a PENDING_APPROVAL action can be ${verb}.`,
      { status: action.status },
    );
  }
};

export type ApproveAction = Command<'ApproveAction', { actionId: string; agentId: string; platformId: string }, At>;
export const approveAction = (command: ApproveAction, state: Action): ActionEvent[] => {
  const action = existing(state, command.data);
  requirePending(action, 'approved');
  return [
    {
      type: 'AgentActionApproved',
      data: { action: { ...action, status: 'APPROVED', executionDue: true, updatedAt: command.metadata.now.toISOString() } },
    },
  ];
};

export type RejectAction = Command<'RejectAction', { actionId: string; agentId: string; platformId: string; reason?: string }, At>;
export const rejectAction = (command: RejectAction, state: Action): ActionEvent[] => {
  const action = existing(state, command.data);
  requirePending(action, 'rejected');
  const { reason } = command.data;
  return [
    {
      type: 'AgentActionRejected',
      data: {
        action: {
          ...action,
          status: 'REJECTED',
          ...(reason !== undefined ? { rejectionReason: reason } : {}),
          updatedAt: command.metadata.now.toISOString(),
        },
      },
    },
  ];
};

/** payments answered: the action carries its transaction (and the quote as it is now). Only once. */
export type RecordExecution = Command<'RecordExecution', { actionId: string; transaction: TransactionWire; quote?: QuoteWire }, At>;
export const recordExecution = (command: RecordExecution, state: Action): ActionEvent[] => {
  if (state.kind !== 'Exists' || !state.action.executionDue) return [];
  const { transaction, quote } = command.data;
  return [
    {
      type: 'AgentActionExecuted',
      data: {
        action: {
          ...state.action,
          transaction,
          ...(quote ? { quote } : {}),
          executionDue: false,
          updatedAt: command.metadata.now.toISOString(),
        },
      },
    },
  ];
};

/** payments refused (quote expired, funds short, account closed…): FAILED, and the caller releases the usage. Only once. */
export type RecordFailure = Command<'RecordFailure', { actionId: string; reason: string }, At>;
export const recordFailure = (command: RecordFailure, state: Action): ActionEvent[] => {
  if (state.kind !== 'Exists' || !state.action.executionDue) return [];
  return [
    {
      type: 'AgentActionFailed',
      data: {
        action: {
          ...state.action,
          status: 'FAILED',
          failureReason: command.data.reason,
          executionDue: false,
          updatedAt: command.metadata.now.toISOString(),
        },
      },
    },
  ];
};

/** The failure reason of an Embedded Wallet quote whose stamp payments refused when the action executed. */
export const WALLET_SESSION_EXPIRED = 'WALLET_SESSION_EXPIRED';

/**
 * Why an action failed, from the code payments refused it with. A wallet stamp was verified when
 * the action was submitted, so payments refusing it at execution means the session that made it is
 * no longer active: it expired (an approval that came after the session's lifetime) or was revoked,
 * which accounts does not tell apart. The reason names that instead of a signature fault.
 */
export const failureReasonOf = (request: ActionRequest, code: string): string =>
  request.kind === 'EXECUTE_QUOTE' && request.walletSignature !== undefined && code.startsWith('WALLET_SIGNATURE_')
    ? WALLET_SESSION_EXPIRED
    : code;

export const renderAction = (action: ActionView): AgentActionWire => ({
  id: action.id,
  agentId: action.agentId,
  customerId: action.customerId,
  platformCustomerId: action.platformCustomerId,
  status: action.status,
  type: action.type,
  ...(action.quote ? { quote: action.quote } : {}),
  ...(action.transferDetails
    ? { transferDetails: { ...action.transferDetails, amount: toWireMinorUnits(BigInt(action.transferDetails.amount)) } }
    : {}),
  ...(action.transaction && action.status !== 'PENDING_APPROVAL' && action.status !== 'REJECTED'
    ? { transaction: action.transaction }
    : {}),
  ...(action.rejectionReason !== undefined && action.status === 'REJECTED' ? { rejectionReason: action.rejectionReason } : {}),
  createdAt: action.createdAt,
  updatedAt: action.updatedAt,
});
