import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client } from 'pg';
import { eventually } from '@corridor/testing';
import { serviceNames, type Stack, startStack } from '../tests/support/stack';
import { SoakClient } from './client';
import {
  type CheckResult,
  checkAgents,
  checkAgentTenancy,
  checkCardHolds,
  checkCards,
  checkCustomersExactlyOnce,
  checkHonestUnderLimits,
  checkLedger,
  checkPayments,
  checkProjections,
  checkServerErrors,
  checkTenancy,
  checkWebhooks,
  projectionLag,
} from './checks';
import { startSoakReceiver } from './receiver';
import { SoakStats } from './stats';
import { createWorkload, newSoakPlatformState, type SoakPlatform } from './workload';
import { checkWallets, enableWallets, WALLET_CHECK_NAME } from './wallets';
import { checkMemory, type MemoryFigure, memoryFigures, sampleMemory } from './memory';
import { loadConfig as gatewayDefaults } from '../apps/gateway/src/config';
import { checkCardLedger, checkNothingLeftBehind, checkReadAfterCreate, outboxBacklog, unfinishedJobs } from './consistency';
import {
  checkHostile,
  createHostilePlatform,
  type HostilePlatform,
  HOSTILE_ADDRESS,
  HOSTILE_CHECK_NAME,
  startHangingEndpoint,
} from './hostile';

// npm run soak -- --minutes 2 --rate 20 --replicas 2 --chaos: several sandbox platforms using
// Corridor at once on a fresh stack, then the end checks. Exits 1 with the list of failed checks.

type Options = {
  minutes: number;
  rate: number;
  replicas: number;
  chaos: boolean;
  chaosEverySeconds: number;
  platforms: number;
  concurrency: number;
  seed: number;
  report?: string;
  jestJson?: string;
  settleSeconds: number;
  hostile: boolean;
  /** Leave the run's database in place when a check fails, to read what the checks saw. */
  keepDatabaseOnFailure: boolean;
};

const usage =
  'npm run soak -- [--minutes 2] [--rate 20] [--replicas 1] [--chaos] [--chaos-every 20] [--platforms 3] [--concurrency 24] [--seed 1] ' +
  '[--settle-seconds 90] [--hostile] [--keep-database-on-failure] [--report path.json] [--jest-json path.json]';

