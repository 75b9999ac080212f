import { checkHonestUnderLimits } from './checks';
import { SoakStats } from './stats';
import { compareCardLedger, type CardLedgerEvent, type StoredCardTransaction } from './consistency';
import { compareRows } from './compare';
import { mostWithinOneSecond, pathologicalCsv } from './hostile';

const id = 'CardTransaction:11111111-1111-4111-8111-111111111111';
const account = 'InternalAccount:22222222-2222-4222-8222-222222222222';
const transaction = (over: Partial<StoredCardTransaction> = {}): StoredCardTransaction => ({
  id,
  accountId: account,
  status: 'SETTLED',
  settlements: [],
  refunds: [],
  pulls: [],
  ...over,
});
const movement = (type: string, operation: string, amount: number, accountId = account): CardLedgerEvent => ({
  type,
  account_id: accountId,
  operation_id: `${id}:${operation}`,
  amount: String(amount),
});

describe('card transactions against the ledger', () => {
  it('agrees when settles less returns equal the net debit', () => {
    // Given a clearing of 300 from the hold, a post-hoc pull of 50 and a return of 100
    const stored = transaction({ settlements: ['350'], pulls: [{ amount: '50', status: 'CONFIRMED' }], refunds: [{ amount: '100' }] });
    const events = [
      movement('HoldSettled', 'clearing:1:settle', 300),
      movement('AccountDebited', 'clearing:1:pull', 50),
      movement('AccountCredited', 'return:1:credit', 100),
    ];
    // Then they agree
    expect(compareCardLedger([stored], events)).toEqual({ failures: [], agreeing: 1 });
  });

  it('does not count a failed post-hoc pull as money the ledger took', () => {
    const stored = transaction({ status: 'EXCEPTION', settlements: ['350'], pulls: [{ amount: '50', status: 'FAILED' }] });
    expect(compareCardLedger([stored], [movement('HoldSettled', 'clearing:1:settle', 300)]).failures).toEqual([]);
  });

  it('reports a clearing the ledger settled twice (two ClearingPosted, one settle, or the reverse)', () => {
    const stored = transaction({ settlements: ['300', '300'] });
    const { failures } = compareCardLedger([stored], [movement('HoldSettled', 'clearing:1:settle', 300)]);
    expect(failures).toEqual([`${id} (SETTLED): settled 600, refunded 0, so 600 net; the ledger debited 300`]);
  });

  it('reports movements on another account and movements of an unknown card transaction', () => {
    const stored = transaction({ settlements: ['300'] });
    const other = 'InternalAccount:33333333-3333-4333-8333-333333333333';
    expect(compareCardLedger([stored], [movement('HoldSettled', 'clearing:1:settle', 300, other)]).failures[0]).toContain(
      `not its account ${account}`,
    );
    expect(compareCardLedger([], [movement('HoldSettled', 'clearing:1:settle', 300)]).failures).toEqual([
      `${id}: 300 moved in the ledger for a card transaction the cards service does not have`,
    ]);
  });
});

describe('soak:compare', () => {
  it('puts the two runs of each operation side by side, with the p99 ratio', () => {
    const lines = compareRows(
      [{ operation: 'POST /customers', count: 10, p50Ms: 40, p99Ms: 200 }],
      [
        { operation: 'POST /customers', count: 12, p50Ms: 50, p99Ms: 300 },
        { operation: 'GET /config', count: 3, p50Ms: 5, p99Ms: 9 },
      ],
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^POST \/customers\s+10\s+40\s+200\s+12\s+50\s+300\s+1\.50$/);
    expect(lines[1]).toMatch(/^GET \/config\s+—\s+—\s+—\s+3\s+5\s+9\s*$/);
  });
});

describe("the hostile platform's pathological CSV", () => {
  it('holds five rows whose email and name cells are 30,000 characters', () => {
    const rows = pathologicalCsv('x').toString('utf8').trim().split('\n');
    expect(rows).toHaveLength(6);
    const cells = rows[1]!.split(',');
    expect(cells[3]).toHaveLength(30_000);
    expect(cells[10]).toHaveLength(30_000);
  });
});

describe('honest platforms under the production limits', () => {
  it('passes without a 429 and lists each 429 reason otherwise', () => {
    const stats = new SoakStats();
    stats.attempt({ operation: 'GET /config', status: 200, startedAt: 0, endedAt: 1 });
    expect(checkHonestUnderLimits(stats).failures).toEqual([]);
    stats.attempt({ operation: 'GET /config', status: 429, startedAt: 1, endedAt: 2 });
    stats.surprise(
      '429 (retried after Retry-After): Too many authentications with this client id are waiting to be verified.',
      'GET /config',
    );
    expect(checkHonestUnderLimits(stats).failures).toEqual([
      '1 answers 429 to honest platforms, on 1 operations',
      '1 × 429 (retried after Retry-After): Too many authentications with this client id are waiting to be verified.',
    ]);
  });
});

describe("the hostile flood's figure", () => {
  it('counts the most answers within any one second', () => {
    expect(mostWithinOneSecond([])).toBe(0);
    expect(mostWithinOneSecond([0, 500, 999, 1_000, 1_001, 3_000])).toBe(4);
  });
});
