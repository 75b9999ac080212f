import { type Command, DomainError, type IncomingFailureReason, type IncomingTransactionRecord } from '@corridor/contracts';
import type { Decider, IncomingPayment, IncomingPaymentEvent } from './incoming-payment';

// How an incoming payment is approved, rejected, timed out and settled. All pure; the times come
// in the commands.
//
// The INCOMING_PAYMENT.PENDING webhook is the approval hook, with the reference's semantics:
//   200 (any 2xx but 202)  approves; PROCESSING, then the deposit, then COMPLETED
//   403                    rejects; REJECTED (the body's `reason` is kept on the event)
//   422                    asks for more data about the sender (`requiredFields`): the sandbox
//                          sender supplies what it knows, it joins counterpartyInformation and
//                          the platform then approves or rejects within the window; a field the
//                          sender does not have fails the payment MISSING_MANDATORY_PAYEE_DATA
//   202                    defers: POST /transactions/{id}/approve|reject within the window, or
//                          FAILED PAYMENT_APPROVAL_TIMED_OUT
//   anything else, no answer, or no answer reported in time: FAILED PAYMENT_APPROVAL_WEBHOOK_ERROR
//
// A platform with no webhookEndpoint has no approval hook: nobody could answer it, so its payments
// are approved at once (approvedBy AUTO) rather than failed a minute later. Receiving decides it
// when the platform has none (receive-incoming-payment.ts); the webhooks service reports it when
// the endpoint was cleared between the payment and its hook (noEndpoint below).

export const notPendingApproval = (transactionId: string, status: string) =>
  new DomainError(
    'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    'conflict',
    `Transaction ${transactionId} is ${status} and not waiting for the platform's approval: approve and reject apply only to an ` +
      `incoming payment whose approval webhook was answered 202 (or 422), within the approval window.`,
    { transactionId, status },
  );

