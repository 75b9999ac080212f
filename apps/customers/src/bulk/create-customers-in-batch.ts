import { createHash } from 'node:crypto';
import {
  type BulkImportErrorWire,
  type CreateCustomerData,
  DomainError,
  type RequestContext,
  claimUniqueValue,
  releaseUniqueValue,
  uniqueValueDecider,
} from '@corridor/contracts';
import { type EventSourcing, type NewEvent, isWrongExpectedVersionError } from '@corridor/event-store';
import { createCustomer } from '../customers/create-customer';
import { type CustomerEvent, customerDecider } from '../customers/customer';
import { withCustomerAfterEach } from '../customers/published-customer';
import { platformCustomerIdKey, umaKey } from '../customers/customers.controller';
import type { PlatformSettings } from '../customers/platform-settings';
import { rowRequestId } from './bulk-import';

// POST /customers's command for a batch of rows: the same deciders (createCustomer, then the
// uniqueness claims of the platformCustomerId and the UMA address) and the same streams, but the
// batch's claims and customers go to the store in one all-or-nothing statement (decision 0053), or,
// when a value or customer exists already, the claims in one statement and the customers in a
// second one, instead of three commits per customer (docs/decisions/0012).
//
// Each row's customer id is derived from (job, row), so a batch that runs again after a crash
// meets its own claims and its own customers, recognises them, and creates nothing twice.

export type BatchRow = { rowNumber: number; correlationId: string; body: CreateCustomerData };
export type BatchJob = { jobId: string; platformId: string; acceptedAt: string };

