// `npm run replay -- --rebuild customers --shadow` against a running stack (issue 24 item 4): the
// customers read model is rebuilt beside the live table while platforms keep reading and writing,
// the diff names the one row corrupted on purpose, and only `--swap` puts the corrected row in place.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platform: Credentials;
let db: Client;

const replay = (...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, '../scripts/replay.ts'), ...args], {
      cwd: join(__dirname, '..'),
      env: { ...process.env, DATABASE_URL: stack.database.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });

const customer = (suffix: string) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: `shadow-${suffix}`,
  region: 'US',
  fullName: `Shadow ${suffix}`,
  email: `shadow.${suffix}@example.com`,
  birthDate: '1990-01-15',
  nationality: 'US',
  address: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
});

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'shadow-rebuild');
  platform = (await stack.createPlatform()).token as Credentials;
  db = new Client({ connectionString: stack.database.url });
  await db.connect();
}, 300_000);

afterAll(async () => {
  api?.saveReport();
  await db?.end();
  await stack?.close();
});

describe('replay --rebuild', () => {
  it('refuses a bare --rebuild and explains the choice between --shadow, --swap and --destructive', async () => {
    const { code, stderr } = await replay('--rebuild', 'customers');
    expect(code).toBe(1);
    expect(stderr).toMatch(/--rebuild needs a choice[\s\S]*--shadow[\s\S]*--swap[\s\S]*--destructive/);
  });

  it('rebuilds beside the live table while it serves, names the corrupted row, and swaps only when asked', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 30; index += 1) {
      const created = await api.call('POST', '/customers', { auth: platform, body: customer(String(index)) });
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
    const victim = ids[7]!;
    expect((await api.call('GET', `/customers/${victim}`, { auth: platform })).body.kycStatus).toBe('APPROVED');
    await db.query(`UPDATE customers.customers SET verification_status = 'REJECTED' WHERE id = $1`, [victim]);
    expect((await api.call('GET', `/customers/${victim}`, { auth: platform })).body.kycStatus).toBe('REJECTED');

    // Platforms keep listing (every customer must always be there) and creating during the rebuild.
    let running = true;
    const misses: string[] = [];
    let reads = 0;
    const reader = (async () => {
      while (running) {
        const listed = await api.call('GET', '/customers?limit=100', { auth: platform });
        const seen = new Set((listed.body.data as { id: string }[]).map((row) => row.id));
        for (const id of ids) if (!seen.has(id)) misses.push(id);
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const created: string[] = [];
    const writer = (async () => {
      // At most 40, so every customer still fits in the reader's one page of 100.
      while (running && created.length < 40) {
        const reply = await api.call('POST', '/customers', { auth: platform, body: customer(`late-${created.length}`) });
        if (reply.status === 201) created.push(reply.body.id as string);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    try {
      const built = await replay('--rebuild', 'customers', '--shadow');
      expect(built.code).toBe(0);
      expect(built.stdout).toMatch(/1 different/);
      expect(built.stdout).toContain(`${victim}: verification_status live "REJECTED" rebuilt "APPROVED"`);
      // Not a terminal: no progress bar in the output, only the outcome lines.
      expect(built.stderr).not.toMatch(/ETA/);
      expect(built.stderr).toMatch(/nothing live changed; to put the rebuilt table in place: npm run replay -- --rebuild customers --swap/);
      // Nothing live changed: the corruption is still what platforms read.
      expect((await api.call('GET', `/customers/${victim}`, { auth: platform })).body.kycStatus).toBe('REJECTED');

      const swapped = await replay('--rebuild', 'customers', '--swap');
      expect(swapped.code).toBe(0);
      expect(swapped.stderr).toMatch(/swapped: customers\.customers is the rebuilt table/);
    } finally {
      running = false;
      await Promise.all([reader, writer]);
    }
    expect(reads).toBeGreaterThan(0);
    expect(misses).toEqual([]);
    expect((await api.call('GET', `/customers/${victim}`, { auth: platform })).body.kycStatus).toBe('APPROVED');
    // Customers created during the rebuild and the swap are all there, once.
    const after = await api.call('GET', '/customers?limit=100', { auth: platform });
    expect(after.body.totalCount).toBe(ids.length + created.length);
    const again = await api.call('POST', '/customers', { auth: platform, body: customer('after-swap') });
    expect(again.status).toBe(201);
    expect((await api.call('GET', `/customers/${again.body.id}`, { auth: platform })).status).toBe(200);
  });
});
