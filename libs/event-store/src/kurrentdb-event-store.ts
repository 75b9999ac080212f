import {
  ANY,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError as KurrentWrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AppendResult,
  type AppendStreamState,
} from '@kurrent/kurrentdb-client';
import { v7 as uuidv7 } from 'uuid';
import { storedEventsPage } from './stored-events-page';
import {
  type AppendMetadata,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type StoredEventsFilter,
  type StoredEventsKey,
  type Upcasters,
  WrongExpectedVersionError,
  toEventMetadata,
  upcast,
} from './types';

export type KurrentDbEventStoreOptions = { connectionString: string; upcasters?: Upcasters; streamPrefix?: string };

export type KurrentRecorded = {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  position?: { commit: bigint; prepare: bigint };
};

const MAX_READ_LIMIT = 10_000;
/** The largest append whose events we expect to share one commit position. */
const MAX_APPEND_GROUP = 1_000;

/** Our versions are 1-based stream positions with 0 for "no stream"; KurrentDB revisions are 0-based. */
export const toStreamState = (expectedVersion: number | 'any'): AppendStreamState =>
  expectedVersion === 'any' ? ANY : expectedVersion === 0 ? NO_STREAM : BigInt(expectedVersion - 1);

/** nextExpectedRevision is the 0-based revision of the stream's last event (-1: no stream). */
const versionAfter = (nextExpectedRevision: bigint): number => (nextExpectedRevision < 0n ? 0 : Number(nextExpectedRevision) + 1);

/** A KurrentDB event as the port records it, before upcasting: the service's prefix taken off its stream. */
export const toStoredEvent = (prefix: string, event: KurrentRecorded, commitPosition?: bigint): RecordedEvent => ({
  eventId: event.id,
  streamId: event.streamId.slice(prefix.length),
  streamPosition: Number(event.revision) + 1,
  globalPosition: commitPosition ?? event.position?.commit ?? 0n,
  type: event.type,
  data: event.data as Record<string, unknown>,
  metadata: event.metadata as EventMetadata,
});

const asStored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** What the methods of one store share: its client, its stream prefix and its upcasters. */
type KurrentStore = { client: KurrentDBClient; prefix: string; upcasters: Upcasters | undefined };

type Appended = { version: number; events: RecordedEvent[] };

/**
 * The KurrentDB adapter of the same port. KurrentDB assigns log positions at commit, so readAll is
 * free of late commits by construction; globalPosition is the commit position in its log.
 */
export const createKurrentDbEventStore = (options: KurrentDbEventStoreOptions): EventStore => {
  const kurrent: KurrentStore = {
    client: KurrentDBClient.connectionString(options.connectionString),
    prefix: options.streamPrefix ?? '',
    upcasters: options.upcasters,
  };
  return {
    readStream: (streamId, readOptions) => readStream(kurrent, streamId, readOptions),
    appendToStream: (streamId, events, { expectedVersion, metadata }) =>
      appendToStream(kurrent, streamId, events, expectedVersion, metadata),
    findInStream: (streamId, dataEquals) => findInStream(kurrent, streamId, dataEquals),
    listEvents: (filter, page) => listEvents(kurrent, filter, page),
    appendToStreams: (appends, { metadata }) => appendToStreams(kurrent, appends, metadata),
    appendToStreamsAtomically: (appends, { metadata }) => appendToStreamsAtomically(kurrent, appends, metadata),
    readAll: (range) => readAll(kurrent, range),
    headPosition: () => headPosition(kurrent),
    close: async () => {
      await kurrent.client.dispose();
    },
  };
};

const toRecorded = (kurrent: KurrentStore, event: KurrentRecorded, commitPosition?: bigint): RecordedEvent =>
  upcast(toStoredEvent(kurrent.prefix, event, commitPosition), kurrent.upcasters);

/** The service's streams in $all: its prefix, or every non-system stream when it has none. */
const serviceFilter = (kurrent: KurrentStore) =>
  kurrent.prefix ? streamNameFilter({ prefixes: [kurrent.prefix] }) : excludeSystemEvents();

/** The events a listing scans: one stream when it names the resource, else the service's category of $all. */
const listed = (kurrent: KurrentStore, resourceId: string | undefined): AsyncIterable<{ event?: unknown; commitPosition?: bigint }> => {
  if (resourceId !== undefined) return kurrent.client.readStream(kurrent.prefix + resourceId, { fromRevision: START, direction: FORWARDS });
  return kurrent.client.readAll({ fromPosition: START, filter: serviceFilter(kurrent), direction: FORWARDS });
};

