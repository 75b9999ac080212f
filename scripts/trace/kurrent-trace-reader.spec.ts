import { StreamNotFoundError } from '@kurrent/kurrentdb-client';
import { hasTraceId, inWindow, KurrentTraceReader, mentions, serviceOfStream } from './kurrent-trace-reader';
import type { TracedEvent, TraceReader } from './trace-reader';
import { combineReaders, readerPlan } from './trace-readers';

// KurrentDB cannot run on this machine: the reader is driven through a double of the client's two
// reads, which records what it was asked. Against a server, `npm run trace` with EVENT_STORE=kurrentdb.

const PREFIXES = { payments: 'run1payments-', accounts: 'run1accounts-' };

let commit = 0n;
const stored = (streamId: string, revision: number, data: Record<string, unknown>, metadata: Record<string, unknown>) => {
  commit += 10n;
  return {
    event: {
      streamId,
      id: `event-${commit}`,
      revision: BigInt(revision),
      type: 'Happened',
      data,
      metadata: { platformId: 'Platform:a', requestId: 'req-0', occurredAt: '2026-01-01T00:00:01.000Z', ...metadata },
      position: { commit, prepare: commit },
    },
  };
};

const log = [
  stored('run1payments-Transaction:1', 0, { quoteId: 'Quote:9' }, { correlationId: 'corr-1', requestId: 'req-1' }),
  stored('run1accounts-InternalAccount:1', 0, { holdId: 'Hold:1' }, { correlationId: 'corr-1', causationId: 'event-10' }),
  stored('run1payments-Transaction:1', 1, {}, { correlationId: 'corr-2', occurredAt: '2026-01-01T00:00:09.000Z' }),
  { event: { ...stored('$stats-x', 0, {}, {}).event, type: '$statsCollected' } },
];

const double = () => {
  const readAll = jest.fn(async function* () {
    yield* log;
  });
  const readStream = jest.fn(async function* (name: string) {
    const events = log.filter((entry) => entry.event.streamId === name);
    if (events.length === 0) throw new StreamNotFoundError({ metadata: new Map() } as never, name);
    yield* events;
  });
  const client = { readAll, readStream, dispose: jest.fn().mockResolvedValue(undefined) };
  return { client, reader: new KurrentTraceReader(client as never, PREFIXES) };
};

const short = (events: TracedEvent[]) => events.map((event) => `${event.service} ${event.streamId}#${event.position}`);

describe('KurrentTraceReader', () => {
  it("reads a resource's stream in each KurrentDB service, without the prefix, within the window", async () => {
    const { client, reader } = double();
    expect(short(await reader.eventsOfStreams(['Transaction:1'], {}))).toEqual(['payments Transaction:1#1', 'payments Transaction:1#2']);
    expect(short(await reader.eventsOfStreams(['Transaction:1'], { to: '2026-01-01T00:00:05.000Z' }))).toEqual([
      'payments Transaction:1#1',
    ]);
    expect(client.readStream).toHaveBeenCalledWith('run1accounts-Transaction:1', expect.anything());
    expect(client.readAll).not.toHaveBeenCalled();
  });

  it("asks the server for the services' categories only, and finds events by their trace ids and correlations", async () => {
    const { client, reader } = double();
    const [first] = await reader.eventsWithTraceId('req-1', {});
    expect(first).toEqual({
      service: 'payments',
      eventId: 'event-10',
      streamId: 'Transaction:1',
      position: 1,
      globalPosition: '10',
      type: 'Happened',
      occurredAt: '2026-01-01T00:00:01.000Z',
      platformId: 'Platform:a',
      correlationId: 'corr-1',
      causationId: null,
      requestId: 'req-1',
      data: { quoteId: 'Quote:9' },
    });
    expect(client.readAll).toHaveBeenCalledWith(
      expect.objectContaining({ filter: expect.objectContaining({ prefixes: ['run1payments-', 'run1accounts-'] }) }),
    );
    expect(short(await reader.eventsOfCorrelations(['corr-1'], 100))).toEqual(['payments Transaction:1#1', 'accounts InternalAccount:1#1']);
    expect(short(await reader.eventsMentioning('Quote:9', {}, 100))).toEqual(['payments Transaction:1#1']);
    expect(await reader.eventsOfCorrelations([], 100)).toEqual([]);
  });

  it('stops at the limit per service, as the PostgreSQL reader does per store', async () => {
    const { reader } = double();
    expect(short(await reader.eventsOfCorrelations(['corr-1', 'corr-2'], 1))).toEqual([
      'payments Transaction:1#1',
      'accounts InternalAccount:1#1',
    ]);
  });

  it('leaves webhook deliveries to PostgreSQL, where the delivery log is', async () => {
    const { reader } = double();
    expect(await reader.deliveriesOfEvents()).toEqual([]);
    expect(await reader.delivery()).toBeUndefined();
  });
});