const notFound = (transactionId: string) =>
  new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`, { transactionId });

const change = (
  transaction: IncomingTransactionRecord,
  now: Date,
  changes: Partial<IncomingTransactionRecord>,
): IncomingTransactionRecord => ({
  ...transaction,
  ...changes,
  updatedAt: now.toISOString(),
});

const failed = (
  transaction: IncomingTransactionRecord,
  now: Date,
  failureReason: IncomingFailureReason,
  detail: string,
): IncomingPaymentEvent => ({
  type: 'IncomingPaymentFailed',
  data: { transaction: change(transaction, now, { status: 'FAILED', failureReason }), detail },
});

export const approved = (
  transaction: IncomingTransactionRecord,
  now: Date,
  approvedBy: Decider,
  settleRetrySeconds: number,
  receiverCustomerInfo?: Record<string, unknown>,
): IncomingPaymentEvent => ({
  type: 'IncomingPaymentApproved',
  data: {
    transaction: change(transaction, now, { status: 'PROCESSING' }),
    approvedBy,
    ...(receiverCustomerInfo !== undefined ? { receiverCustomerInfo } : {}),
    settleDueAt: new Date(now.getTime() + settleRetrySeconds * 1000).toISOString(),
  },
});

const parseBody = (body: string | undefined): Record<string, unknown> => {
  if (!body) return {};
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    // The hook's answer is its status code; a body that is not JSON simply adds no payer data.
    return {};
  }
};

export type ApprovalTimings = { now: Date; approvalWindowSeconds: number; settleRetrySeconds: number };

export type AnswerIncomingApproval = Command<
  'AnswerIncomingApproval',
  { transactionId: string; platformId: string; statusCode?: number; responseBody?: string; error?: string; noEndpoint?: boolean },
  ApprovalTimings
>;

/** The approval hook's answer. Only the first answer counts: a late or repeated one changes nothing. */
export const answerIncomingApproval = (command: AnswerIncomingApproval, state: IncomingPayment): IncomingPaymentEvent[] => {
  const { transactionId, platformId, statusCode, responseBody, error, noEndpoint } = command.data;
  const { now, approvalWindowSeconds, settleRetrySeconds } = command.metadata;
  if (state.kind !== 'Received' || state.transaction.platformId !== platformId) throw notFound(transactionId);
  if (state.phase !== 'AWAITING_WEBHOOK') return [];
  const { transaction, sender } = state;
  if (noEndpoint === true) return [approved(transaction, now, 'AUTO', settleRetrySeconds)];
  const body = parseBody(responseBody);
  const approvalDueAt = new Date(now.getTime() + approvalWindowSeconds * 1000).toISOString();
  if (statusCode === 202)
    return [{ type: 'IncomingPaymentDeferred', data: { transaction: change(transaction, now, {}), answer: 202, approvalDueAt } }];
  if (statusCode !== undefined && statusCode >= 200 && statusCode < 300) {
    const info = body['receiverCustomerInfo'];
    return [
      approved(
        transaction,
        now,
        'WEBHOOK',
        settleRetrySeconds,
        typeof info === 'object' && info !== null ? (info as Record<string, unknown>) : undefined,
      ),
    ];
  }
  if (statusCode === 403) {
    const reason = typeof body['reason'] === 'string' ? body['reason'].slice(0, 200) : undefined;
    return [
      {
        type: 'IncomingPaymentRejected',
        data: {
          transaction: change(transaction, now, { status: 'REJECTED' }),
          rejectedBy: 'WEBHOOK',
          ...(reason !== undefined ? { reason } : {}),
        },
      },
    ];
  }
  if (statusCode === 422) {
    const asked = Array.isArray(body['requiredFields'])
      ? body['requiredFields'].filter((field): field is string => typeof field === 'string').slice(0, 50)
      : [];
    const missing = asked.filter((field) => sender.profile[field] === undefined);
    if (asked.length === 0 || missing.length > 0) {
      const what = asked.length === 0 ? 'named no requiredFields' : `asked for ${missing.join(', ')}, which the sender does not provide`;
      return [failed(transaction, now, 'MISSING_MANDATORY_PAYEE_DATA', `The approval webhook answered 422 and ${what}.`)];
    }
    const supplied = Object.fromEntries(asked.map((field) => [field, sender.profile[field] as string]));
    return [
      {
        type: 'IncomingPaymentDeferred',
        data: {
          transaction: change(transaction, now, { counterpartyInformation: { ...transaction.counterpartyInformation, ...supplied } }),
          answer: 422,
          requiredFields: asked,
          approvalDueAt,
        },
      },
    ];
  }
  const what = statusCode !== undefined ? `answered ${statusCode}` : `was not answered (${error ?? 'no response'})`;
  return [failed(transaction, now, 'PAYMENT_APPROVAL_WEBHOOK_ERROR', `The approval webhook ${what}.`)];
};

export type DecideIncomingPayment = Command<
  'DecideIncomingPayment',
  {
    transactionId: string;
    platformId: string;
    decision: 'APPROVE' | 'REJECT';
    receiverCustomerInfo?: Record<string, unknown>;
    reason?: string;
  },
  ApprovalTimings
>;

/** POST /transactions/{id}/approve|reject: only while the platform's answer is awaited and the window is open. */
export const decideIncomingPayment = (command: DecideIncomingPayment, state: IncomingPayment): IncomingPaymentEvent[] => {
  const { transactionId, platformId, decision, receiverCustomerInfo, reason } = command.data;
  const { now, settleRetrySeconds } = command.metadata;
  if (state.kind !== 'Received' || state.transaction.platformId !== platformId) throw notFound(transactionId);
  const { transaction } = state;
  if (state.phase !== 'AWAITING_PLATFORM' || state.dueAt === null || now.getTime() >= Date.parse(state.dueAt)) {
    throw notPendingApproval(transactionId, state.phase === 'AWAITING_PLATFORM' ? 'past its approval window' : transaction.status);
  }
  if (decision === 'APPROVE') return [approved(transaction, now, 'PLATFORM', settleRetrySeconds, receiverCustomerInfo)];
  return [
    {
      type: 'IncomingPaymentRejected',
      data: {
        transaction: change(transaction, now, { status: 'REJECTED' }),
        rejectedBy: 'PLATFORM',
        ...(reason !== undefined ? { reason } : {}),
      },
    },
  ];
};

export type ExpireIncomingApproval = Command<'ExpireIncomingApproval', { transactionId: string }, { now: Date }>;

/** The sweep's timer: an unanswered hook is a webhook error; an unused window a time-out. Early or repeated sweeps change nothing. */
export const expireIncomingApproval = (command: ExpireIncomingApproval, state: IncomingPayment): IncomingPaymentEvent[] => {
  const { now } = command.metadata;
  if (state.kind !== 'Received' || state.dueAt === null || now.getTime() < Date.parse(state.dueAt)) return [];
  if (state.phase === 'AWAITING_WEBHOOK') {
    return [
      failed(
        state.transaction,
        now,
        'PAYMENT_APPROVAL_WEBHOOK_ERROR',
        'No answer of the approval webhook was reported before its deadline.',
      ),
    ];
  }
  if (state.phase === 'AWAITING_PLATFORM') {
    return [
      failed(
        state.transaction,
        now,
        'PAYMENT_APPROVAL_TIMED_OUT',
        'The platform neither approved nor rejected the payment within the approval window.',
      ),
    ];
  }
  return [];
};

export type SettleIncomingPayment = Command<
  'SettleIncomingPayment',
  { transactionId: string; outcome: 'DEPOSITED' | 'REFUSED'; detail?: string },
  { now: Date }
>;

/** After the deposit: COMPLETED when it was made, FAILED OFFRAMP_FAILED when the destination refused it. */
export const settleIncomingPayment = (command: SettleIncomingPayment, state: IncomingPayment): IncomingPaymentEvent[] => {
  const { now } = command.metadata;
  if (state.kind !== 'Received' || state.phase !== 'SETTLING') return [];
  if (command.data.outcome === 'REFUSED') {
    // Nothing was credited; the sender's funds go back to it.
    const transaction = change(state.transaction, now, { status: 'REFUNDED', failureReason: 'OFFRAMP_FAILED' });
    return [
      { type: 'IncomingPaymentRefunded', data: { transaction, detail: command.data.detail ?? 'The deposit account refused the payment.' } },
    ];
  }
  const at = now.toISOString();
  return [
    { type: 'IncomingPaymentCompleted', data: { transaction: change(state.transaction, now, { status: 'COMPLETED', settledAt: at }) } },
  ];
};
