// `npm run replay` (a stream, --status) reads a service's events through the port of the store the
// service's environment names, and `npm run eventstore:copy` refuses what it cannot do before it
// writes anything. Run as an operator runs them: a child process against a real database.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { createPostgresEventStore, ensureEventStoreSchema } from '@corridor/event-store';
import { useTestDatabase } from '@corridor/testing';

const database = useTestDatabase();

const run = (
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('EVENT_STORE') && key !== 'EVENTSTORE_URL'),
    );
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, script), ...args], {
      cwd: join(__dirname, '..'),
      env: { ...clean, DATABASE_URL: database.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });

let head: bigint;

beforeAll(async () => {
  await ensureEventStoreSchema(database.url, 'accounts');
  const store = createPostgresEventStore({ connectionString: database.url, schema: 'accounts' });
  const metadata = { platformId: 'Platform:tools', correlationId: 'c', requestId: 'r', actor: { kind: 'system' as const, name: 'seed' } };
  const appended = await store.appendToStream(
    'InternalAccount:tools',
    [
      { type: 'Seeded', data: { n: 1 } },
      { type: 'Seeded', data: { n: 2 } },
    ],
    {
      expectedVersion: 0,
      metadata,
    },
  );
  head = appended.events[1]!.globalPosition;
  await store.close();
  const client = new Client({ connectionString: database.url });
  await client.connect();
  await client.query(`INSERT INTO accounts.projection_checkpoints (name, version, position) VALUES ('internal-accounts', 1, $1)`, [
    String(head - 1n),
  ]);
  await client.query(`INSERT INTO accounts.outbox_checkpoints (name, position) VALUES ('accounts-outbox', $1)`, [String(head)]);
  await client.end();
});

describe('npm run replay', () => {
  it('--status measures each checkpoint against the head of the store the service uses, and names that store', async () => {
    const { code, stdout } = await run('replay.ts', ['--status', '--json']);
    expect(code).toBe(0);
    const accounts = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { service: string; eventStore: string; head: string; outbox: { lag: string }[] })
      .find((line) => line.service === 'accounts');
    expect(accounts).toMatchObject({ eventStore: 'postgres', head: head.toString(), outbox: [{ lag: '0' }] });
  });

  it('prints a stream from the store, and refuses a KurrentDB choice without its server', async () => {
    const printed = await run('replay.ts', ['InternalAccount:tools']);
    expect(printed.stdout).toContain('accounts service, 2 events, version 2');
    const refused = await run('replay.ts', ['InternalAccount:tools'], { EVENT_STORE_ACCOUNTS: 'kurrentdb' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('EVENT_STORE_ACCOUNTS=kurrentdb needs EVENTSTORE_URL');
  });
});

describe('npm run eventstore:copy', () => {
  it('needs a service and a KurrentDB server, and says so', async () => {
    const noServer = await run('eventstore-copy.ts', ['--service', 'accounts']);
    expect([noServer.code, noServer.stderr]).toEqual([1, expect.stringContaining('EVENTSTORE_URL is not set')]);
    const unknown = await run('eventstore-copy.ts', ['--service', 'nope'], { EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false' });
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('Unknown service "nope"')]);
  });
});
