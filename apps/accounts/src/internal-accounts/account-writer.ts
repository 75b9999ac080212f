import { Injectable } from '@nestjs/common';
import { DomainError, type RequestContext } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { internalAccountNotFound } from './account-rules';
import { internalAccountDecider, type InternalAccount, type InternalAccountEvent } from './internal-account';
import {
  fromColumns,
  INTERNAL_ACCOUNT_BY_ID,
  type InternalAccountRow,
  type InternalAccountRowColumns,
} from './internal-account-view.projection';

type Decide = (state: InternalAccount) => InternalAccountEvent[];

/** More waiters than this on one account means callers outpace the ledger; refuse instead of queueing without end. */
const MAX_WAITERS_PER_ACCOUNT = 2_000;

/**
 * Runs ledger commands one at a time per account inside this process. Concurrent writers to one
 * stream would otherwise collide on its version and exhaust the command handler's few retries, so
 * 200 concurrent holds would fail with conflicts instead of deciding on the true balance one after
 * another. Replicas still serialise through the event store's expected-version check.
 */
@Injectable()
export class AccountWriter {
  private readonly tails = new Map<string, { tail: Promise<void>; waiters: number }>();

  constructor(private readonly eventSourcing: EventSourcing) {}

  /** Decides, appends, waits for the read model, and returns the account's row as a GET would show it. */
  async write(accountId: string, context: RequestContext, decide: Decide): Promise<InternalAccountRow> {
    await this.apply(accountId, context, decide);
    return this.read(accountId, context.platformId);
  }

  /** Decides and appends without reading the row back, for callers that need no reply. */
  async apply(accountId: string, context: RequestContext, decide: Decide, options: { assumeNew?: boolean } = {}): Promise<void> {
    await this.serialised(accountId, () => this.eventSourcing.handle(accountId, internalAccountDecider, decide, context, options));
  }

  async read(accountId: string, platformId: string): Promise<InternalAccountRow> {
    const [row] = await this.eventSourcing.read<InternalAccountRowColumns>('internal-account-by-id', INTERNAL_ACCOUNT_BY_ID, [accountId, platformId]);
    if (!row) throw internalAccountNotFound(accountId);
    return fromColumns(row);
  }

  private async serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const entry = this.tails.get(key) ?? { tail: Promise.resolve(), waiters: 0 };
    if (entry.waiters >= MAX_WAITERS_PER_ACCOUNT) {
      throw new DomainError('SERVICE_UNAVAILABLE', 'unavailable', `Internal account ${key} is busy; retry shortly.`, { accountId: key });
    }
    const previous = entry.tail;
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    entry.tail = previous.then(() => mine);
    entry.waiters += 1;
    this.tails.set(key, entry);
    try {
      await previous;
      return await work();
    } finally {
      release();
      entry.waiters -= 1;
      if (entry.waiters === 0) this.tails.delete(key);
    }
  }
}
