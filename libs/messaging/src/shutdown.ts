import type { INestApplicationContext } from '@nestjs/common';
import type { Logger } from 'pino';

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** SHUTDOWN_TIMEOUT_MS: how long a process may take to stop before it is forced to (code 1). */
export const parseShutdownTimeoutMs = (env: NodeJS.ProcessEnv): number => {
  const value = env['SHUTDOWN_TIMEOUT_MS'];
  if (value === undefined || value === '') return DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`SHUTDOWN_TIMEOUT_MS must be an integer ≥ 1, got "${value}".`);
  return parsed;
};

export type BoundedShutdownOptions = {
  logger: Logger;
  timeoutMs: number;
};

const HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;

type Instance = Record<string, unknown> & { constructor?: { name?: string } };
type NestInternals = {
  container?: {
    getModules(): Map<string, { providers: Map<unknown, { instance: unknown }>; controllers: Map<unknown, { instance: unknown }> }>;
  };
};

/**
 * Records what is running while the app closes: the phase (NestMicroservice.close() closes the
 * transport, then runs every provider's onModuleDestroy, beforeApplicationShutdown, disposes the
 * server and runs every onApplicationShutdown) and each hook of a provider or controller that has
 * started and not finished. Reads Nest's container, which is not public API; if its shape changes,
 * the report only says less, it never breaks the shutdown.
 */
function traceShutdown(app: INestApplicationContext): () => { phase: string; pendingHooks: string[] } {
  let phase = 'closing the server (stops intake, waits for requests in flight)';
  let lastHook: string | undefined;
  const pendingHooks = new Set<string>();
  const modules = (app as unknown as NestInternals).container?.getModules();
  for (const module of modules?.values() ?? []) {
    for (const wrapper of [...module.providers.values(), ...module.controllers.values()]) {
      const instance = wrapper.instance as Instance | null | undefined;
      if (!instance || typeof instance !== 'object') continue;
      for (const hook of HOOKS) {
        const original = instance[hook];
        if (typeof original !== 'function') continue;
        const label = `${instance.constructor?.name ?? 'provider'}.${hook}`;
        instance[hook] = async (...args: unknown[]) => {
          phase = `${hook} hooks`;
          lastHook = hook;
          pendingHooks.add(label);
          try {
            return await (original as (...a: unknown[]) => unknown).apply(instance, args);
          } finally {
            pendingHooks.delete(label);
          }
        };
      }
    }
  }
  return () => ({
    // Between the last beforeApplicationShutdown and the first onApplicationShutdown Nest closes the transport or HTTP server.
    phase: pendingHooks.size === 0 && lastHook === 'beforeApplicationShutdown' ? 'closing the transport / HTTP server' : phase,
    pendingHooks: [...pendingHooks],
  });
}

type Registered = { app: INestApplicationContext; options: BoundedShutdownOptions };
const registered = new Set<Registered>();
const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

const listen = (on: boolean): void => {
  for (const signal of SIGNALS) {
    process.off(signal, onSignal);
    if (on) process.on(signal, onSignal);
  }
};

/** Closes one app within its bound; resolves true when it closed cleanly. Past the bound, exits 1. */
const closeWithin = async (
  app: INestApplicationContext,
  { logger, timeoutMs }: BoundedShutdownOptions,
  signal: NodeJS.Signals,
): Promise<boolean> => {
  const running = traceShutdown(app);
  logger.info({ signal, timeoutMs }, 'Shutting down.');
  // Not unref()'d on purpose: a hook waiting on a promise nothing will settle leaves the loop
  // empty, and the process would exit 0 without saying what hung. This timer makes it say so.
  const timer = setTimeout(() => {
    const { phase, pendingHooks } = running();
    const hung = pendingHooks.length ? `${phase}; ${pendingHooks.join(', ')}` : phase;
    logger.error(
      { signal, timeoutMs, phase, pendingHooks },
      `Shutdown did not finish within ${timeoutMs} ms (hung in: ${hung}); exiting with code 1.`,
    );
    process.exit(1);
  }, timeoutMs);
  try {
    await app.close();
    logger.info({ signal }, 'Stopped.');
    return true;
  } catch (error) {
    logger.error({ err: error, signal, phase: running().phase }, 'Shutdown failed.');
    return false;
  } finally {
    clearTimeout(timer);
  }
};

function onSignal(signal: NodeJS.Signals): void {
  // A second signal during the shutdown gets the default action: the process ends at once.
  listen(false);
  const apps = [...registered];
  registered.clear();
  void Promise.all(apps.map(({ app, options }) => closeWithin(app, options, signal))).then((results) =>
    process.exit(results.every(Boolean) ? 0 : 1),
  );
}

/**
 * Replaces Nest's enableShutdownHooks(): on SIGTERM or SIGINT the app closes through its hooks,
 * and if that takes longer than timeoutMs the process logs the phase and the hooks still running
 * and exits with code 1, so a stuck loop or a hook that never resolves cannot keep a pod in
 * Terminating until SIGKILL, nor `npm run down` waiting. Exit code 0 after a clean close.
 *
 * Use the app it returns: its close() also unregisters the app (and, with the last one, the signal
 * listeners), so a jest process that builds and closes many apps keeps neither alive. Nest's app
 * is a Proxy that ignores property writes, hence a wrapping Proxy rather than a patched close().
 */
export function enableBoundedShutdown<App extends INestApplicationContext>(app: App, options: BoundedShutdownOptions): App {
  const entry: Registered = { app, options };
  registered.add(entry);
  listen(true);
  const close = async (): Promise<void> => {
    registered.delete(entry);
    if (registered.size === 0) listen(false);
    await app.close();
  };
  return new Proxy(app, {
    get(target, property) {
      if (property === 'close') return close;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
