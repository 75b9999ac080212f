import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError, type RequestContext } from '@corridor/contracts';
import {
  EventSourcing,
  RecentlySeen,
  type RecordedEvent,
  saveSnapshotQuietly,
  snapshotDue,
  WrongExpectedVersionError,
} from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { internalAccountNotFound, NeedsRecall } from './account-rules';
import {
  initialInternalAccount,
  type InternalAccount,
  type InternalAccountEvent,
  internalAccountEvolver,
  internalAccountSnapshot,
  recallFrom,
  type Recalled,
  withRecalled,
} from './internal-account';
import {
  evolveInternalAccountView,
  fromColumns,
  INTERNAL_ACCOUNT_BY_ID,
  type InternalAccountRow,
  type InternalAccountRowColumns,
  internalAccountViewProjection,
} from './internal-account-view.projection';
import { withRowAfterEach } from './published-account';
import { AccountWriterMetrics } from './account-writer-metrics';

type Decide = (state: InternalAccount) => InternalAccountEvent[];
/**
 * True when the command decides nothing on this state and no event appended after it could change
 * that (e.g. openIsFinal: an account once opened by an operation stays opened by it). Such an
 * outcome needs no look at the stream's tail; without this, deciding nothing is never final.
 */
type IsFinal = (state: InternalAccount) => boolean;
/** How a command is submitted: assumeNew skips reading an account it does not remember; see IsFinal. */
type SubmitOptions = { assumeNew?: boolean; isFinal?: IsFinal };

/** The writer's settings, from the accounts config (config.ts). */
export type LedgerOptions = { operationWindow: number };
export const LEDGER_OPTIONS = Symbol('LEDGER_OPTIONS');

/** More waiters than this on one account means callers outpace the ledger; refuse instead of queueing without end. */
const MAX_WAITERS_PER_ACCOUNT = 2_000;
/** Commands of one account committed by one append; a bound keeps one append (and its failure) small. */
const MAX_BATCH = 256;
/** Accounts whose state stays in memory between commands; the least recently used is dropped first. */
const MAX_CACHED_ACCOUNTS = 10_000;
/**
 * A conflict means another replica wrote the account: catch up on its events and decide again.
 * Every conflict is some other writer's progress, so on a hot account shared by replicas a batch
 * may lose several races in a row; it keeps trying for this long (well inside the gateway's 5 s
 * request timeout) and this many times before answering 503.
 */
const CONFLICT_BUDGET_MS = 3_000;
const MAX_ATTEMPTS = 200;
/**
 * Lost races retried at once: the winner's next append is already on its way, so a loser that
 * waits only widens the gap it has to fit into. Past this many, a little jitter breaks a lockstep.
 */
const IMMEDIATE_ATTEMPTS = 8;
const MAX_PAUSE_MS = 20;
/**
 * A batch looks up the ids its decisions ask for (NeedsRecall) and decides again; a decision that
 * takes another path with what was recalled may ask for more, so a few rounds, never an endless loop.
 */
const MAX_RECALL_ROUNDS = 4;

/**
 * What the writer knows of one account: the decider's state, the row its projection shows (folded
 * with the projection's own evolve), and where its stream ends.
 */
type Known = { state: InternalAccount; row: InternalAccountRow | null; version: number; position: bigint; snapshotVersion: number };
type SavedKnown = {
  state: unknown;
  row: (Omit<InternalAccountRow, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string }) | null;
  position: string;
};
const empty = (): Known => ({ state: initialInternalAccount(), row: null, version: 0, position: 0n, snapshotVersion: 0 });
/** A command's result: the row right after its own events, and the position a GET must wait for. */
type Outcome = { row: InternalAccountRow | null; position: bigint };
type Pending = {
  context: RequestContext;
  decide: Decide;
  assumeNew: boolean;
  isFinal: IsFinal | undefined;
  resolve: (outcome: Outcome) => void;
  reject: (error: unknown) => void;
};