const parseOptions = (argv: string[]): Options => {
  const options: Options = {
    minutes: 2,
    rate: 20,
    replicas: 1,
    chaos: false,
    chaosEverySeconds: 20,
    platforms: 3,
    concurrency: 24,
    seed: Date.now() % 100_000,
    settleSeconds: 90,
    hostile: false,
    keepDatabaseOnFailure: false,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index]!;
    const value = () => {
      const next = argv[++index];
      if (next === undefined) throw new Error(`${flag} needs a value.\n${usage}`);
      return next;
    };
    const number = () => {
      const parsed = Number(value());
      if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} needs a positive number.\n${usage}`);
      return parsed;
    };
    if (flag === '--minutes') options.minutes = number();
    else if (flag === '--rate') options.rate = number();
    else if (flag === '--replicas') options.replicas = Math.floor(number());
    else if (flag === '--chaos') options.chaos = true;
    else if (flag === '--hostile') options.hostile = true;
    else if (flag === '--keep-database-on-failure') options.keepDatabaseOnFailure = true;
    else if (flag === '--chaos-every') options.chaosEverySeconds = number();
    else if (flag === '--platforms') options.platforms = Math.floor(number());
    else if (flag === '--concurrency') options.concurrency = Math.floor(number());
    else if (flag === '--seed') options.seed = Math.floor(number());
    else if (flag === '--settle-seconds') options.settleSeconds = number();
    else if (flag === '--report') options.report = value();
    else if (flag === '--jest-json') options.jestJson = value();
    else throw new Error(`Unknown option ${flag}.\n${usage}`);
  }
  return options;
};

/** mulberry32: a small seeded generator, so a run's choices can be repeated with --seed. */
const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Connections the soak lets its service processes hold in all, leaving room for its own, migrations and a psql session. */
const SOAK_CONNECTION_BUDGET = 84;
const soakPoolSize = (replicas: number): number =>
  Math.max(4, Math.min(8, Math.floor(SOAK_CONNECTION_BUDGET / (serviceNames.length * replicas))));
const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);
const CHAOS_GRACE_MS = 5_000;
const DRAIN_LIMIT_MS = 60_000;

/** A jest-shaped result so scripts/test-all.sh counts the soak in its "N passed, N failed" line. */
const writeJestJson = (path: string | undefined, passed: boolean, message: string) => {
  if (!path) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    JSON.stringify({
      numPassedTests: passed ? 1 : 0,
      numFailedTests: passed ? 0 : 1,
      numRuntimeErrorTestSuites: 0,
      testResults: [{ name: 'soak', status: passed ? 'passed' : 'failed', message }],
    }),
  );
};

/** The soak's own connection; PostgreSQL may be out of connections (53300) while the stack starts. */
/** What the soak waits to see drained before its end checks; all zero is quiescence. */
const quiescenceBacklog = async (pg: Client, stack: Stack, platforms: SoakPlatform[]) => {
  const behind = (await projectionLag(pg)).filter((row) => row.position < row.head).length;
  // The hostile platform's deliveries never end (its endpoint never answers): only the honest ones are waited for.
  const undelivered = Number(
    (
      await pg.query(
        "SELECT count(*) AS n FROM webhooks.deliveries WHERE status = 'PENDING' AND coalesce(last_status_code, 0) <> 500 AND " +
          'platform_id = ANY($1)',
        [platforms.map((platform) => platform.platformId)],
      )
    ).rows[0].n,
  );
  // Agent actions approved but not executed yet: the agents executor's sweep resumes them (every 5 s, once 10 s due).
  const due = Number((await pg.query('SELECT count(*) AS n FROM agents.agent_actions WHERE execution_due')).rows[0].n);
  const outbox = (await outboxBacklog(pg)).behind.length;
  const imports = (await unfinishedJobs(stack.env['REDIS_URL']!, `${stack.env['REDIS_KEY_PREFIX']}bull`)).get('bulk-imports')?.length ?? 0;
  return { behind, undelivered, due, outbox, imports };
};

const connectWithRetry = async (url: string): Promise<Client> => {
  for (let attempt = 1; ; attempt += 1) {
    const pg = new Client({ connectionString: url });
    try {
      await pg.connect();
      return pg;
    } catch (error) {
      if ((error as { code?: string }).code !== '53300' || attempt >= 60) throw error;
      log("PostgreSQL is out of connections (too many clients); retrying the soak's own connection");
      await sleep(1_000);
    }
  }
};

/** Connections of the whole server and of the soak's database, every second. */
const sampleConnections = (pg: Client, database: string) => {
  const figures = { maxTotal: 0, maxOurs: 0, samples: 0, sampleErrors: 0 };
  const timer = setInterval(() => {
    pg.query<{ total: number; ours: number }>(
      'SELECT count(*)::int AS total, (count(*) FILTER (WHERE datname = $1))::int AS ours FROM pg_stat_activity',
      [database],
    )
      .then(({ rows }) => {
        figures.samples += 1;
        figures.maxTotal = Math.max(figures.maxTotal, rows[0]!.total);
        figures.maxOurs = Math.max(figures.maxOurs, rows[0]!.ours);
      })
      .catch(() => (figures.sampleErrors += 1));
  }, 1_000);
  return { figures, stop: () => clearInterval(timer) };
};

/**
 * SIGKILL a random service replica every few seconds and restart it; each
 * kill opens a window until the replica is healthy again plus a grace.
 */
const runChaos = (stack: Stack, stats: SoakStats, everyMs: number, random: () => number, failures: string[]) => {
  let running = true;
  const done = (async () => {
    while (running) {
      await sleep(everyMs);
      if (!running) break;
      const app = serviceNames[Math.floor(random() * serviceNames.length)]!;
      const replica = Math.floor(random() * stack.replicas);
      const window: (typeof stats.windows)[number] = { app, replica, killedAt: Date.now() };
      stats.windows.push(window);
      log(`chaos: kill -9 ${app} replica ${replica} (pid ${stack.pid(app, replica)})`);
      await stack.kill(app, replica);
      try {
        await stack.start(app, replica);
        window.healthyAt = Date.now();
        window.until = window.healthyAt + CHAOS_GRACE_MS;
        log(`chaos: ${app} replica ${replica} healthy again after ${window.healthyAt - window.killedAt} ms`);
      } catch (error) {
        const output = stack.logs[app].join('').slice(-800).replace(/\s+/g, ' ');
        failures.push(
          `${app} replica ${replica} did not come back after kill -9: ${(error as Error).message.split('\n')[0]} Last output: ${output}`,
        );
        window.until = Number.POSITIVE_INFINITY;
        running = false;
      }
    }
  })();
  return { stop: async () => ((running = false), await done) };
};

/** The gateway's default limits (what a deployment runs unless it sets them), which tests/support/stack.ts lifts for the suites. */
const productionLimits = (): Record<string, string> => {
  const defaults = gatewayDefaults({});
  return {
    RATE_LIMIT_REQUESTS: String(defaults.rateLimitRequests),
    RATE_LIMIT_PLATFORM_REQUESTS: String(defaults.rateLimitPlatformRequests),
    AUTH_FAILURES_PER_ADDRESS: String(defaults.authFailuresPerAddress),
    AUTH_FAILURES_PER_CLIENT: String(defaults.authFailuresPerClient),
  };
};

/** The hostile sandbox platform (soak/hostile.ts): its own credentials, its webhooks to an endpoint that never answers. */
const startHostile = async (stack: Stack, stats: SoakStats, runTag: string): Promise<HostilePlatform> => {
  const created = await stack.createPlatform('SANDBOX');
  const endpoint = await startHangingEndpoint();
  const auth = created.token as SoakPlatform['auth'];
  const patched = await new SoakClient(stack.baseUrl, stats).call('hostile: PATCH /config', auth, 'PATCH', '/config', {
    body: { webhookEndpoint: endpoint.url },
  });
  if (patched.status !== 200) throw new Error(`the hostile platform's PATCH /config answered ${patched.status}: ${patched.text}`);
  log(`hostile platform ${created.platformId}: webhooks to ${endpoint.url} (never answers), attacks from ${HOSTILE_ADDRESS}`);
  return createHostilePlatform(stack.baseUrl, stats, { platformId: created.platformId, auth }, endpoint, runTag);
};

