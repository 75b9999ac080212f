import { AsyncLocalStorage } from 'node:async_hooks';

// The ids that let one request be followed through every service. They live in
// AsyncLocalStorage so a log line written deep inside a handler carries them without every
// function having to pass them along.
export type TraceIds = { requestId: string; correlationId: string };

const storage = new AsyncLocalStorage<TraceIds>();

export function runWithContext<T>(ids: TraceIds, fn: () => T): T {
  return storage.run(ids, fn);
}

/** The ids of the request being handled, or undefined outside of one. */
export function currentTraceIds(): TraceIds | undefined {
  return storage.getStore();
}

/** NATS header names; NATS headers are case-sensitive, so both ends use these constants. */
export const REQUEST_ID_HEADER = 'Corridor-Request-Id';
export const CORRELATION_ID_HEADER = 'Corridor-Correlation-Id';
