import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The ids that let one story be followed through every service, held in AsyncLocalStorage so a
 * log line, a NATS request, an appended event or a queued job written deep inside some work
 * carries them without every function passing them along.
 *
 * - requestId: the HTTP request (or the sweep tick, or the message) being handled now;
 * - correlationId: the request, sweep or simulator that began the story; it never changes along it;
 * - causationId: the id of the request, command or event that directly caused the current work;
 * - platformId: the tenant, once known (the gateway learns it in authentication).
 *
 * W3C trace context is OpenTelemetry's own context (see propagation.ts); it travels beside these.
 */
export type TelemetryContext = {
  requestId: string;
  correlationId: string;
  causationId?: string;
  platformId?: string;
};

const storage = new AsyncLocalStorage<TelemetryContext>();

/** Runs fn (and everything it starts) inside ids; the object is copied, so the caller's stays unchanged. */
export function runWithContext<T>(ids: TelemetryContext, fn: () => T): T {
  return storage.run({ ...ids }, fn);
}

/** The ids of the work being done, or undefined outside of any. */
export function currentContext(): TelemetryContext | undefined {
  return storage.getStore();
}

/**
 * Names the platform of the current work once it is known (after authentication); later log
 * lines of the same request carry it. Outside any context it does nothing.
 */
export function setContextPlatform(platformId: string): void {
  const store = storage.getStore();
  if (store) store.platformId = platformId;
}

/**
 * The context a piece of background work restores: the story's correlation (kept from whatever
 * began it), a request id of its own and the id of what caused it (an event, a job, a sweep).
 */
export function continuedContext(
  origin: { correlationId?: string | undefined; platformId?: string | undefined },
  requestId: string,
  causationId: string,
): TelemetryContext {
  return {
    requestId,
    correlationId: origin.correlationId || requestId,
    causationId,
    ...(origin.platformId ? { platformId: origin.platformId } : {}),
  };
}

/** The ids as log fields: only those that are set. */
export function contextFields(ids: TelemetryContext | undefined = storage.getStore()): Record<string, string> {
  if (!ids) return {};
  const fields: Record<string, string> = { requestId: ids.requestId, correlationId: ids.correlationId };
  if (ids.causationId) fields['causationId'] = ids.causationId;
  if (ids.platformId) fields['platformId'] = ids.platformId;
  return fields;
}
