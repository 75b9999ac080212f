import { type CardTransactionWire, toWireAmount } from '@corridor/contracts';
import { type OpenCardTransaction, refundedTotal, settledTotal } from './card-transaction';

// The reference's CardTransaction, rendered from the stream's state. The summaries are sums over
// the stream's events, so they agree with the ledger movements those events record.

const sum = (amounts: readonly bigint[]): bigint => amounts.reduce((total, amount) => total + amount, 0n);

export const renderCardTransaction = (state: OpenCardTransaction): CardTransactionWire => {
  const money = (value: bigint) => toWireAmount({ value, currency: state.currency });
  const pulled = state.pulls.filter((pull) => pull.status !== 'FAILED');
  const settled = settledTotal(state);
  const refunded = refundedTotal(state);
  return {
    id: state.id,
    cardId: state.cardId,
    status: state.status,
    merchant: state.merchant,
    authorizedAmount: money(state.authorizedAmount),
    ...(state.settlements.length > 0 ? { settledAmount: money(settled) } : {}),
    ...(state.refunds.length > 0 ? { refundedAmount: money(refunded) } : {}),
    accountId: state.accountId,
    pullSummary: {
      count: state.pulls.length,
      totalAmount: Number(sum(pulled.map((pull) => pull.amount))),
      pendingCount: state.pulls.filter((pull) => pull.status === 'PENDING').length,
    },
    refundSummary: { count: state.refunds.length, totalAmount: Number(refunded) },
    settlementSummary: { count: state.settlements.length, totalAmount: Number(settled) },
    authorizedAt: state.authorizedAt,
    lastEventAt: state.lastEventAt,
    createdAt: state.authorizedAt,
    updatedAt: state.lastEventAt,
  };
};
