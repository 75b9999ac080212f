import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { newId, newUuid, type RequestContext } from '@corridor/contracts';
import { consoleLogger, EventSourcing, EventSourcingModule, snapshotEveryFrom } from '@corridor/event-store';
import { createTestDatabase, deleteEventsStream, requireNats, testUrls, uniqueSubjectPrefix } from '@corridor/testing';
import { toIntegrationEvent } from '../apps/accounts/src/integration-events';
import { operationWindowFrom } from '../apps/accounts/src/config';
import { AccountWriter, LEDGER_OPTIONS } from '../apps/accounts/src/internal-accounts/account-writer';
import { creditAccount } from '../apps/accounts/src/internal-accounts/credit-account';
import { systemAccountId } from '../apps/accounts/src/internal-accounts/internal-account';
import { internalAccountViewProjection } from '../apps/accounts/src/internal-accounts/internal-account-view.projection';
import { openInternalAccount } from '../apps/accounts/src/internal-accounts/open-internal-account';

// Flat as history grows (issue 17, item 3; docs/decisions/0018): a ledger command on a fresh
// internal account next to the same command on one with BENCH_MOVEMENTS (default 1,000,000)
// movements, through the accounts service's own writer (AccountWriter, in process: load → decide
// → append → read-your-writes), on a database of its own.
//
// The history is written straight into accounts.events in bulk (valid AccountCredited events, each
// with its own operation id, 100,000 per statement): appending 10^6 events through the command path
// would take far longer than the measurement. The read model's row and the projection and outbox
// checkpoints are set to match, so nothing replays or publishes the bulk history during the run.
//
// Each phase runs in a child process of its own, so its RSS is that phase's alone:
//   before          what every cold command cost before snapshots and the window: the whole stream
//                   read and folded, every operation id kept (SNAPSHOT_EVERY=0, a window of 10^9);
//   first-snapshot  today's rules on an account whose history has no snapshot yet: one full read,
//                   then the snapshot is taken (a one-time cost per account);
//   from-snapshot   today's rules once the snapshot exists: the cold command reads the snapshot and
//                   the events after it. Its RSS is "the accounts process after 10^6 movements".
// Per phase: the cold command (the account not in memory) and the median / p99 of WARM commands
// (the account in memory; each new operation id on the old account is also checked against the
// account's index, since its window has forgotten ids).
//   npm run bench:long-stream                     (BENCH_MOVEMENTS=1000000, BENCH_WARM=50)
//   BENCH_MOVEMENTS=100000 npm run bench:long-stream

const MOVEMENTS = Number(process.env['BENCH_MOVEMENTS'] ?? 1_000_000);
const WARM = Number(process.env['BENCH_WARM'] ?? 50);
const BULK_BATCH = 100_000;
const phases = ['before', 'first-snapshot', 'from-snapshot'] as const;
type Phase = (typeof phases)[number];
const phaseEnv: Record<Phase, Record<string, string>> = {
  before: { SNAPSHOT_EVERY: '0', LEDGER_OPERATION_WINDOW: '1000000000' },
  'first-snapshot': {},
  'from-snapshot': {},
};

type Setup = { databaseUrl: string; subjectPrefix: string; platformId: string; freshId: string; oldId: string; warmUpId: string };
type PhaseResult = {
  phase: Phase;
  fresh: { coldMs: number; warmP50: number; warmP99: number };
  old: { coldMs: number; warmP50: number; warmP99: number };
  snapshotVersion: number | null;
  rssMb: number;
  heapUsedMb: number;
};

const round = (value: number): number => Math.round(value * 10) / 10;
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
};
const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

const context = (platformId: string): RequestContext => ({
  platformId,
  correlationId: newUuid(),
  requestId: newUuid(),
  actor: { kind: 'token', tokenId: 'ApiToken:bench' },
});

