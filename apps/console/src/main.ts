import { createLogger } from '@corridor/messaging';
import { ConsoleReader } from './console-reader';
import { startConsoleServer } from './console-server';
import { loadConfig } from './config';

// npm run console: the operators' read-only web console (decision 0038). Its own process, port and
// credential, so the public gateway never serves it and a platform token never opens it.

const main = async (): Promise<void> => {
  const logger = createLogger('console');
  const { credentials, port, host, health, databaseUrl } = loadConfig();
  const reader = new ConsoleReader(databaseUrl, health);
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