const pause = (attempt: number): Promise<void> =>
  attempt < IMMEDIATE_ATTEMPTS
    ? Promise.resolve()
    : new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_PAUSE_MS, 2 ** (attempt - IMMEDIATE_ATTEMPTS))));

/**
 * Runs the ledger's commands on each account one after another inside this process, and commits
 * the commands that queued up behind one append together (group commit):
 *
 * - Per-account serialisation: concurrent writers to one stream would otherwise collide on its
 *   version, so 200 concurrent holds would fail with conflicts instead of deciding on the true
 *   balance one after another.
 * - The account's state stays in memory between commands, so a command neither reads nor replays
 *   the stream. Every append still names the version that state was decided on, and the store
 *   refuses it if anything (another replica) wrote in between; the writer then reloads and decides
 *   again. Commands that append nothing (a refusal, an idempotent repeat) are confirmed against
 *   the stream's tail first, so a stale memory never refuses what the store would allow; only an
 *   outcome its command calls final (IsFinal: a repeated open of an account this memory knows
 *   opened by it) is answered from memory, since no later event could change it.
 * - While one append is in flight, the next commands of the account queue; they are decided one
 *   after another on the state each leaves, and their events go to the store in one append, each
 *   event with the context of its own request. A batch is all or nothing: if its append fails,
 *   every command in it fails or is decided again, and no caller hears of a decision that was not
 *   committed.
 * - Replies wait for the read model (read-your-writes) after the account is free for the next
 *   batch, and render the row as the projection's own evolve folds it, so the reply and a GET right
 *   after it agree.
 */
@Injectable()
export class AccountWriter {
  private readonly logger = createLogger('accounts:writer');
  private readonly queues = new Map<string, Pending[]>();
  private readonly known = new RecentlySeen<Known>(MAX_CACHED_ACCOUNTS);
  private readonly evolve: ReturnType<typeof internalAccountEvolver>;
  private readonly codec: ReturnType<typeof internalAccountSnapshot>;
  /** The snapshot holds the writer's whole memory of the account: the decider's state and the row, so both rules are in its version. */
  private readonly snapshotVersionName: string;

  constructor(
    private readonly eventSourcing: EventSourcing,
    /** operationWindow (LEDGER_OPERATION_WINDOW): operation ids (and closed holds) each account's state remembers. */
    @Inject(LEDGER_OPTIONS) options: LedgerOptions,
    @Optional() @Inject(AccountWriterMetrics) private readonly metrics?: AccountWriterMetrics,
  ) {
    this.evolve = internalAccountEvolver(options.operationWindow);
    this.codec = internalAccountSnapshot(options.operationWindow);
    this.snapshotVersionName = `${this.codec.deciderVersion};row=2`;
    eventSourcing.followEvents((events) => this.follow(events));
  }

