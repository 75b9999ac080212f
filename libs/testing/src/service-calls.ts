import { randomUUID } from 'node:crypto';
import { DomainError, eventsStreamName, type RequestContext } from '@corridor/contracts';
import { connect } from 'nats';
import { testUrls } from './infra';

// What integration specs that call a service over NATS share: a caller's context, the error a
// refused request carries, and removing the run's JetStream stream afterwards.

/** A token caller of the given platform, with fresh request and correlation ids. */
export const tokenContext = (platformId: string): RequestContext => ({
  platformId,
  actor: { kind: 'token', tokenId: 'Token:test' },
  requestId: randomUUID(),
  correlationId: randomUUID(),
});

/** The DomainError a request was refused with; fails the test if it succeeded or failed otherwise. */
export const domainErrorOf = async (promise: Promise<unknown>): Promise<DomainError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('Expected the request to fail.');
};

/** Deletes the `<PREFIX>_EVENTS` stream a spec's unique subject prefix created; quiet when NATS is gone. */
export const deleteEventsStream = async (subjectPrefix: string, natsUrl: string = testUrls.nats()): Promise<void> => {
  const nats = await connect({ servers: natsUrl }).catch(() => undefined);
  if (!nats) return;
  const manager = await nats.jetstreamManager();
  await manager.streams.delete(eventsStreamName(subjectPrefix)).catch(() => undefined);
  await nats.close();
};
