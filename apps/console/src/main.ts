import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@corridor/messaging';
import { databaseUrl } from '../../../scripts/services';
import { ConsoleReader } from './console-reader';
import { startConsoleServer } from './console-server';
import { parseOperatorCredentials } from './operator-auth';

// npm run console: the operators' read-only web console (decision 0038). Its own process, port and
// credential, so the public gateway never serves it and a platform token never opens it.

type AppEntry = { name: string; healthPort: number | null };

/** CONSOLE_HEALTH_URLS "payments=http://…/health,…"; by default each service's health port (scripts/apps.json) on 127.0.0.1. */
export const healthUrls = (configured: string | undefined): Record<string, string> => {
  if (configured) {
    return Object.fromEntries(
      configured
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean)
        .map((entry) => {
          const at = entry.indexOf('=');
          if (at < 1) throw new Error(`CONSOLE_HEALTH_URLS entries are service=url; "${entry}" is not.`);
          return [entry.slice(0, at), entry.slice(at + 1)];
        }),
    );
  }
  // The compiled image keeps no scripts/apps.json: there the console shows no /health answers until CONSOLE_HEALTH_URLS is set.
  const file = join(__dirname, '../../../scripts/apps.json');
  if (!existsSync(file)) return {};
  const apps = (JSON.parse(readFileSync(file, 'utf8')) as { apps: AppEntry[] }).apps;
  const served = apps.filter((app) => app.healthPort !== null);
  return Object.fromEntries(served.map((app) => [app.name, `http://127.0.0.1:${app.healthPort}/health`]));
};

const main = async (): Promise<void> => {
  const logger = createLogger('console');
  const credentials = parseOperatorCredentials(process.env['CONSOLE_TOKEN'], process.env['CONSOLE_USERS']);
  const port = Number(process.env['CONSOLE_PORT'] ?? 9190);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`CONSOLE_PORT must be a port number, not "${process.env['CONSOLE_PORT']}".`);
  }
  const host = process.env['CONSOLE_HOST'] ?? '127.0.0.1';
  const health = healthUrls(process.env['CONSOLE_HEALTH_URLS']);
  const reader = new ConsoleReader(process.env['CONSOLE_DATABASE_URL'] ?? databaseUrl(), health);
  const server = await startConsoleServer({ port, host, credentials, reader, logger });
  logger.info({ port, host, health }, `Corridor console on http://${host}:${port}/`);
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
