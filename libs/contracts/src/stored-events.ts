// GET /events (a Corridor extension): the stored events themselves, so a platform can follow what
// happened to a resource or a request. Each service answers for its own store (eventsListSubject).

/** The services that keep an event store and answer eventsListSubject. */
export const eventStoreServices = ['platform', 'customers', 'accounts', 'payments', 'cards', 'agents'] as const;

/** The request each service answers; not a member of `subjects` because one subject exists per service. */
export const eventsListSubject = (service: string): string => `${service}.events.list`;

export type StoredEventWire = {
  id: string;
  type: string;
  /** The stream the event belongs to, which in Corridor is the resource's id. */
  resourceId: string;
  service: string;
  occurredAt: string;
  correlationId: string | null;
  causationId: string | null;
  data: Record<string, unknown>;
};

export type ListStoredEventsData = {
  resourceId?: string;
  correlationId?: string;
  type?: string;
  startDate?: string;
  endDate?: string;
  /**
   * Set by the gateway for an agent, never by a client: only events of this customer's stream or
   * whose data names the customer.
   */
  customerId?: string;
  limit: number;
  cursor?: string;
};