describe('the trace rules on one event', () => {
  const event: TracedEvent = {
    service: 'payments',
    eventId: 'e',
    streamId: 'Transaction:1',
    position: 1,
    globalPosition: '1',
    type: 'Happened',
    occurredAt: '2026-01-01T00:00:01.000Z',
    platformId: 'Platform:a',
    correlationId: 'c',
    causationId: null,
    requestId: 'r',
    data: { a: ['Quote:9'] },
  };
  it('given an id, then the event is found by its own, request or correlation id, or a mention in its data', () => {
    expect(['e', 'r', 'c', 'x'].map((id) => hasTraceId(id, event))).toEqual([true, true, true, false]);
    expect([mentions('Quote:9', event), mentions('Quote:8', event)]).toEqual([true, false]);
  });
  it('given a window, then both bounds are inclusive', () => {
    expect(inWindow({ from: event.occurredAt, to: event.occurredAt }, event)).toBe(true);
    expect(inWindow({ from: '2026-01-01T00:00:01.001Z' }, event)).toBe(false);
  });
  it('given prefixes where one starts another, then a stream belongs to the longest', () => {
    expect(serviceOfStream({ a: 'x-', b: 'x-y-' }, 'x-y-Stream:1')).toBe('b');
    expect(serviceOfStream({ a: 'x-' }, 'other-Stream:1')).toBeUndefined();
  });
});

describe('readerPlan', () => {
  const schemas = { payments: 'payments', accounts: 'accounts', customers: 'customers' };
  it('reads every service from PostgreSQL by default', () => {
    expect(readerPlan(schemas, {})).toEqual({ postgres: schemas });
  });
  it("reads a service from KurrentDB when the services' own selection puts it there", () => {
    expect(
      readerPlan(schemas, {
        EVENT_STORE: 'kurrentdb',
        EVENT_STORE_CUSTOMERS: 'postgres',
        EVENTSTORE_URL: 'kurrentdb://127.0.0.1:2113?tls=false',
        EVENTSTORE_STREAM_PREFIX: 'prod',
      }),
    ).toEqual({
      postgres: { customers: 'customers' },
      kurrentdb: { url: 'kurrentdb://127.0.0.1:2113?tls=false', prefixes: { payments: 'prodpayments-', accounts: 'prodaccounts-' } },
    });
  });
  it('refuses a selection the services would refuse, naming the variable', () => {
    expect(() => readerPlan(schemas, { EVENT_STORE_ACCOUNTS: 'kurrentdb' })).toThrow(/EVENT_STORE_ACCOUNTS=kurrentdb needs EVENTSTORE_URL/);
  });
});

describe('combineReaders', () => {
  const reader = (service: string, events: TracedEvent[], delivery?: string): TraceReader => ({
    services: [service],
    eventsOfStreams: async () => events,
    eventsWithTraceId: async () => events,
    eventsMentioning: async () => events,
    eventsOfCorrelations: async () => events,
    deliveriesOfEvents: async () => [],
    delivery: async (id) => (id === delivery ? ({ id } as never) : undefined),
    close: async () => undefined,
  });
  it('asks every reader and puts the answers together', async () => {
    const [a, b] = [{ service: 'payments' } as TracedEvent, { service: 'accounts' } as TracedEvent];
    const both = combineReaders([reader('payments', [a], 'Webhook:1'), reader('accounts', [b])]);
    expect(both.services).toEqual(['payments', 'accounts']);
    expect(await both.eventsOfCorrelations(['c'], 10)).toEqual([a, b]);
    expect(await both.delivery('Webhook:1')).toEqual({ id: 'Webhook:1' });
    expect(await both.delivery('Webhook:2')).toBeUndefined();
  });
});