  /**
   * Every event the service's projection runner reads, in store order: another replica's write to
   * an account this one remembers is folded into the memory at once, so the next command here is
   * decided on it instead of losing a race (a refused append, a read of the tail, a second append).
   * Only the next event of a stream is folded; a gap drops the memory (the next command reloads).
   * A memory this leaves behind is still caught by the version every append names.
   */
  private follow(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      const known = this.known.get(event.streamId);
      if (!known || event.streamPosition <= known.version) continue;
      if (event.streamPosition === known.version + 1)
        this.known.remember(event.streamId, fold(this.evolve, known, [event], event.streamPosition));
      else this.known.forget(event.streamId);
    }
  }

  /** Decides, appends, waits for the read model, and returns the account's row as a GET would show it. */
  async write(accountId: string, context: RequestContext, decide: Decide): Promise<InternalAccountRow> {
    const { row, position } = await this.submit(accountId, context, decide, {});
    await this.waitForReadModel(position);
    if (!row || row.platformId !== context.platformId) throw internalAccountNotFound(accountId);
    return row;
  }

  /**
   * Decides and appends without reading the row back, for callers that need no reply. It waits for
   * the read model even when nothing was appended: POST /customers (decision 0027) may find the
   * account just opened by the policy, whose own wait does not hold back this reply.
   */
  async apply(accountId: string, context: RequestContext, decide: Decide, options: SubmitOptions = {}): Promise<void> {
    const { position } = await this.submit(accountId, context, decide, options);
    await this.waitForReadModel(position);
  }

  /** Only the internal-accounts read model shows an account's events: a halted one elsewhere does not hold a movement. */
  private waitForReadModel(position: bigint): Promise<void> {
    return this.eventSourcing.projections.waitFor(position, undefined, [internalAccountViewProjection.name]);
  }

  async read(accountId: string, platformId: string): Promise<InternalAccountRow> {
    const [row] = await this.eventSourcing.read<InternalAccountRowColumns>('internal-account-by-id', INTERNAL_ACCOUNT_BY_ID, [
      accountId,
      platformId,
    ]);
    if (!row) throw internalAccountNotFound(accountId);
    return fromColumns(row);
  }

  private submit(accountId: string, context: RequestContext, decide: Decide, options: SubmitOptions): Promise<Outcome> {
    const queue = this.queues.get(accountId);
    if (queue && queue.length >= MAX_WAITERS_PER_ACCOUNT) {
      return Promise.reject(busy(accountId));
    }
    return new Promise<Outcome>((resolve, reject) => {
      const pending = { context, decide, assumeNew: options.assumeNew ?? false, isFinal: options.isFinal, resolve, reject };
      if (queue) {
        queue.push(pending);
        return;
      }
      this.queues.set(accountId, [pending]);
      void this.drain(accountId);
    });
  }

  /** Runs the account's queue batch after batch until it is empty; the queue's presence means a drain is running. */
  private async drain(accountId: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(accountId) ?? [];
      const batch = queue.splice(0, MAX_BATCH);
      if (batch.length === 0) {
        this.queues.delete(accountId);
        return;
      }
      await this.runBatch(accountId, batch);
    }
  }

  private async runBatch(accountId: string, batch: Pending[]): Promise<void> {
    const deadline = Date.now() + CONFLICT_BUDGET_MS;
    const exhausted = (attempt: number) => attempt + 1 >= MAX_ATTEMPTS || Date.now() >= deadline;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const settle = await this.decideAndAppend(accountId, batch, attempt === 0 && batch.every((pending) => pending.assumeNew));
        if (settle) {
          settle();
          return;
        }
        if (exhausted(attempt)) throw busy(accountId);
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) {
          this.known.forget(accountId);
          for (const pending of batch) pending.reject(error);
          return;
        }
        // Lost a race to another replica: a 503 only once the budget is spent, never the raw conflict (a 500).
        this.metrics?.conflicts.inc({ outcome: exhausted(attempt) ? 'busy' : 'retried' });
        if (exhausted(attempt)) {
          this.logger.warn(
            { accountId, appends: attempt + 1, budgetMs: CONFLICT_BUDGET_MS },
            'Internal account appends lost to another writer for the whole budget; answering busy.',
          );
          this.known.forget(accountId);
          for (const pending of batch) pending.reject(busy(accountId));
          return;
        }
        await this.catchUp(accountId);
        // A wrong guess that the account was new is not a collision with another writer.
        if (attempt > 0 || !batch.every((pending) => pending.assumeNew)) await pause(attempt);
      }
    }
  }

  /**
   * After a conflict: reads only the events the memory lacks, instead of dropping the memory and
   * replaying a hot account's whole stream on every lost race (which made each retry slower than
   * the last and the next race likelier to be lost).
   */
  private async catchUp(accountId: string): Promise<void> {
    const cached = this.known.get(accountId);
    if (!cached) return;
    try {
      await this.isStale(accountId, cached);
    } catch {
      this.known.forget(accountId);
    }
  }

  /**
   * One attempt at a batch. Returns how to answer its callers once it is committed, or null when
   * the memory of the account turned out stale and the batch must be decided again.
   */
  private async decideAndAppend(accountId: string, batch: Pending[], assumeNew: boolean): Promise<(() => void) | null> {
    const { known, fresh } = await this.load(accountId, assumeNew);
    const { decisions, state } = await this.decideBatch(accountId, known, batch);
    // Dated here rather than by the store, so the row each event carries for its webhook (decision
    // 0054) is dated exactly as the store records the event. Real time, as the store's own date is.
    const toAppend = withRowAfterEach(
      known.row,
      decisions.flatMap(({ pending, events }) => events.map((event) => ({ type: event.type, data: event.data, context: pending.context }))),
      new Date().toISOString(),
    );
    if (toAppend.length === 0) {
      // Nothing to commit, so no version check will catch a stale memory: look at the tail first,
      // unless no event appended since could change what the batch decided.
      if (!fresh && !allFinal(decisions, known.state) && (await this.isStale(accountId, known))) return null;
      this.known.remember(accountId, known);
      return () => decisions.forEach(({ pending, error }) => (error === undefined ? pending.resolve(known) : pending.reject(error)));
    }
    const appended = await this.eventSourcing.append(accountId, toAppend, known.version);
    // The decisions were made on the version the store confirmed, so the state they left is the stream's.
    let row = known.row;
    let position = known.position;
    let next = 0;
    const outcomes = decisions.map(({ events }) => {
      for (const _event of events) {
        const recorded = appended.events[next++]!;
        row = evolveInternalAccountView(row, recorded);
        position = recorded.globalPosition;
      }
      return { row, position };
    });
    const due = snapshotDue(this.eventSourcing.snapshotEvery, known.snapshotVersion, appended.version);
    const after: Known = {
      state,
      row,
      version: appended.version,
      position,
      snapshotVersion: due ? appended.version : known.snapshotVersion,
    };
    this.known.remember(accountId, after);
    if (due) void this.takeSnapshot(accountId, after);
    return () =>
      decisions.forEach(({ pending, error }, index) => (error === undefined ? pending.resolve(outcomes[index]!) : pending.reject(error)));
  }

  /**
   * Decides each command of the batch on the state the previous one left. Decisions that need ids
   * the account's windows let go of throw NeedsRecall; those ids are looked up in the account's
   * events in one query and the batch is decided again with them (docs/decisions/0018).
   */
  private async decideBatch(accountId: string, known: Known, batch: Pending[]) {
    let recalled: Recalled | undefined;
    for (let round = 1; ; round += 1) {
      let state = known.state;
      const operationIds = new Set<string>();
      const holdIds = new Set<string>();
      const decisions = batch.map((pending) => {
        try {
          const events = pending.decide(withRecalled(state, recalled));
          state = events.reduce(this.evolve, state);
          return { pending, events };
        } catch (error) {
          if (error instanceof NeedsRecall) {
            error.operationIds.forEach((id) => operationIds.add(id));
            error.holdIds.forEach((id) => holdIds.add(id));
          }
          return { pending, events: [] as InternalAccountEvent[], error };
        }
      });
      if (operationIds.size + holdIds.size === 0) return { decisions, state };
      if (round >= MAX_RECALL_ROUNDS) {
        // Answered as an error to the callers concerned (never decided without the lookup).
        this.logger.error(
          { accountId, lookups: round },
          'Internal account decisions still asked for older ids after the last lookup; those commands fail.',
        );
        return { decisions, state };
      }
      recalled = merge(recalled, await this.recall(accountId, [...operationIds], [...holdIds]));
    }
  }

  private async recall(accountId: string, operationIds: string[], holdIds: string[]): Promise<Recalled> {
    // Through the port, so it works on either store; PostgreSQL serves it from migration 003's partial indexes.
    const events = await this.eventSourcing.store.findInStream(accountId, { operationId: operationIds, holdId: holdIds });
    return recallFrom(events as unknown as InternalAccountEvent[], operationIds, holdIds);
  }

  /** A cache write after the callers were answered: its failure is logged and costs only a longer read later. */
  private async takeSnapshot(accountId: string, known: Known): Promise<void> {
    await saveSnapshotQuietly(
      this.eventSourcing.snapshots,
      {
        streamId: accountId,
        version: known.version,
        deciderVersion: this.snapshotVersionName,
        state: (): SavedKnown => ({
          state: this.codec.serialize(known.state),
          row: known.row && { ...known.row, createdAt: known.row.createdAt.toISOString(), updatedAt: known.row.updatedAt.toISOString() },
          position: known.position.toString(),
        }),
      },
      this.logger,
    );
  }

  /**
   * The account as last known here, from its snapshot and the events after it, or from its whole stream (or, for a new one, assumed empty).
   */
  private async load(accountId: string, assumeNew: boolean): Promise<{ known: Known; fresh: boolean }> {
    const cached = this.known.get(accountId);
    if (cached) return { known: cached, fresh: false };
    if (assumeNew) return { known: empty(), fresh: false };
    const snapshot = await this.eventSourcing.snapshots.load(accountId, this.snapshotVersionName).catch((error: unknown) => {
      // Only a cache: without it the account is read from its stream.
      this.logger.warn({ accountId, err: error }, 'An internal account snapshot could not be read; reading the whole stream.');
      return null;
    });
    if (snapshot) {
      const saved = snapshot.state as SavedKnown;
      const { events, version } = await this.eventSourcing.store.readStream(accountId, { fromPosition: snapshot.version + 1 });
      // A snapshot ahead of its stream (events removed, a restored backup) is not trusted.
      if (version >= snapshot.version) {
        const from: Known = {
          state: this.codec.deserialize(saved.state),
          row: saved.row && { ...saved.row, createdAt: new Date(saved.row.createdAt), updatedAt: new Date(saved.row.updatedAt) },
          version: snapshot.version,
          position: BigInt(saved.position),
          snapshotVersion: snapshot.version,
        };
        return { known: fold(this.evolve, from, events, version), fresh: true };
      }
    }
    const { events, version } = await this.eventSourcing.store.readStream(accountId);
    return { known: fold(this.evolve, empty(), events, version), fresh: true };
  }

  /** True (and the memory brought up to date) when the stream has events the memory lacks. */
  private async isStale(accountId: string, known: Known): Promise<boolean> {
    const { events, version } = await this.eventSourcing.store.readStream(accountId, { fromPosition: known.version + 1 });
    if (events.length === 0 && version === known.version) return false;
    this.known.forget(accountId);
    if (version > known.version && events.length === version - known.version)
      this.known.remember(accountId, fold(this.evolve, known, events, version));
    return true;
  }
}