/** A UUIDv7-shaped id: the job's acceptance time, then bits of a hash of (job, row) — the same id on every run. */
export const rowCustomerId = (job: BatchJob, rowNumber: number): string => {
  const hash = createHash('sha256').update(`${job.jobId}\n${rowNumber}`).digest();
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(Date.parse(job.acceptedAt), 0, 6);
  bytes.writeUInt8(0x70 | (hash.readUInt8(0) & 0x0f), 6);
  bytes.writeUInt8(hash.readUInt8(1), 7);
  bytes.writeUInt8(0x80 | (hash.readUInt8(2) & 0x3f), 8);
  hash.copy(bytes, 9, 3, 10);
  const hex = bytes.toString('hex');
  return `Customer:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

type Decided = BatchRow & {
  customerId: string;
  context: RequestContext;
  events: CustomerEvent[];
  keys: { key: string; conflictCode: string; conflictMessage: string }[];
};

const rowError = (row: BatchRow, error: DomainError): BulkImportErrorWire => ({
  correlationId: row.correlationId,
  code: error.code,
  message: `Row ${row.rowNumber}: ${error.message}`,
  details: { row: row.rowNumber, ...(error.details ?? {}) },
});

/** Creates the rows' customers; returns each refused row's error by row number (rows not in the map were imported). */
export const createCustomersInBatch = async (
  eventSourcing: EventSourcing,
  job: BatchJob,
  rows: readonly BatchRow[],
  settings: PlatformSettings,
  now: Date,
  jobContext: RequestContext,
): Promise<Map<number, BulkImportErrorWire>> => {
  const refused = new Map<number, BulkImportErrorWire>();
  const decided = decideRows(job, rows, settings, now, jobContext, refused);
  const { together, alone } = splitBySharedValues(decided);
  const createdAtOnce = await createAtOnce(eventSourcing, together, jobContext);
  const claimed = await claimValues(eventSourcing, createdAtOnce ? [] : together, alone, jobContext, refused);
  // Every customer in one statement. A customer stream that exists already can only be this row's
  // (its id is derived from the job and the row): an earlier run created it.
  if (claimed.length > 0) {
    const appends = claimed.map((row) => ({ streamId: row.customerId, events: customerEvents(row), expectedVersion: 0 }));
    await eventSourcing.store.appendToStreams(appends, { metadata: metadataOf(jobContext) });
  }
  return refused;
};

/** A row's customer events, its KYC change with the customer right after it for its webhook (decision 0057). */
const customerEvents = (row: Decided): NewEvent[] =>
  withCustomerAfterEach(row.events).map(({ type, data, integration }) => ({
    type,
    data: data as Record<string, unknown>,
    metadata: { ...metadataOf(row.context), ...(integration ? { integration } : {}) },
  }));

/**
 * The usual batch: every value free and every customer new, so the rows that share no value go
 * to the store, claims and customers, as one all-or-nothing append, one commit (decision 0053).
 * False when a stream was not new (a value taken or released, a run after a crash); nothing was
 * written then, and the rows go through the claims one statement, customers the next.
 */
const createAtOnce = async (eventSourcing: EventSourcing, together: readonly Decided[], jobContext: RequestContext): Promise<boolean> => {
  if (together.length === 0) return false;
  const appends = together.flatMap((row) => [
    ...row.keys.map(({ key }) => ({ streamId: key, events: [claimEvent(key, row.customerId, row.context)], expectedVersion: 0 })),
    { streamId: row.customerId, events: customerEvents(row), expectedVersion: 0 },
  ]);
  try {
    await eventSourcing.store.appendToStreamsAtomically(appends, { metadata: metadataOf(jobContext) });
    return true;
  } catch (error) {
    if (!isWrongExpectedVersionError(error)) throw error;
    // Not silent: the stream-by-stream path below answers every row, each conflict as before.
    return false;
  }
};

/** Each row through createCustomer, as POST /customers decides it; a refused row goes to `refused`. */
const decideRows = (
  job: BatchJob,
  rows: readonly BatchRow[],
  settings: PlatformSettings,
  now: Date,
  jobContext: RequestContext,
  refused: Map<number, BulkImportErrorWire>,
): Decided[] =>
  rows.flatMap((row) => {
    const customerId = rowCustomerId(job, row.rowNumber);
    const platformCustomerId = row.body.platformCustomerId ?? '';
    const umaAddress = row.body.umaAddress ?? '';
    const command = {
      type: 'CreateCustomer' as const,
      data: { customerId, platformId: job.platformId, request: row.body, platformCustomerId, umaAddress, settings },
      metadata: { now },
    };
    try {
      const events = createCustomer(command, customerDecider.initialState());
      const context = { ...jobContext, requestId: rowRequestId(job.jobId, row.rowNumber) };
      return [{ ...row, customerId, context, events, keys: valuesToClaim(job.platformId, platformCustomerId, umaAddress) }];
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      refused.set(row.rowNumber, rowError(row, error));
      return [];
    }
  });

const valuesToClaim = (platformId: string, platformCustomerId: string, umaAddress: string): Decided['keys'] => [
  {
    key: platformCustomerIdKey(platformId, platformCustomerId),
    conflictCode: 'CONFLICT',
    conflictMessage: `platformCustomerId ${platformCustomerId} is already used by another customer of this platform.`,
  },
  {
    key: umaKey(umaAddress),
    conflictCode: 'UMA_ADDRESS_EXISTS',
    conflictMessage: `The UMA address ${umaAddress} is already taken.`,
  },
];

/** A value two rows of this batch both want goes to the first; the later row goes one at a time, after. */
const splitBySharedValues = (decided: readonly Decided[]): { together: Decided[]; alone: Decided[] } => {
  const wanted = new Set<string>();
  const together: Decided[] = [];
  const alone: Decided[] = [];
  for (const row of decided) {
    if (row.keys.some(({ key }) => wanted.has(key))) alone.push(row);
    else {
      row.keys.forEach(({ key }) => wanted.add(key));
      together.push(row);
    }
  }
  return { together, alone };
};

const metadataOf = (context: RequestContext) => ({
  platformId: context.platformId,
  correlationId: context.correlationId,
  requestId: context.requestId,
  actor: context.actor,
});

const claimEvent = (key: string, ownerId: string, context: RequestContext): NewEvent => ({
  type: 'UniqueValueClaimed',
  data: { key, ownerId },
  metadata: metadataOf(context),
});

/**
 * Claims the rows' values: the rows that share none together in one statement, then one by one
 * each row that met a taken value or shares one with an earlier row. Answers the rows that hold all their values.
 */
const claimValues = async (
  eventSourcing: EventSourcing,
  together: readonly Decided[],
  alone: readonly Decided[],
  jobContext: RequestContext,
  refused: Map<number, BulkImportErrorWire>,
): Promise<Decided[]> => {
  const claimedKeys = await claimTogether(eventSourcing, together, jobContext);
  const claimed: Decided[] = [];
  for (const row of together) {
    const keys = claimedKeys.get(row) ?? new Set<string>();
    if (keys.size === row.keys.length || (await claimAlone(eventSourcing, row, keys, refused))) claimed.push(row);
  }
  for (const row of alone) if (await claimAlone(eventSourcing, row, new Set(), refused)) claimed.push(row);
  return claimed;
};

/**
 * Every claim of the batch in one statement. A stream that exists already (a value taken, released,
 * or this row's own claim from an earlier run) makes the store answer stream by stream.
 */
const claimTogether = async (
  eventSourcing: EventSourcing,
  together: readonly Decided[],
  jobContext: RequestContext,
): Promise<Map<Decided, Set<string>>> => {
  const claimAppends = together.flatMap((row) =>
    row.keys.map(({ key }) => ({
      row,
      key,
      append: { streamId: key, events: [claimEvent(key, row.customerId, row.context)], expectedVersion: 0 },
    })),
  );
  const claimResults =
    claimAppends.length > 0
      ? await eventSourcing.store.appendToStreams(
          claimAppends.map(({ append }) => append),
          { metadata: metadataOf(jobContext) },
        )
      : [];
  const claimedKeys = new Map<Decided, Set<string>>();
  claimAppends.forEach(({ row, key }, index) => {
    if (isWrongExpectedVersionError(claimResults[index])) return;
    const keys = claimedKeys.get(row) ?? new Set<string>();
    keys.add(key);
    claimedKeys.set(row, keys);
  });
  return claimedKeys;
};

/** One claim through the decider: nothing if the value is already this row's, the conflict if another customer's. */
const claimOne = async (eventSourcing: EventSourcing, row: Decided, claim: Decided['keys'][number]): Promise<void> => {
  await eventSourcing.handle(
    claim.key,
    uniqueValueDecider,
    (value) =>
      claimUniqueValue(
        {
          type: 'ClaimUniqueValue',
          data: { key: claim.key, ownerId: row.customerId, conflictCode: claim.conflictCode, conflictMessage: claim.conflictMessage },
          metadata: {},
        },
        value,
      ),
    row.context,
    { assumeNew: true },
  );
};

/** Claims a row's values one by one (after a conflict, or for a row that shares a value with an earlier one). */
const claimAlone = async (
  eventSourcing: EventSourcing,
  row: Decided,
  alreadyClaimed: ReadonlySet<string>,
  refused: Map<number, BulkImportErrorWire>,
): Promise<boolean> => {
  const outcomes = await Promise.allSettled(
    row.keys.map((claim) => (alreadyClaimed.has(claim.key) ? Promise.resolve() : claimOne(eventSourcing, row, claim))),
  );
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (!failure) return true;
  if (!(failure.reason instanceof DomainError)) throw failure.reason;
  // Give back what this row did get, so a refused row reserves nothing (as POST /customers does).
  await Promise.all(
    row.keys.map(({ key }) =>
      eventSourcing.handle(key, uniqueValueDecider, (value) => releaseUniqueValue(key, row.customerId, value), row.context),
    ),
  );
  refused.set(row.rowNumber, rowError(row, failure.reason));
  return false;
};
