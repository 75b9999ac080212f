import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import { newUuid, type RequestContext, subjects } from '@corridor/contracts';
import { MessagingModule, ServiceClient } from '@corridor/messaging';
import { assertLedgerConserved } from '@corridor/testing';
import { basic, type Credentials } from '../tests/support/api';
import { startStack } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { benchClient } from './http';
import { bareHopCeiling, reportBench } from './report';

// Card authorizations (issue 14, "Must show"): every app as its own process on a fresh database,
// 32 clients each looping POST /sandbox/cards/{id}/simulate/authorization (own Idempotency-Key,
// 1 minor unit, an approving descriptor) on ONE active card funded by one internal account.
// An authorization is: gateway → cards (card lookup, stream read) → accounts ledger hold over NATS
// → the card transaction's stream append and read model. Reports authorizations/s and p50/p99 of
// the HTTP answer, and every non-200 by status (a 5xx fails the bench: exit 1).
//
// The ceiling, in the same run right after: the hop an authorization cannot avoid — ledger holds
// over NATS (ServiceClient straight to the stack's accounts service, no HTTP, no cards service),
// 32 callers on another funded account.
//   npm run bench:cards     (BENCH_SECONDS=15, BENCH_CEILING_SECONDS=10, BENCH_CLIENTS=32)

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 15);
const CEILING_SECONDS = Number(process.env['BENCH_CEILING_SECONDS'] ?? 10);
const CLIENTS = Number(process.env['BENCH_CLIENTS'] ?? 32);
const WARM_UP_SECONDS = 3;
const FUNDING = 1_000_000_000;

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
const sortedOf = (values: number[]): number[] => [...values].sort((a, b) => a - b);
const load = (): number[] => loadavg().map((value) => Math.round(value * 10) / 10);

