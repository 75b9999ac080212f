import { Counter, Registry } from 'prom-client';

/**
 * The account writer's lost races, served by GET /metrics: an append refused because another writer
 * (another replica) moved the account since this one last saw it. `retried` is caught up and decided
 * again; `busy` spent the conflict budget and answered 503. With one replica both stay near 0; a
 * rate that grows with replicas is the cost of replicas deciding on the same accounts (issue 25).
 */
export class AccountWriterMetrics {
  readonly registry = new Registry();

  readonly conflicts = new Counter({
    name: 'corridor_account_writer_conflicts_total',
    help: 'Internal account appends refused for a stale version (another writer moved the account), by outcome: retried or busy (503).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
}
