import { statusCountDeltas } from './transaction-status-counts';
import type { TransactionRow } from './transaction-view.projection';
import { countStatement, transactionFilters } from './transactions.controller';

// The per-(platform, status) counters move with the transactions read model's own row changes.

type Status = TransactionRow['status'];
const row = (id: string, status: Status, platformId = 'Platform:a') => ({ id, platformId, status });

describe('statusCountDeltas', () => {
  it('given new rows, when saved, then each adds one to its platform and status', () => {
    expect(
      statusCountDeltas(new Map(), {
        upserts: [row('T1', 'PENDING'), row('T2', 'PENDING'), row('T3', 'PENDING', 'Platform:b')],
        deletes: [],
      }),
    ).toEqual([
      { platformId: 'Platform:a', status: 'PENDING', delta: 2 },
      { platformId: 'Platform:b', status: 'PENDING', delta: 1 },
    ]);
  });

  it('given a row in one status, when saved in another, then the old status loses one and the new gains one', () => {
    expect(statusCountDeltas(new Map([['T1', row('T1', 'PENDING')]]), { upserts: [row('T1', 'PROCESSING')], deletes: [] })).toEqual([
      { platformId: 'Platform:a', status: 'PENDING', delta: -1 },
      { platformId: 'Platform:a', status: 'PROCESSING', delta: 1 },
    ]);
  });

  it('given a batch that folded several changes of one transaction, when saved, then only the stored and the final status move', () => {
    // PENDING → PROCESSING → COMPLETED in one batch: the runner saves the last row once, against the stored one.
    expect(statusCountDeltas(new Map([['T1', row('T1', 'PENDING')]]), { upserts: [row('T1', 'COMPLETED')], deletes: [] })).toEqual([
      { platformId: 'Platform:a', status: 'COMPLETED', delta: 1 },
      { platformId: 'Platform:a', status: 'PENDING', delta: -1 },
    ]);
  });

  it('given a row saved in the status it had, when saved, then nothing moves', () => {
    expect(statusCountDeltas(new Map([['T1', row('T1', 'PENDING')]]), { upserts: [row('T1', 'PENDING')], deletes: [] })).toEqual([]);
  });

  it('given changes that net out across rows, when saved, then the netted counter is left out', () => {
    const previous = new Map([
      ['T1', row('T1', 'PENDING')],
      ['T2', row('T2', 'PROCESSING')],
    ]);
    expect(statusCountDeltas(previous, { upserts: [row('T1', 'PROCESSING'), row('T2', 'PENDING')], deletes: [] })).toEqual([]);
  });

  it('given a deleted row, when saved, then its status loses one; a delete of a row never stored moves nothing', () => {
    expect(statusCountDeltas(new Map([['T1', row('T1', 'FAILED')]]), { upserts: [], deletes: ['T1', 'T9'] })).toEqual([
      { platformId: 'Platform:a', status: 'FAILED', delta: -1 },
    ]);
  });
});

describe('the totalCount of a transactions list', () => {
  const count = (data: Record<string, unknown>) => countStatement(transactionFilters('Platform:a', { limit: 20, ...data }));

  it('given no filter, when counted, then it reads the per-platform counter', () => {
    expect(count({})).toMatchObject({ name: 'transactions-count-platform', values: ['Platform:a'] });
  });

  it('given a status filter alone, when counted, then it reads the per-(platform, status) counter by primary key', () => {
    expect(count({ status: 'COMPLETED', sortOrder: 'asc', cursor: 'x' })).toMatchObject({
      name: 'transactions-count-status',
      text: expect.stringContaining('transaction_status_counts WHERE platform_id = $1 AND status = $2'),
      values: ['Platform:a', 'COMPLETED'],
    });
  });

  it.each([
    { status: 'COMPLETED', type: 'OUTGOING' },
    { status: 'COMPLETED', accountIdentifier: 'InternalAccount:1' },
    { status: 'COMPLETED', startDate: '2026-01-01T00:00:00.000Z' },
    { status: 'COMPLETED', reference: 'R1' },
    { type: 'OUTGOING' },
  ])('given the filters %o, when counted, then it counts the matching rows', (data) => {
    expect(count(data)).toMatchObject({ text: expect.stringMatching(/^SELECT count\(\*\) AS count FROM payments\.transactions WHERE/) });
  });
});