/** The accounts service's writer and event sourcing, as the app wires them, without NATS controllers. */
const startAccounts = async (
  setup: Setup,
): Promise<{ app: INestApplicationContext; writer: AccountWriter; eventSourcing: EventSourcing }> => {
  @Module({
    imports: [
      EventSourcingModule.forRoot({
        service: 'accounts',
        connectionString: setup.databaseUrl,
        schema: 'accounts',
        natsUrl: testUrls.nats(),
        subjectPrefix: setup.subjectPrefix,
        migrationsDirectory: join(__dirname, '../apps/accounts/src/migrations'),
        projections: [internalAccountViewProjection],
        toIntegrationEvent,
        logger: consoleLogger('accounts', 'warn'),
        // The phase's settings (phaseEnv) arrive as the service's would: in the environment of this child process.
        snapshotEvery: snapshotEveryFrom(process.env),
      }),
    ],
    providers: [{ provide: LEDGER_OPTIONS, useValue: { operationWindow: operationWindowFrom(process.env) } }, AccountWriter],
  })
  class BenchAccountsModule {}
  const app = await NestFactory.createApplicationContext(BenchAccountsModule, { logger: ['error'] });
  await app.init();
  return { app, writer: app.get(AccountWriter), eventSourcing: app.get(EventSourcing) };
};

const credit = (writer: AccountWriter, accountId: string, platformId: string, operationId: string) =>
  writer.write(accountId, context(platformId), (state) =>
    creditAccount(
      {
        type: 'CreditAccount',
        data: {
          accountId,
          platformId,
          operationId,
          amount: 1n,
          currency: 'USD',
          cause: { kind: 'FUNDING', id: operationId },
          counterAccountId: systemAccountId('FUNDING_RAIL', 'USD'),
        },
        metadata: { now: new Date() },
      },
      state,
    ),
  );

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

/** One phase, in its own process: cold then warm commands on both accounts, then its memory. */
const runPhase = async (phase: Phase, setup: Setup): Promise<PhaseResult> => {
  const { app, writer, eventSourcing } = await startAccounts(setup);
  try {
    const measure = async (accountId: string) => {
      const coldMs = await timed(() => credit(writer, accountId, setup.platformId, `${phase}-cold-${newUuid()}`));
      const warm: number[] = [];
      for (let index = 0; index < WARM; index += 1)
        warm.push(await timed(() => credit(writer, accountId, setup.platformId, `${phase}-warm-${newUuid()}`)));
      return { coldMs: round(coldMs), warmP50: percentile(warm, 50), warmP99: percentile(warm, 99) };
    };
    // A third account takes the process's first commands (JIT, prepared statements, pool), so
    // "cold" below means only that the measured account is not in the writer's memory.
    for (let index = 0; index < 10; index += 1) await credit(writer, setup.warmUpId, setup.platformId, `${phase}-warm-up-${newUuid()}`);
    const fresh = await measure(setup.freshId);
    const old = await measure(setup.oldId);
    // The snapshot is written after the reply; give it a moment to land before reading it back.
    let snapshotVersion: number | null = null;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const [row] = await eventSourcing.read<{ version: number }>(
        'bench-snapshot',
        'SELECT version FROM accounts.snapshots WHERE stream_id = $1',
        [setup.oldId],
      );
      snapshotVersion = row?.version ?? null;
      if (phase === 'before' || snapshotVersion !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    return { phase, fresh, old, snapshotVersion, rssMb: mb(memory.rss), heapUsedMb: mb(memory.heapUsed) };
  } finally {
    await app.close();
  }
};

/** Writes the old account's history straight into the store, then aligns the read model and checkpoints with it. */
const writeHistory = async (setup: Setup): Promise<void> => {
  const pg = new Client({ connectionString: setup.databaseUrl });
  await pg.connect();
  try {
    const metadata = JSON.stringify({ ...context(setup.platformId), schemaVersion: 1, occurredAt: new Date().toISOString() });
    const at = new Date().toISOString();
    for (let from = 2; from <= MOVEMENTS + 1; from += BULK_BATCH) {
      const to = Math.min(MOVEMENTS + 1, from + BULK_BATCH - 1);
      await pg.query(
        `INSERT INTO accounts.events (event_id, stream_id, stream_position, type, data, metadata)
         SELECT gen_random_uuid(), $1, g, 'AccountCredited',
           jsonb_build_object('accountId', $1::text, 'operationId', 'bulk-' || g, 'amount', '1', 'currency', 'USD',
             'cause', jsonb_build_object('kind', 'FUNDING', 'id', 'bulk-' || g), 'counterAccountId', $2::text, 'creditedAt', $3::text),
           $4::jsonb
         FROM generate_series($5::int, $6::int) AS g`,
        [setup.oldId, systemAccountId('FUNDING_RAIL', 'USD'), at, metadata, from, to],
      );
      process.stdout.write(`  ${to - 1} movements written\r`);
    }
    process.stdout.write('\n');
    await pg.query('UPDATE accounts.internal_accounts SET available = (available::numeric + $2)::text WHERE id = $1', [
      setup.oldId,
      MOVEMENTS,
    ]);
    const head = (await pg.query<{ head: string }>('SELECT max(global_position)::text AS head FROM accounts.events')).rows[0]!.head;
    await pg.query('UPDATE accounts.projection_checkpoints SET position = $1', [head]);
    await pg.query(
      `INSERT INTO accounts.outbox_checkpoints (name, position) VALUES ('accounts-outbox', $1) ON CONFLICT (name) DO UPDATE
       SET position = excluded.position`,
      [head],
    );
    await pg.query('ANALYZE accounts.events');
  } finally {
    await pg.end();
  }
};

const runChild = (phase: Phase, setup: Setup): Promise<PhaseResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=6144', '-r', '@swc-node/register', __filename], {
      cwd: join(__dirname, '..'),
      env: { ...process.env, ...phaseEnv[phase], BENCH_PHASE: phase, BENCH_SETUP: JSON.stringify(setup) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = output.split('\n').find((text) => text.startsWith('RESULT '));
      if (code !== 0 || !line) reject(new Error(`Phase ${phase} exited with ${code}:\n${output}`));
      else resolve(JSON.parse(line.slice('RESULT '.length)) as PhaseResult);
    });
  });

