import type { TimeWindow, TracedDelivery, TracedEvent, TraceReader } from './trace-reader';
import { distinctEvents } from './trace-tree';

// From whatever id a person has at hand to every event of the stories it took part in.

/** A correlation is one story; more than this many from one id means the id is too broad without a time window. */
export const MAX_CORRELATIONS = 200;
/** Events read per store and per lookup; a trace that reaches it says so rather than stopping silently. */
export const MAX_EVENTS = 5_000;
const MAX_MENTIONS = 500;

export type Trace = {
  /** How the id was recognised: a stream, a trace id, a webhook delivery, a mention in event data. */
  foundAs: string[];
  correlationIds: string[];
  events: TracedEvent[];
  deliveries: TracedDelivery[];
  /** True when a lookup hit MAX_EVENTS, so the trace may lack events. */
  truncated: boolean;
};

export class TraceTooBroad extends Error {}

/** The events that name the id directly, and how each lookup recognised it. */
const startingEvents = async (
  reader: TraceReader,
  id: string,
  window: TimeWindow,
): Promise<{ seeds: TracedEvent[]; foundAs: string[] }> => {
  const foundAs: string[] = [];
  const ofStream = await reader.eventsOfStreams([id], window);
  if (ofStream.length > 0) foundAs.push(`stream ${id} (${ofStream.length} events)`);
  const withTraceId = await reader.eventsWithTraceId(id, window);
  if (withTraceId.length > 0) foundAs.push(`event, request or correlation id (${withTraceId.length} events)`);
  const seeds = [...ofStream, ...withTraceId];
  const delivery = await reader.delivery(id);
  if (delivery) {
    foundAs.push(`webhook delivery of event ${delivery.eventId}`);
    seeds.push(...(await reader.eventsWithTraceId(delivery.eventId, {})));
  }
  if (seeds.length === 0) {
    const mentions = await reader.eventsMentioning(id, window, MAX_MENTIONS);
    if (mentions.length > 0) foundAs.push(`mentioned in the data of ${mentions.length} events`);
    seeds.push(...mentions);
  }
  return { seeds, foundAs };
};

/**
 * Finds the events that name the id (as their stream, their own/request/correlation id, the event
 * of a webhook delivery, or, failing those, anywhere in their data), takes their correlation ids,
 * and gathers every event of those correlations in every store, with the webhooks they produced.
 */
export const collectTrace = async (reader: TraceReader, id: string, window: TimeWindow): Promise<Trace> => {
  const { seeds, foundAs } = await startingEvents(reader, id, window);
  const correlationIds = [...new Set(seeds.flatMap((event) => (event.correlationId ? [event.correlationId] : [])))];
  if (correlationIds.length > MAX_CORRELATIONS) {
    throw new TraceTooBroad(`${id} took part in ${correlationIds.length} requests; narrow it with --from and --to (ISO 8601 times).`);
  }
  const related = await reader.eventsOfCorrelations(correlationIds, MAX_EVENTS);
  const events = distinctEvents([...seeds, ...related]);
  const perService = new Map<string, number>();
  for (const event of related) perService.set(event.service, (perService.get(event.service) ?? 0) + 1);
  const truncated = [...perService.values()].some((count) => count >= MAX_EVENTS);
  const deliveries = await reader.deliveriesOfEvents(events.map((event) => event.eventId));
  return { foundAs, correlationIds, events, deliveries, truncated };
};