const main = async (): Promise<void> => {
  console.log('Starting the stack (every app as its own process) …');
  const stack = await startStack({ env: { LOG_LEVEL: 'warn' } });
  const loadAtStart = load();
  try {
    // The bare hop, first, on the quiet stack (or from bench:all).
    const ceilings = await ceilingsFor(['bareHop']);
    const { token, platformId } = await stack.createPlatform();
    const authorization = basic(token as Credentials);
    const { call, setup, firstInternalAccount } = benchClient(stack.baseUrl, authorization);
    /** An APPROVED individual with a funded USD internal account (and, if asked, an ACTIVE card on it). */
    const newFundedAccount = async (index: number, withCard: boolean): Promise<{ usd: string; cardId?: string }> => {
      const customer = await setup('POST', '/customers', {
        customerType: 'INDIVIDUAL',
        fullName: `Card Bench ${index}`,
        currencies: ['USD'],
      });
      const usd = await firstInternalAccount(customer.body.id);
      await setup('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: FUNDING });
      if (!withCard) return { usd };
      const card = await setup('POST', '/cards', {
        cardholderId: customer.body.id,
        platformCardId: `bench-${index}`,
        form: 'VIRTUAL',
        fundingSources: [usd],
      });
      const cardId = card.body.id as string;
      while ((await call('GET', `/cards/${cardId}`)).body?.state !== 'ACTIVE') await new Promise((resolve) => setTimeout(resolve, 50));
      return { usd, cardId };
    };
    const { cardId } = await newFundedAccount(1, true);
    const ceilingAccount = await newFundedAccount(2, false);

    let measuring = false;
    let stopping = false;
    const httpMs: number[] = [];
    let approved = 0;
    const refusals = new Map<string, number>();
    const serverErrors: string[] = [];
    const client = async (): Promise<void> => {
      while (!stopping) {
        const started = performance.now();
        const reply = await call(
          'POST',
          `/sandbox/cards/${cardId}/simulate/authorization`,
          { amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'BENCH COFFEE', mcc: '5814', country: 'US' } },
          { 'Idempotency-Key': randomUUID() },
        );
        const answered = performance.now();
        if (!measuring) continue;
        if (reply.status !== 200) {
          const kind = `${reply.status} ${reply.body?.code ?? ''}`;
          refusals.set(kind, (refusals.get(kind) ?? 0) + 1);
          if (reply.status >= 500) serverErrors.push(`${kind}: ${reply.body?.message ?? ''}`);
          continue;
        }
        httpMs.push(answered - started);
        approved += 1;
      }
    };

    console.log(
      `${CLIENTS} clients: POST /sandbox/cards/{id}/simulate/authorization on one card; ${WARM_UP_SECONDS} s warm-up, ${SECONDS} s ` +
        `measured …`,
    );
    const clients = Array.from({ length: CLIENTS }, () => client());
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_SECONDS * 1000));
    measuring = true;
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    measuring = false;
    const elapsed = (performance.now() - start) / 1000;
    stopping = true;
    await Promise.all(clients);

    // The ceiling: ledger holds over NATS on one other funded account, same number of callers.
    const messaging = await NestFactory.createApplicationContext(
      MessagingModule.forRoot({
        natsUrl: stack.bus.url,
        natsAuth: stack.bus.harness,
        subjectPrefix: stack.subjectPrefix,
        name: 'bench-card-authorizations',
      }),
      { logger: ['error'] },
    );
    await messaging.init();
    const service = messaging.get(ServiceClient);
    const context = (): RequestContext => {
      const requestId = newUuid();
      return { platformId, actor: { kind: 'system', name: 'bench' }, requestId, correlationId: requestId };
    };
    const holdMs: number[] = [];
    let holds = 0;
    let ceilingErrors = 0;
    const ceilingUntil = performance.now() + CEILING_SECONDS * 1000;
    const ceilingStart = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < ceilingUntil) {
          const n = randomUUID();
          const started = performance.now();
          try {
            await service.request(
              subjects.accounts.ledger.hold,
              {
                accountId: ceilingAccount.usd,
                operationId: `hold:${n}`,
                holdId: `CardTransaction:${n}`,
                amount: '1',
                currency: 'USD',
                cause: { kind: 'CARD_SETTLEMENT', id: `CardTransaction:${n}` },
              },
              { context: context(), timeoutMs: 10_000 },
            );
            holdMs.push(performance.now() - started);
            holds += 1;
          } catch {
            ceilingErrors += 1;
          }
        }
      }),
    );
    const ceilingElapsed = (performance.now() - ceilingStart) / 1000;
    await messaging.close();

    const figures = {
      measuredAt: new Date().toISOString(),
      clients: CLIENTS,
      seconds: Math.round(elapsed * 10) / 10,
      authorizationsPerSecond: Math.round((approved / elapsed) * 10) / 10,
      approved,
      httpP50Ms: percentile(sortedOf(httpMs), 50),
      httpP99Ms: percentile(sortedOf(httpMs), 99),
      non200: Object.fromEntries(refusals),
      serverErrors: serverErrors.length,
      ceiling: {
        what: 'ledger holds over NATS on one account (accounts service only, no HTTP, no cards service)',
        seconds: Math.round(ceilingElapsed * 10) / 10,
        holdsPerSecond: Math.round((holds / ceilingElapsed) * 10) / 10,
        holdP50Ms: percentile(sortedOf(holdMs), 50),
        holdP99Ms: percentile(sortedOf(holdMs), 99),
        errors: ceilingErrors,
      },
      machine: { cpus: cpus().length, loadAverageAtStart: loadAtStart, loadAverageAtEnd: load() },
    };
    const share = Math.round((figures.authorizationsPerSecond / Math.max(1, figures.ceiling.holdsPerSecond)) * 100);
    console.log(`  authorizations/s: ${figures.authorizationsPerSecond} (${approved} approved in ${figures.seconds} s)`);
    console.log(`  HTTP answer p50 ${figures.httpP50Ms} ms, p99 ${figures.httpP99Ms} ms`);
    console.log(`  non-200 answers: ${JSON.stringify(figures.non200)}; 5xx: ${figures.serverErrors}`);
    console.log(
      `  ceiling (${figures.ceiling.what}): ${figures.ceiling.holdsPerSecond} holds/s, p50 ${figures.ceiling.holdP50Ms} ms, ` +
        `p99 ${figures.ceiling.holdP99Ms} ms, errors ${figures.ceiling.errors}; authorizations reach ${share} % of it`,
    );
    const conserved = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    console.log(`  ledger conserved: ${JSON.stringify(conserved)}`);
    console.log(
      `  load average ${loadAtStart.join(' ')} at start, ${figures.machine.loadAverageAtEnd.join(' ')} at end, ` +
        `on ${figures.machine.cpus} CPUs`,
    );
    writeFileSync(
      join(__dirname, 'last-run-card-authorizations.json'),
      `${JSON.stringify({ ...figures, shareOfCeilingPercent: share }, null, 2)}\n`,
    );
    reportBench(
      'card authorizations on one card',
      ceilings,
      [
        { label: 'authorizations/s', value: figures.authorizationsPerSecond, unit: 'auths/s', ceiling: bareHopCeiling(ceilings) },
        {
          label: 'authorizations/s',
          value: figures.authorizationsPerSecond,
          unit: 'auths/s',
          ceiling: { label: 'ledger holds over NATS', value: figures.ceiling.holdsPerSecond, unit: 'holds/s' },
        },
        { label: 'HTTP answer p99', value: figures.httpP99Ms, unit: 'ms' },
      ],
      { ...figures, shareOfCeilingPercent: share },
    );
    if (approved === 0) throw new Error('No authorization was approved.');
    if (serverErrors.length > 0)
      throw new Error(`${serverErrors.length} authorizations answered 5xx, first: ${serverErrors.slice(0, 3).join(' | ')}`);
  } finally {
    await stack.close();
  }
};

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
