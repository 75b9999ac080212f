import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { logFields } from '@corridor/telemetry';

export type LoggerOptions = { level?: string };

/** A pino logger whose every line carries the ids of the current work (request, correlation, causation, platform, trace). */
export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  return pino({
    name,
    level: options.level ?? 'info',
    mixin: logFields,
  });
}

const describe = (message: unknown): Record<string, unknown> =>
  message instanceof Error ? { err: message } : typeof message === 'object' && message !== null ? { data: message } : {};

const text = (message: unknown): string | undefined =>
  typeof message === 'string' ? message : message instanceof Error ? message.message : undefined;

/**
 * Adapts pino to Nest's LoggerService so framework messages (startup, routes, errors) go
 * through the same JSON lines as ours. Nest passes the context name as the last argument.
 */
export function nestLogger(logger: Logger): LoggerService {
  const write =
    (level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal') =>
    (message: unknown, ...rest: unknown[]) => {
      const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
      const stack = level === 'error' && typeof rest[0] === 'string' && rest.length > 1 ? rest[0] : undefined;
      logger[level]({ ...describe(message), ...(context ? { context } : {}), ...(stack ? { stack } : {}) }, text(message));
    };
  return {
    log: write('info'),
    error: write('error'),
    warn: write('warn'),
    debug: write('debug'),
    verbose: write('trace'),
    fatal: write('fatal'),
  };
}
