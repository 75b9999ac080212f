import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { databaseUrl } from '../../../scripts/services';
import { type OperatorCredentials, parseOperatorCredentials } from './operator-auth';

// Parsed once at bootstrap; nothing else in the console reads process.env.
export type ConsoleConfig = {
  credentials: OperatorCredentials;
  port: number;
  host: string;
  /** Service name → its /health URL. */
  health: Record<string, string>;
  databaseUrl: string;
};

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

const consolePort = (value: string | undefined): number => {
  const port = Number(value ?? 9190);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`CONSOLE_PORT must be a port number, not "${value}".`);
  return port;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): ConsoleConfig => ({
  credentials: parseOperatorCredentials(env['CONSOLE_TOKEN'], env['CONSOLE_USERS']),
  port: consolePort(env['CONSOLE_PORT']),
  host: env['CONSOLE_HOST'] ?? '127.0.0.1',
  health: healthUrls(env['CONSOLE_HEALTH_URLS']),
  // DATABASE_URL, as the operator scripts read it (scripts/services.ts), unless the console has its own.
  databaseUrl: env['CONSOLE_DATABASE_URL'] ?? databaseUrl(),
});