const readStream = async (kurrent: KurrentStore, streamId: string, readOptions?: { fromPosition?: number }): Promise<Appended> => {
  const from = Math.max(1, readOptions?.fromPosition ?? 1);
  const events: RecordedEvent[] = [];
  try {
    const read = kurrent.client.readStream(kurrent.prefix + streamId, { fromRevision: BigInt(from - 1), direction: FORWARDS });
    for await (const resolved of read) {
      if (resolved.event) events.push(toRecorded(kurrent, resolved.event as KurrentRecorded, resolved.commitPosition));
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return { events: [], version: 0 };
    throw error;
  }
  const last = events[events.length - 1];
  if (last || from === 1) return { events, version: last?.streamPosition ?? 0 };
  return { events, version: await lastVersion(kurrent, streamId) };
};

const lastVersion = async (kurrent: KurrentStore, streamId: string): Promise<number> => {
  try {
    const read = kurrent.client.readStream(kurrent.prefix + streamId, { fromRevision: END, direction: 'backwards', maxCount: 1 });
    for await (const resolved of read) {
      if (resolved.event) return Number(resolved.event.revision) + 1;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return 0;
};

const appendToStream = async (
  kurrent: KurrentStore,
  streamId: string,
  events: NewEvent[],
  expectedVersion: ExpectedVersion,
  metadata: AppendMetadata,
): Promise<Appended> => {
  if (events.length === 0) {
    // An empty append's result cannot tell "no stream" from revision 0: check the version as PostgreSQL does.
    const version = await lastVersion(kurrent, streamId);
    if (expectedVersion !== 'any' && version !== expectedVersion) throw new WrongExpectedVersionError(streamId, expectedVersion, version);
    return { version, events: [] };
  }
  const occurredAt = metadata.occurredAt ?? new Date().toISOString();
  const envelopes = events.map((event) => ({ id: uuidv7(), event, metadata: toEventMetadata(metadata, event, occurredAt) }));
  let result: AppendResult;
  try {
    const data = envelopes.map(({ id, event, metadata: eventMetadata }) =>
      jsonEvent({ id, type: event.type, data: event.data, metadata: eventMetadata }),
    );
    result = await kurrent.client.appendToStream(kurrent.prefix + streamId, data, { streamState: toStreamState(expectedVersion) });
  } catch (error) {
    if (error instanceof KurrentWrongExpectedVersionError) {
      const actual = typeof error.actualState === 'bigint' ? Number(error.actualState) + 1 : 0;
      throw new WrongExpectedVersionError(streamId, expectedVersion, actual);
    }
    throw error;
  }
  const version = versionAfter(result.nextExpectedRevision);
  // The append's own result names the stream's new revision and the commit's log position, so
  // the recorded events are known without reading the stream back (which grew with the stream).
  // A server that reports no position is answered by reading back only this append's events.
  const commit = result.position?.commit;
  if (commit === undefined)
    return { version, events: (await readStream(kurrent, streamId, { fromPosition: version - envelopes.length + 1 })).events };
  const first = version - envelopes.length + 1;
  const recorded = envelopes.map(({ id, event, metadata: eventMetadata }, index) =>
    upcast(
      {
        eventId: id,
        streamId,
        streamPosition: first + index,
        globalPosition: commit,
        type: event.type,
        // As the store keeps them: JSON, so a reader and the appender see the same values.
        data: asStored(event.data),
        metadata: asStored(eventMetadata),
      },
      kurrent.upcasters,
    ),
  );
  return { version, events: recorded };
};

const findInStream = async (
  kurrent: KurrentStore,
  streamId: string,
  dataEquals: Record<string, readonly string[]>,
): Promise<RecordedEvent[]> => {
  const wanted = Object.entries(dataEquals).map(([field, values]) => [field, new Set(values)] as const);
  if (wanted.every(([, values]) => values.size === 0)) return [];
  // KurrentDB has no index over event data: the stream is read and matched here, on the data as
  // stored (as PostgreSQL matches it). A stream that outgrows this wants a stream keyed by the id.
  const matches = (data: Record<string, unknown>) =>
    wanted.some(([field, values]) => typeof data[field] === 'string' && values.has(data[field]));
  const found: RecordedEvent[] = [];
  try {
    for await (const resolved of kurrent.client.readStream(kurrent.prefix + streamId, { fromRevision: START, direction: FORWARDS })) {
      const event = resolved.event as KurrentRecorded | undefined;
      if (event && matches(event.data as Record<string, unknown>)) found.push(toRecorded(kurrent, event, resolved.commitPosition));
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return found;
};

const listEvents = async (
  kurrent: KurrentStore,
  filter: StoredEventsFilter,
  page: { before?: StoredEventsKey; limit: number },
): Promise<{ events: RecordedEvent[]; totalCount: number }> => {
  // KurrentDB has no index over metadata: the service's events (or the one stream) are read,
  // matched as stored, counted, and only the newest page is kept (stored-events-page.ts).
  const gathered = storedEventsPage(filter, page);
  try {
    for await (const resolved of listed(kurrent, filter.resourceId)) {
      const event = resolved.event as KurrentRecorded | undefined;
      if (!event || event.type.startsWith('$')) continue;
      gathered.offer(toStoredEvent(kurrent.prefix, event, resolved.commitPosition));
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  const { events, totalCount } = gathered.result();
  return { events: events.map((event) => upcast(event, kurrent.upcasters)), totalCount };
};

const appendToStreams = async (
  kurrent: KurrentStore,
  appends: { streamId: string; events: NewEvent[]; expectedVersion: ExpectedVersion }[],
  metadata: AppendMetadata,
): Promise<(Appended | WrongExpectedVersionError)[]> =>
  // KurrentDB commits each stream's append on its own; the streams still go in parallel.
  Promise.all(
    appends.map(({ streamId, events, expectedVersion }) =>
      appendToStream(kurrent, streamId, events, expectedVersion, metadata).catch((error: unknown) => {
        if (error instanceof WrongExpectedVersionError) return error;
        throw error;
      }),
    ),
  );

/**
 * Not atomic here (a named gap, decision 0053): every stream's version is checked first, so a
 * stream already at another version refuses the call before anything is written; then the streams
 * are appended one by one in the given order, so a writer racing between the check and the last
 * append can leave the earlier streams appended (a claim without its customer: the abandoned
 * claim the callers already recover). The client's multiStreamAppend needs a v2-protocol server
 * and string-only metadata, which our envelopes are not.
 */
const appendToStreamsAtomically = async (
  kurrent: KurrentStore,
  appends: { streamId: string; events: NewEvent[]; expectedVersion: ExpectedVersion }[],
  metadata: AppendMetadata,
): Promise<Appended[]> => {
  if (new Set(appends.map(({ streamId }) => streamId)).size !== appends.length) {
    throw new Error('An atomic append names each stream once.');
  }
  for (const { streamId, expectedVersion } of appends) {
    if (expectedVersion === 'any') continue;
    const version = await lastVersion(kurrent, streamId);
    if (version !== expectedVersion) throw new WrongExpectedVersionError(streamId, expectedVersion, version);
  }
  const results: Appended[] = [];
  for (const { streamId, events, expectedVersion } of appends) {
    results.push(await appendToStream(kurrent, streamId, events, expectedVersion, metadata));
  }
  return results;
};

const readAll = async (kurrent: KurrentStore, { after, limit }: { after: bigint; limit: number }): Promise<RecordedEvent[]> => {
  const max = Math.min(Math.max(1, limit), MAX_READ_LIMIT);
  const events: RecordedEvent[] = [];
  const fromPosition = after > 0n ? { commit: after, prepare: after } : START;
  // The read starts at `after` inclusive, so `after` itself is dropped. Events appended together
  // share one commit position, so a batch never ends inside such a group: a reader resuming
  // "after" that position would otherwise skip the group's rest.
  const read = kurrent.client.readAll({
    fromPosition,
    filter: serviceFilter(kurrent),
    maxCount: max + 1 + MAX_APPEND_GROUP,
    direction: FORWARDS,
  });
  for await (const resolved of read) {
    const event = resolved.event as KurrentRecorded | undefined;
    if (!event || !event.position || event.position.commit <= after || event.type.startsWith('$')) continue;
    const last = events[events.length - 1];
    if (events.length >= max && last && event.position.commit !== last.globalPosition) break;
    events.push(toRecorded(kurrent, event));
  }
  return events;
};

const headPosition = async (kurrent: KurrentStore): Promise<bigint> => {
  const read = kurrent.client.readAll({ fromPosition: END, direction: 'backwards', maxCount: 1, filter: serviceFilter(kurrent) });
  for await (const resolved of read) {
    if (resolved.event?.position) return resolved.event.position.commit;
  }
  return 0n;
};