const fold = (
  evolve: (state: InternalAccount, event: InternalAccountEvent) => InternalAccount,
  known: Known,
  events: RecordedEvent[],
  version: number,
): Known => {
  let { state, row, position } = known;
  for (const event of events) {
    state = evolve(state, event as unknown as InternalAccountEvent);
    row = evolveInternalAccountView(row, event);
    position = event.globalPosition;
  }
  return { state, row, version, position, snapshotVersion: known.snapshotVersion };
};

/**
 * True when every command of a batch that appends nothing decided so for good (IsFinal): a refusal
 * never is, since later events may allow what this memory refuses.
 */
const allFinal = (decisions: { pending: Pending; error?: unknown }[], state: InternalAccount): boolean =>
  decisions.every(({ pending, error }) => error === undefined && pending.isFinal?.(state) === true);

const merge = (earlier: Recalled | undefined, later: Recalled): Recalled =>
  earlier === undefined
    ? later
    : {
        operations: new Map([...earlier.operations, ...later.operations]),
        closedHolds: new Map([...earlier.closedHolds, ...later.closedHolds]),
      };

const busy = (accountId: string) =>
  new DomainError('SERVICE_UNAVAILABLE', 'unavailable', `Internal account ${accountId} is busy; retry shortly.`, { accountId });