const printReport = (report: any) => {
  const rows = report.operations as {
    operation: string;
    count: number;
    perSecond: number;
    p50Ms: number;
    p99Ms: number;
    retried: number;
    byStatus: Record<string, number>;
  }[];
  const width = Math.max(...rows.map((row) => row.operation.length), 10);
  console.log(
    `\n${'operation'.padEnd(width)}  ${'count'.padStart(6)}  ${'ops/s'.padStart(6)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}` +
      `  ${'retried'.padStart(7)}  statuses`,
  );
  for (const row of rows) {
    const statuses = Object.entries(row.byStatus)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    console.log(
      `${row.operation.padEnd(width)}  ${String(row.count).padStart(6)}  ${row.perSecond.toFixed(2).padStart(6)}` +
        `  ${String(row.p50Ms).padStart(7)}  ${String(row.p99Ms).padStart(7)}  ${String(row.retried).padStart(7)}  ${statuses}`,
    );
  }
  console.log(`\nerrors by status: ${JSON.stringify(report.errorsByStatus)}`);
  console.log(`expected outcomes that are not 2xx (not errors): ${JSON.stringify(report.expectedOutcomes)}`);
  console.log(`webhooks: ${JSON.stringify(report.webhooks)}`);
  console.log(
    `chaos windows: ${report.chaosWindows.length}; connections (pg_stat_activity) max total ${report.connections.maxTotal}, max on the ` +
      (`soak's database ${report.connections.maxOurs}, "too many clients" in the apps' ` +
        `output ${report.connections.tooManyClientsInAppOutput}`),
  );
  console.log(`projection lag (max events behind head): ${report.projectionLagMax}`);
  console.log(
    '\nmemory of each process that lived through the traffic, MB (RSS after a quarter of the traffic → at its end, max; heap floor ' +
      'likewise; growth and slope of what is judged):',
  );
  for (const figure of report.memory.byProcess as MemoryFigure[]) {
    const heap =
      figure.heapFloorAfterWarmUpMb === undefined
        ? 'heap —'.padEnd(22)
        : `heap ${String(figure.heapFloorAfterWarmUpMb).padStart(6)} → ${String(figure.heapFloorEndMb).padStart(6)}`;
    console.log(
      `  ${`${figure.app}#${figure.replica}`.padEnd(12)} RSS ${String(figure.afterWarmUpMb).padStart(6)} ` +
        (`→ ${String(figure.endMb).padStart(6)} ` +
          (`max ${String(figure.maxMb).padStart(6)}  ${heap}  ${figure.judgedOn}: ${figure.growthMb >= 0 ? '+' : ''}${figure.growthMb}` +
            `, ${figure.slopeMbPer10Min >= 0 ? '+' : ''}${figure.slopeMbPer10Min}/10 min`)),
    );
  }
  if (report.hostile) {
    console.log(`\nhostile platform ${report.hostile.platformId} (apart from the figures above):`);
    for (const row of report.hostile.operations)
      console.log(
        `  ${row.operation}: ${row.count}, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, ${Object.entries(row.byStatus)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
      );
    for (const surprise of report.hostile.surprises) console.log(`  ${surprise.count} × ${surprise.kind}`);
  }
  if (report.surprises.length > 0) {
    console.log('\nunexpected answers (not failing by themselves):');
    for (const surprise of report.surprises) console.log(`  ${surprise.count} × ${surprise.kind}: ${surprise.examples[0] ?? ''}`);
  }
  console.log('\nchecks:');
  for (const check of report.checks as CheckResult[]) {
    console.log(
      `  ${check.failures.length > 0 ? 'FAIL' : check.skipped ? 'SKIP' : 'PASS'}` +
        `  ${check.name}${check.skipped ? ` (${check.skipped})` : ''}${check.figures ? `  ${JSON.stringify(check.figures)}` : ''}`,
    );
    for (const failure of check.failures) console.log(`        - ${failure}`);
  }
};

const main = async () => {
  const options = parseOptions(process.argv.slice(2));
  writeJestJson(options.jestJson, false, 'The soak did not finish.');
  const random = seededRandom(options.seed);
  const runTag = `${options.seed.toString(36)}${Date.now().toString(36).slice(-4)}`;
  log(`options ${JSON.stringify(options)}`);
  const stack = await startStack({
    replicas: options.replicas,
    // A 005 transfer fails 3 s after it starts instead of 30, so a short soak still sees it end.
    // With replicas, every service process's pool must fit PostgreSQL's 100 connections (97 for
    // non-superusers) beside the soak's own and the migrations': 2 replicas fit the default 6
    // (7 × 2 × 6 = 84); with more, the soak lowers DATABASE_POOL_SIZE to fit.
    // The gateway's production limits, not the suites' (tests/support/stack.ts lifts them for its
    // bursts from one address): the honest platforms stay under them, the hostile one trips them.
    env: {
      TRANSFER_PENDING_SECONDS: '3',
      LOG_LEVEL: 'warn',
      ...productionLimits(),
      ...(options.replicas > 1 ? { DATABASE_POOL_SIZE: String(soakPoolSize(options.replicas)) } : {}),
    },
  });
  // A CI timeout (SIGTERM) must not leave the stack's processes behind.
  const onSignal = (signal: string) => {
    log(`${signal}: stopping the stack`);
    void stack.close().finally(() => process.exit(2));
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  log(`stack up: ${stack.gatewayUrl}, database ${stack.database.name}, ${options.replicas} replica(s) of ${serviceNames.join(', ')}`);
  let pg = undefined as unknown as Client;
  let connections: ReturnType<typeof sampleConnections> | undefined;
  const memory = sampleMemory(stack);
  const stats = new SoakStats();
  const client = new SoakClient(stack.baseUrl, stats);
  const platforms: SoakPlatform[] = [];
  const chaosFailures: string[] = [];
  const checks: CheckResult[] = [];
  const hostileStats = new SoakStats();
  let hostile: HostilePlatform | undefined;
  let workload: ReturnType<typeof createWorkload> | undefined;
  try {
    pg = await connectWithRetry(stack.database.url);
    connections = sampleConnections(pg, stack.database.name);
    for (let n = 1; n <= options.platforms; n += 1) {
      const created = await stack.createPlatform('SANDBOX');
      const platform: SoakPlatform = {
        name: `platform ${n}`,
        platformId: created.platformId,
        auth: created.token as SoakPlatform['auth'],
        receiver: await startSoakReceiver(
          { ok: 80, deferred: 15, error: 5 },
          random,
          (transactionId) => void workload?.approve(platform, transactionId),
        ),
        ...newSoakPlatformState(),
      };
      const key = await client.call('GET /webhooks/signing-key', platform.auth, 'GET', '/webhooks/signing-key');
      platform.receiver.setPublicKey(key.body?.publicKey ?? '');
      const patched = await client.call('PATCH /config', platform.auth, 'PATCH', '/config', {
        body: { webhookEndpoint: platform.receiver.url },
      });
      if (patched.status !== 200) throw new Error(`PATCH /config answered ${patched.status}: ${patched.text}`);
      platforms.push(platform);
    }
    if (options.hostile) hostile = await startHostile(stack, hostileStats, runTag);
    await enableWallets(client, platforms);
    workload = createWorkload(client, stats, platforms, random, runTag);
    await Promise.all(platforms.map((platform) => workload!.seed(platform)));
    log(
      `${platforms.length} platforms seeded; traffic at ${options.rate} ops/s for ${options.minutes} min, at ` +
        `most ${options.concurrency} in flight`,
    );

    const chaos = options.chaos ? runChaos(stack, stats, options.chaosEverySeconds * 1_000, random, chaosFailures) : undefined;
    const attacks = hostile?.run();
    const trafficStart = Date.now();
    const trafficEnd = trafficStart + options.minutes * 60_000;
    const inFlight = new Set<Promise<void>>();
    let skipped = 0;
    let lastProgress = trafficStart;
    for (let index = 0; Date.now() < trafficEnd; index += 1) {
      if (inFlight.size < options.concurrency) {
        const operation = workload.runOne().finally(() => inFlight.delete(operation));
        inFlight.add(operation);
      } else skipped += 1;
      if (Date.now() - lastProgress >= 15_000) {
        lastProgress = Date.now();
        const lag = await projectionLag(pg).catch(() => []);
        log(
          `${Math.round((lastProgress - trafficStart) / 1000)} s: ${index} operations started, ${inFlight.size} in flight, ${skipped} ` +
            (`skipped at the concurrency bound, 5xx so far ${stats.serverErrors.length}, max projection ` +
              `lag ${Math.max(0, ...lag.map((row) => row.head - row.position))}`),
        );
      }
      await sleep(Math.max(0, trafficStart + ((index + 1) * 1_000) / options.rate - Date.now()));
    }
    const trafficEndedAt = Date.now();
    const trafficSeconds = (trafficEndedAt - trafficStart) / 1_000;
    await chaos?.stop();
    await attacks?.stop();
    log(`traffic stopped; draining ${inFlight.size} operations in flight`);
    await Promise.race([Promise.all(inFlight), sleep(DRAIN_LIMIT_MS)]);
    if (inFlight.size > 0)
      chaosFailures.push(`${inFlight.size} operations still in flight ${DRAIN_LIMIT_MS / 1000} s after the traffic stopped`);

    // Quiescence: projections at head and nothing left to deliver but retries to receivers that answered 500.
    log(`waiting up to ${options.settleSeconds} s for quiescence`);
    const settleDeadline = Date.now() + options.settleSeconds * 1_000;
    await sleep(8_000); // approval windows (5 s) and 005 transfers (3 s) end on their own
    const backlog = await eventually(
      () => quiescenceBacklog(pg, stack, platforms),
      (left) => Object.values(left).every((count) => count === 0),
      { timeoutMs: Math.max(0, settleDeadline - Date.now()), intervalMs: 1_000 },
    );
    if (Object.values(backlog).some((count) => count > 0))
      log(`not quiescent after ${options.settleSeconds} s: ${JSON.stringify(backlog)}`);
    log('running the end checks');
    connections.stop();
    memory.stop();
    const memoryByProcess = memoryFigures(memory.series.values(), trafficStart, trafficEndedAt);
    checks.push(checkServerErrors(stats));
    checks.push(checkHonestUnderLimits(stats));
    checks.push(await checkProjections(pg));
    checks.push(await checkLedger(stack.database.url));
    checks.push(
      await checkCardHolds(pg, platforms).catch((error: Error) => ({
        name: 'holds conserved, card holds included (each answered once, closed when settled)',
        failures: [error.message],
      })),
    );
    checks.push(
      await checkCards(client, platforms).catch((error: Error) => ({
        name: 'every card created exactly once, the issuer suffixes kept',
        failures: [error.message],
      })),
    );
    // First: it records the agents' transactions and unexecuted quotes that checkPayments accounts for.
    checks.push(
      await checkAgents(pg, client, platforms).catch((error: Error) => ({
        name: "every agent action terminal or explainably pending, usage within the policy, agent transactions their agent's",
        failures: [error.message],
      })),
    );
    checks.push(
      await checkPayments(client, platforms).catch((error: Error) => ({
        name: 'every payment terminal or explainably pending, each created exactly once',
        failures: [error.message],
      })),
    );
    checks.push(await checkCustomersExactlyOnce(client, platforms));
    checks.push(await checkWebhooks(pg, platforms));
    checks.push(await checkTenancy(client, platforms));
    checks.push(await checkAgentTenancy(client, platforms));
    checks.push(
      await checkWallets(client, pg, platforms, stack.logs).catch((error: Error) => ({
        name: WALLET_CHECK_NAME,
        failures: [error.message],
      })),
    );
    checks.push(checkReadAfterCreate(platforms));
    checks.push(
      await checkCardLedger(pg).catch((error: Error) => ({
        name: "card transactions' amounts equal their ledger movements",
        failures: [error.message],
      })),
    );
    checks.push(
      await checkNothingLeftBehind(pg, stack.env['REDIS_URL']!, `${stack.env['REDIS_KEY_PREFIX']}bull`).catch((error: Error) => ({
        name: 'no BullMQ job and no outbox event left behind',
        failures: [error.message],
      })),
    );
    if (hostile)
      checks.push(
        await checkHostile(hostile, stack.baseUrl, Number(stack.env['RATE_LIMIT_REQUESTS']), (attempt) =>
          stats.inChaosWindow(attempt),
        ).catch((error: Error) => ({ name: HOSTILE_CHECK_NAME, failures: [error.message] })),
      );
    checks.push({ name: 'chaos and drain', failures: chaosFailures });
    const memoryCheck = checkMemory(memoryByProcess, trafficSeconds / 60);

    const lag = await projectionLag(pg);
    const errorsByStatus: Record<string, number> = {};
    for (const operation of stats.operations.values())
      for (const [status, count] of operation.byStatus)
        if (status === 'conn' || Number(status) >= 400) errorsByStatus[status] = (errorsByStatus[status] ?? 0) + count;
    const report = {
      options,
      trafficSeconds: Math.round(trafficSeconds),
      // The honest platforms' operations only; the hostile platform's are under `hostile`.
      operations: stats.summary(trafficSeconds),
      hostile: hostile
        ? {
            platformId: hostile.platformId,
            operations: hostileStats.summary(trafficSeconds),
            figures: hostile.figures,
            surprises: [...hostileStats.surprises.entries()].map(([kind, entry]) => ({ kind, ...entry })),
          }
        : null,
      errorsByStatus,
      expectedOutcomes: Object.fromEntries(stats.outcomes),
      skippedAtConcurrencyBound: skipped,
      webhooks: Object.fromEntries(platforms.map((platform) => [platform.name, platform.receiver.counts])),
      duplicates: platforms.reduce((sum, platform) => sum + platform.receiver.counts.duplicates, 0),
      projectionLag: lag,
      projectionLagMax: Math.max(0, ...lag.map((row) => row.head - row.position)),
      // PostgreSQL refusing connections shows in the apps' output only; counted here for issue 13 item 5.
      connections: {
        ...connections.figures,
        tooManyClientsInAppOutput: Object.values(stack.logs).flat().join('').split('too many clients').length - 1,
      },
      chaosWindows: stats.windows.map((window) => ({
        ...window,
        durationMs: window.until === undefined || !Number.isFinite(window.until) ? null : window.until - window.killedAt,
        until: undefined,
      })),
      memory: { byProcess: memoryByProcess },
      surprises: [...stats.surprises.entries()].map(([kind, entry]) => ({ kind, ...entry })),
      checks: [...checks, memoryCheck],
      passed: [...checks, memoryCheck].every((check) => check.failures.length === 0),
    };
    printReport(report);
    if (options.report) {
      mkdirSync(dirname(options.report), { recursive: true });
      writeFileSync(options.report, JSON.stringify(report, null, 2));
      log(`report written to ${options.report}`);
    }
    const failed = report.checks.filter((check) => check.failures.length > 0);
    writeJestJson(options.jestJson, failed.length === 0, failed.map((check) => `${check.name}: ${check.failures.join('; ')}`).join('\n'));
    if (failed.length > 0) {
      console.log(`\nSOAK FAILED: ${failed.map((check) => check.name).join('; ')}`);
      process.exitCode = 1;
    } else console.log('\nSOAK PASSED');
  } finally {
    connections?.stop();
    memory.stop();
    // The verdict is already printed; a connection the server dropped has nothing left to close.
    await pg?.end().catch(() => undefined);
    await Promise.all(platforms.map((platform) => platform.receiver.close()));
    await hostile?.endpoint.close();
    const keepDatabase = options.keepDatabaseOnFailure && process.exitCode === 1;
    await stack.close({ keepDatabase });
    if (keepDatabase) log(`the database ${stack.database.name} is kept; drop it with: psql -c 'DROP DATABASE "${stack.database.name}"'`);
  }
};

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: Error) => {
    console.error(`SOAK ERROR: ${error.stack ?? error.message}`);
    process.exit(2);
  },
);