const main = async (): Promise<void> => {
  await requireNats();
  const database = await createTestDatabase(testUrls.postgresAdmin(), 'corridor_bench_');
  const setup: Setup = {
    databaseUrl: database.url,
    subjectPrefix: uniqueSubjectPrefix(),
    platformId: newId('Platform'),
    freshId: newId('InternalAccount'),
    oldId: newId('InternalAccount'),
    warmUpId: newId('InternalAccount'),
  };
  try {
    console.log(`Long stream: a ledger command on a fresh account vs one with ${MOVEMENTS.toLocaleString('en')} movements.`);
    // Both accounts opened through the command path, so the read model has their rows.
    const { app, writer } = await startAccounts(setup);
    for (const accountId of [setup.freshId, setup.oldId, setup.warmUpId]) {
      const data = {
        accountId,
        platformId: setup.platformId,
        customerId: null,
        accountType: 'INTERNAL_FIAT' as const,
        currency: 'USD',
        status: 'ACTIVE' as const,
        operationId: `open:${accountId}`,
      };
      await writer.apply(
        accountId,
        context(setup.platformId),
        (state) => openInternalAccount({ type: 'OpenInternalAccount', data, metadata: { now: new Date() } }, state),
        { assumeNew: true },
      );
    }
    await app.close();
    const writing = performance.now();
    await writeHistory(setup);
    console.log(`History written in ${Math.round((performance.now() - writing) / 1000)} s.`);

    const results: PhaseResult[] = [];
    for (const phase of phases) {
      console.log(`Phase ${phase} …`);
      results.push(await runChild(phase, setup));
    }
    const table = results.map((result) => ({
      phase: result.phase,
      'fresh cold ms': result.fresh.coldMs,
      [`${MOVEMENTS} cold ms`]: result.old.coldMs,
      'fresh warm p50/p99 ms': `${result.fresh.warmP50} / ${result.fresh.warmP99}`,
      [`${MOVEMENTS} warm p50/p99 ms`]: `${result.old.warmP50} / ${result.old.warmP99}`,
      'snapshot at': result.snapshotVersion ?? '-',
      'RSS MB': result.rssMb,
      'heap MB': result.heapUsedMb,
    }));
    console.table(table);
    console.log(JSON.stringify({ bench: 'long-stream', movements: MOVEMENTS, warm: WARM, results }));
  } finally {
    // The bench's JetStream stream is clean-up only; a failure to remove it must not hide the result,
    // but it is said, with the stream's prefix, so a leftover stream can be found and removed.
    await deleteEventsStream(setup.subjectPrefix).catch((error: unknown) =>
      console.warn(
        `long-stream: could not delete the JetStream stream of ` +
          `prefix ${setup.subjectPrefix}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
    await database.drop();
  }
};

const phase = process.env['BENCH_PHASE'] as Phase | undefined;
if (phase) {
  runPhase(phase, JSON.parse(process.env['BENCH_SETUP']!) as Setup)
    .then((result) => {
      process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
