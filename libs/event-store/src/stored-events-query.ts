import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  decodeCursor,
  eventsListSubject,
  type ListStoredEventsData,
  type Page,
  type ServiceRequest,
  type StoredEventWire,
  toPage,
} from '@corridor/contracts';
import { storedEventKey } from './stored-events-page';
import type { EventStore, RecordedEvent, StoredEventsFilter } from './types';

// Each service answers GET /events for its own store, through the event-store port (listEvents),
// so a service whose events live in KurrentDB answers from KurrentDB: always filtered by the asking
// platform, newest first on (occurredAt, id) with a keyset cursor like every list.

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** The port's filter for a request: the platform from the authenticated context, times in the stored form. */
export const storedEventsFilterOf = (platformId: string, data: ListStoredEventsData): StoredEventsFilter => ({
  platformId,
  ...(data.resourceId !== undefined ? { resourceId: data.resourceId } : {}),
  ...(data.correlationId !== undefined ? { correlationId: data.correlationId } : {}),
  ...(data.type !== undefined ? { type: data.type } : {}),
  // occurredAt is stored as an ISO 8601 UTC string, so the bounds are normalised to the same form.
  ...(data.startDate !== undefined ? { occurredFrom: new Date(data.startDate).toISOString() } : {}),
  ...(data.endDate !== undefined ? { occurredTo: new Date(data.endDate).toISOString() } : {}),
  ...(data.customerId !== undefined ? { mentioning: data.customerId } : {}),
});

/** One recorded event as GET /events shows it. */
export const toStoredEventWire = (service: string, event: RecordedEvent): StoredEventWire => {
  const metadata = event.metadata as Record<string, unknown>;
  return {
    id: event.eventId,
    type: event.type,
    resourceId: event.streamId,
    service,
    occurredAt: text(metadata['occurredAt']) ?? '',
    correlationId: text(metadata['correlationId']),
    causationId: text(metadata['causationId']),
    data: event.data,
  };
};

/** One page of a service's events, newest first, from whichever store holds them. */
export const listStoredEvents = async (
  store: EventStore,
  service: string,
  platformId: string,
  data: ListStoredEventsData,
): Promise<Page<StoredEventWire>> => {
  const after = data.cursor ? decodeCursor(data.cursor) : undefined;
  const { events, totalCount } = await store.listEvents(storedEventsFilterOf(platformId, data), {
    ...(after ? { before: { occurredAt: after.createdAt, eventId: after.id } } : {}),
    limit: data.limit + 1,
  });
  const rows = events.map((event) => ({ ...toStoredEventWire(service, event), createdAt: storedEventKey(event).occurredAt }));
  return toPage(rows, data.limit, totalCount, ({ createdAt: _createdAt, ...event }) => event);
};

/** The NATS handler of one service's eventsListSubject, made per service because the subject names it. */
export const storedEventsController = (service: string, storeToken: string | symbol | Type): Type => {
  @Controller()
  class StoredEventsController {
    constructor(@Inject(storeToken) private readonly source: { store: EventStore }) {}

    @MessagePattern(eventsListSubject(service))
    list(@Payload() request: ServiceRequest<ListStoredEventsData>): Promise<Page<StoredEventWire>> {
      return listStoredEvents(this.source.store, service, request.context.platformId, request.data);
    }
  }
  return StoredEventsController;
};
