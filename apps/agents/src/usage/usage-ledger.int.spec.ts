// The usage ledger on real PostgreSQL: fifty concurrent reservations against a daily limit never
// pass it together; a release gives back exactly what was reserved, once; the counters of a new
// day (service clock, UTC) start at zero while the month's carry on.
import type { INestMicroservice } from '@nestjs/common';
import { createServiceApp } from '@corridor/messaging';
import { createControllableClock, deleteEventsStream, requireNats, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { ActionExecutor } from '../actions/action-executor';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { evaluateSpend } from '../policy/evaluate-policy';
import type { StoredPolicy } from '../policy/policy';
import { UsageLedger } from './usage-ledger';

const database = useTestDatabase();
const clock = createControllableClock(new Date('2026-03-20T12:00:00.000Z'));
let subjectPrefix: string;
let app: INestMicroservice;

const policy: StoredPolicy = {
  permissions: ['CREATE_TRANSFERS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: {
    currency: 'USD',
    perTransactionLimit: '1000',
    dailyLimit: '10000',
    dailyTransactionLimit: 100,
    monthlyLimit: '1000000',
  },
};
const spend = { permission: 'CREATE_TRANSFERS' as const, accountId: 'InternalAccount:a', amount: 700n, currency: 'USD' };

beforeAll(async () => {
  await requireNats();
  subjectPrefix = uniqueSubjectPrefix();
  const { healthPort: _healthPort, ...defaults } = loadConfig({});
  const config = { ...defaults, healthPort: 0, databaseUrl: database.url, subjectPrefix, logLevel: 'warn', executionSweepSeconds: 3_600 };
  app = await createServiceApp(AppModule.register(config, clock), {
    service: 'agents',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await app.listen();
});

afterAll(async () => {
  await app?.close();
  await deleteEventsStream(subjectPrefix);
});

describe('UsageLedger', () => {
  it('lets 50 concurrent reservations of 700 against a daily limit of 10000 pass only 14 times', async () => {
    const ledger = app.get(UsageLedger);
    const now = new Date('2026-03-10T12:00:00.000Z');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) =>
        ledger.reserve('Agent:concurrent', `AgentAction:c-${index}`, now, (usage) => evaluateSpend(policy, spend, usage, {})),
      ),
    );
    const passed = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(passed).toHaveLength(14);
    expect(refused.every((outcome) => (outcome.reason as { code?: string }).code === 'VELOCITY_LIMIT_EXCEEDED')).toBe(true);
    expect(await ledger.read('Agent:concurrent', now)).toEqual({ dailyCount: 14, dailySpend: 9_800n, monthlySpend: 9_800n });
  });

  it('gives a reservation back once, and a refused one was never taken', async () => {
    const ledger = app.get(UsageLedger);
    const now = new Date('2026-03-11T12:00:00.000Z');
    await ledger.reserve('Agent:release', 'AgentAction:r-1', now, (usage) => evaluateSpend(policy, spend, usage, {}));
    await ledger.reserve('Agent:release', 'AgentAction:r-2', now, (usage) => evaluateSpend(policy, spend, usage, {}));
    await expect(
      ledger.reserve('Agent:release', 'AgentAction:r-3', now, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await ledger.release('AgentAction:r-1')).toBe(true);
    expect(await ledger.release('AgentAction:r-1')).toBe(false);
    expect(await ledger.release('AgentAction:r-3')).toBe(false);
    expect(await ledger.read('Agent:release', now)).toEqual({ dailyCount: 1, dailySpend: 700n, monthlySpend: 700n });
  });

  it('a retried request reserves again under the same action id once its reservation was given back, never twice while held', async () => {
    const ledger = app.get(UsageLedger);
    const now = new Date('2026-03-12T12:00:00.000Z');
    await ledger.reserve('Agent:retry', 'AgentAction:retry-1', now, (usage) => evaluateSpend(policy, spend, usage, {}));
    await expect(
      ledger.reserve('Agent:retry', 'AgentAction:retry-1', now, (usage) => evaluateSpend(policy, spend, usage, {})),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await ledger.read('Agent:retry', now)).toEqual({ dailyCount: 1, dailySpend: 700n, monthlySpend: 700n });
    expect(await ledger.release('AgentAction:retry-1')).toBe(true);
    await ledger.reserve('Agent:retry', 'AgentAction:retry-1', now, (usage) => evaluateSpend(policy, spend, usage, {}));
    expect(await ledger.read('Agent:retry', now)).toEqual({ dailyCount: 1, dailySpend: 700n, monthlySpend: 700n });
    expect(await ledger.release('AgentAction:retry-1')).toBe(true);
    expect(await ledger.read('Agent:retry', now)).toEqual({ dailyCount: 0, dailySpend: 0n, monthlySpend: 0n });
  });

  it("starts a new day at zero at midnight UTC and keeps the month's spend", async () => {
    const ledger = app.get(UsageLedger);
    const lastMoment = new Date('2026-03-12T23:59:59.999Z');
    const nextDay = new Date('2026-03-13T00:00:00.000Z');
    for (let index = 0; index < 14; index += 1)
      await ledger.reserve('Agent:midnight', `AgentAction:m-${index}`, lastMoment, (usage) => evaluateSpend(policy, spend, usage, {}));
    await expect(
      ledger.reserve('Agent:midnight', 'AgentAction:m-over', lastMoment, (usage) => evaluateSpend(policy, spend, usage, {})),
    ).rejects.toMatchObject({ code: 'VELOCITY_LIMIT_EXCEEDED' });
    await ledger.reserve('Agent:midnight', 'AgentAction:m-next', nextDay, (usage) => evaluateSpend(policy, spend, usage, {}));
    expect(await ledger.read('Agent:midnight', nextDay)).toEqual({ dailyCount: 1, dailySpend: 700n, monthlySpend: 10_500n });
  });

  it('the executor sweep gives back a reservation whose action was never recorded, once it is two minutes old', async () => {
    const ledger = app.get(UsageLedger);
    const reservedAt = clock.now();
    await ledger.reserve('Agent:orphan', 'AgentAction:019542f5-b3e7-1d02-0000-00000000dead', reservedAt, (usage) =>
      evaluateSpend(policy, spend, usage, {}),
    );
    clock.advance(60_000);
    await app.get(ActionExecutor).sweep();
    expect((await ledger.read('Agent:orphan', reservedAt)).dailyCount).toBe(1);
    clock.advance(61_000);
    await app.get(ActionExecutor).sweep();
    expect(await ledger.read('Agent:orphan', reservedAt)).toEqual({ dailyCount: 0, dailySpend: 0n, monthlySpend: 0n });
  });
});
