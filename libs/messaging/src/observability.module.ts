import { Global, Module, type Provider, type InjectionToken } from '@nestjs/common';
import { OBSERVABILITY, Observability, type ObservedPart, type PartHealth } from '@corridor/contracts';

/**
 * The one Observability of a service process under OBSERVABILITY, visible to every module:
 * createServiceApp imports it around the app's own module, so libraries and apps register their
 * parts and metrics without the app wiring them.
 */
@Global()
@Module({
  providers: [{ provide: OBSERVABILITY, useFactory: () => new Observability() }],
  exports: [OBSERVABILITY],
})
export class ObservabilityModule {}

/**
 * A provider that registers one health part when the module is instantiated. The Observability is
 * optional, so the module also runs where nothing reports (Test.createTestingModule without
 * ObservabilityModule). addPart replaces by name: a later registration of the same name wins.
 */
export const observedPart = (
  name: string,
  inject: InjectionToken[],
  health: (...dependencies: never[]) => ObservedPart['health'],
): Provider => ({
  provide: `CORRIDOR_OBSERVED_PART:${name}`,
  inject: [{ token: OBSERVABILITY, optional: true }, ...inject],
  useFactory: (observability: Observability | undefined, ...dependencies: never[]) => {
    observability?.addPart({ name, health: health(...dependencies) });
    return name;
  },
});

const withTimeout = <T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });

/** PostgreSQL health: `SELECT 1` through a pool the service already has (down when it fails or is slow). */
export const postgresHealth =
  (query: () => Promise<unknown>, timeoutMs = 1_000): ObservedPart['health'] =>
  async (): Promise<PartHealth> => {
    const started = Date.now();
    await withTimeout(query(), timeoutMs, 'SELECT 1');
    return { status: 'ok', latencyMs: Date.now() - started };
  };

type RedisLike = { status: string; ping(): Promise<unknown> };

/** Redis health: a PING with a short timeout; down at once while the client is not connected. */
export const redisHealth =
  (client: () => RedisLike | undefined, timeoutMs = 500): ObservedPart['health'] =>
  async (): Promise<PartHealth> => {
    const redis = client();
    if (!redis) return { status: 'down', error: 'not connected yet' };
    // A client that queues commands while offline (BullMQ's) would otherwise pile up PINGs.
    if (redis.status !== 'ready') return { status: 'down', connection: redis.status };
    const started = Date.now();
    await withTimeout(redis.ping(), timeoutMs, 'Redis PING');
    return { status: 'ok', latencyMs: Date.now() - started };
  };
