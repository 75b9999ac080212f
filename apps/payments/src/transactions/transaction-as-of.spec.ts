import type { AnyTransactionRecord } from '@corridor/contracts';
import type { RecordedEvent } from '@corridor/event-store';
import { foldTransactionAsOf } from './transactions.controller';

// GET /transactions/{id}?asOf=: the stream's events up to that time, folded as the read model folds them.

const record = (status: string): AnyTransactionRecord =>
  ({
    id: 'Transaction:1',
    platformId: 'Platform:a',
    customerId: 'Customer:1',
    platformCustomerId: 'c1',
    type: 'OUTGOING',
    status,
    source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:1' },
    destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:1' },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  }) as unknown as AnyTransactionRecord;

const event = (position: number, occurredAt: string, data: Record<string, unknown>): RecordedEvent => ({
  eventId: `e${position}`,
  streamId: 'Transaction:1',
  streamPosition: position,
  globalPosition: BigInt(position),
  type: 'Any',
  data,
  metadata: {
    platformId: 'Platform:a',
    correlationId: 'c',
    requestId: 'r',
    actor: { kind: 'system', name: 'test' },
    occurredAt,
    schemaVersion: 1,
  },
});

const stream = [
  event(1, '2026-01-01T00:00:01.000Z', { transaction: record('PENDING') }),
  event(2, '2026-01-01T00:00:02.000Z', { transaction: record('PROCESSING') }),
  event(3, '2026-01-01T00:00:02.500Z', { note: 'an event without the record leaves it as it was' }),
  event(4, '2026-01-01T00:00:03.000Z', { transaction: record('COMPLETED') }),
];

describe('foldTransactionAsOf', () => {
  it('given the events of a payment, answers the status it had at each time, the bound included', () => {
    expect(foldTransactionAsOf(stream, new Date('2026-01-01T00:00:01.000Z'))?.status).toBe('PENDING');
    expect(foldTransactionAsOf(stream, new Date('2026-01-01T00:00:02.700Z'))?.status).toBe('PROCESSING');
    expect(foldTransactionAsOf(stream, new Date('2026-01-02T00:00:00.000Z'))?.status).toBe('COMPLETED');
  });

  it('answers nothing before the first event: the transaction did not exist yet', () => {
    expect(foldTransactionAsOf(stream, new Date('2026-01-01T00:00:00.999Z'))).toBeNull();
  });
});
