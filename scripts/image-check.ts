// The production image's build steps without Docker (the CI machine has no Docker engine): compile
// into a clean folder, install production dependencies only with `npm ci --omit=dev`, migrate with
// the compiled migrate script, then start every app from the compiled output with NODE_ENV=production
// and wait until each is ready, as the image's HEALTHCHECK does. Prints the production install's
// size and each app's cold start, and fails (exit 1) naming the step and the app's output.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';

type App = { name: string; healthPort: number | null };

const root = join(__dirname, '..');
const work = join(root, 'var/image-check');
const apps = (require(join(root, 'scripts/apps.json')) as { apps: App[] }).apps;
// The image runs Node 24 (node:24 base); here the node@24 devDependency is that runtime.
const nodeBinary = join(root, 'node_modules/node/bin/node');
const READY_TIMEOUT_MS = 120_000;
const adminUrl = process.env['DATABASE_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });

const timed = <T>(label: string, work: () => T): T => {
  const started = Date.now();
  const result = work();
  console.log(`image-check: ${label} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
};

const sizeMb = (path: string): number =>
  Number(execFileSync('du', ['-sk', realpathSync(path)], { encoding: 'utf8' }).split('\t')[0]) / 1024;

const waitReady = async (url: string, child: ChildProcess, output: string[]): Promise<number> => {
  const started = Date.now();
  while (Date.now() - started < READY_TIMEOUT_MS) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}:\n${output.join('')}`);
    const ok = await fetch(url).then(
      (reply) => reply.ok,
      () => false,
    );
    if (ok) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not ready at ${url} within ${READY_TIMEOUT_MS} ms:\n${output.join('')}`);
};

const withDatabase = async <T>(use: (url: string) => Promise<T>): Promise<T> => {
  const name = `corridor_image_check_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    return await use(adminUrl.replace(/\/[^/]*$/, `/${name}`));
  } finally {
    await admin
      .query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      .catch((error: Error) => console.error(`image-check: could not drop ${name}: ${error.message}`));
    await admin.end();
  }
};

/** Every app from dist/, all at once (the gateway is ready only when every service answers it). */
const startAll = async (env: Record<string, string>): Promise<void> => {
  const children: ChildProcess[] = [];
  try {
    const started = await Promise.all(
      apps.map(async (app) => {
        const port = await freePort();
        const output: string[] = [];
        const child = spawn(nodeBinary, ['--enable-source-maps', `dist/apps/${app.name}/src/main.js`], {
          cwd: work,
          env: { ...process.env, ...env, ...(app.name === 'gateway' ? { PORT: String(port) } : { HEALTH_PORT: String(port) }) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
        const ms = await waitReady(`http://127.0.0.1:${port}/health/ready`, child, output).catch((error: Error) => {
          throw new Error(`${app.name}: ${error.message}`);
        });
        return `${app.name} ${(ms / 1000).toFixed(1)} s`;
      }),
    );
    console.log(
      `image-check: every app ready from compiled output with production dependencies (cold start, all at once): ${started.join(', ')}`,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
};

/** One service started alone, the image's way and the development way, one after the other: the cold-start figures. */
const coldStarts = async (env: Record<string, string>): Promise<void> => {
  const ways = [
    { label: 'compiled, production dependencies', cwd: work, args: ['dist/apps/platform/src/main.js'] },
    {
      label: 'TypeScript through swc-node, development install',
      cwd: root,
      args: ['-r', '@swc-node/register', 'apps/platform/src/main.ts'],
    },
  ];
  const figures: string[] = [];
  for (const way of ways) {
    const port = await freePort();
    const output: string[] = [];
    const child = spawn(nodeBinary, way.args, {
      cwd: way.cwd,
      env: { ...process.env, ...env, HEALTH_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    try {
      figures.push(`${way.label} ${((await waitReady(`http://127.0.0.1:${port}/health/ready`, child, output)) / 1000).toFixed(1)} s`);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  console.log(`image-check: platform alone, cold start to ready (a figure, not a check): ${figures.join('; ')}`);
};

const main = async (): Promise<void> => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  timed('compiled into var/image-check/dist', () =>
    execFileSync(process.execPath, ['-r', '@swc-node/register', join(root, 'scripts/build.ts'), 'var/image-check/dist'], {
      stdio: 'inherit',
    }),
  );
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(work, file));
  timed('npm ci --omit=dev', () =>
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: work, stdio: 'inherit' }),
  );
  console.log(
    `image-check: production node_modules ${sizeMb(join(work, 'node_modules')).toFixed(0)} MB (development ` +
      `install: ${sizeMb(join(root, 'node_modules')).toFixed(0)} MB)`,
  );
  await withDatabase(async (databaseUrl) => {
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      CORRIDOR_SUBJECT_PREFIX: `imagecheck${process.pid}`,
      REDIS_KEY_PREFIX: `imagecheck${process.pid}`,
      LOG_LEVEL: 'warn',
      BLOB_DIR: join(work, 'blobs'),
      WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    timed('migrated with dist/scripts/migrate.js', () =>
      execFileSync(nodeBinary, ['dist/scripts/migrate.js'], { cwd: work, env: { ...process.env, ...env }, stdio: 'inherit' }),
    );
    await startAll(env);
    await coldStarts(env);
  });
  rmSync(work, { recursive: true, force: true });
};

main().catch((error: unknown) => {
  console.error(`image-check FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
