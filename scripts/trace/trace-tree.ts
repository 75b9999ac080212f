import type { TracedDelivery, TracedEvent } from './trace-reader';

// Pure: the order, nesting and one-line summaries of a trace, so they are specified without a database.

export type TraceNode = {
  event: TracedEvent;
  depth: number;
  parentEventId: string | null;
  deliveries: TracedDelivery[];
  children: TraceNode[];
};

/** The order a story happened in: time first, then the store's own order for events of one commit. */
export const compareEvents = (left: TracedEvent, right: TracedEvent): number =>
  left.occurredAt.localeCompare(right.occurredAt) ||
  left.service.localeCompare(right.service) ||
  Number(BigInt(left.globalPosition) - BigInt(right.globalPosition)) ||
  left.position - right.position;

/** One copy of each event (the same event is often found by several lookups). */
export const distinctEvents = (events: TracedEvent[]): TracedEvent[] => {
  const seen = new Map<string, TracedEvent>();
  for (const event of events) seen.set(`${event.service}/${event.eventId}`, event);
  return [...seen.values()];
};

/**
 * Nests each event under the event its causationId names when that event is part of the trace;
 * every other event (caused by a request, or stored before events carried a causationId) is a root.
 * Roots and children each keep the time order, so without causation ids the trace is flat in time.
 */
export const buildTree = (events: TracedEvent[], deliveries: TracedDelivery[]): TraceNode[] => {
  const ordered = distinctEvents(events).sort(compareEvents);
  const byEventId = new Map<string, TraceNode>();
  for (const event of ordered) byEventId.set(event.eventId, { event, depth: 0, parentEventId: null, deliveries: [], children: [] });
  for (const delivery of deliveries) byEventId.get(delivery.eventId)?.deliveries.push(delivery);
  const roots: TraceNode[] = [];
  for (const event of ordered) {
    const node = byEventId.get(event.eventId) as TraceNode;
    const parent = event.causationId && event.causationId !== event.eventId ? byEventId.get(event.causationId) : undefined;
    if (parent && !isAncestor(node, parent)) {
      node.parentEventId = parent.event.eventId;
      parent.children.push(node);
    } else {
      roots.push(node);
    }
  }
  const setDepth = (node: TraceNode, depth: number): void => {
    node.depth = depth;
    for (const child of node.children) setDepth(child, depth + 1);
  };
  for (const root of roots) setDepth(root, 0);
  return roots;
};

/** Guards against a causation cycle in bad data, which would otherwise hide both events. */
const isAncestor = (candidate: TraceNode, node: TraceNode): boolean => {
  if (candidate === node) return true;
  return candidate.children.some((child) => isAncestor(child, node));
};

/** Depth-first, each level in time order: the order the text and JSON outputs print in. */
export const flatten = (roots: TraceNode[]): TraceNode[] => roots.flatMap((root) => [root, ...flatten(root.children)]);

const MAX_VALUE_CHARS = 48;
const MAX_SUMMARY_CHARS = 200;

/** The data's leaves as `path=value`, short enough for one line: what the event changed. */
export const summarize = (data: Record<string, unknown>): string => {
  const leaves: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      if (value.every((item) => typeof item !== 'object' || item === null)) leaves.push(`${path}=[${value.join(',')}]`);
      else value.forEach((item, index) => walk(item, `${path}[${index}]`));
      return;
    }
    if (typeof value === 'object') {
      for (const [key, member] of Object.entries(value as Record<string, unknown>)) walk(member, path ? `${path}.${key}` : key);
      return;
    }
    const shown = String(value);
    leaves.push(`${path}=${shown.length > MAX_VALUE_CHARS ? `${shown.slice(0, MAX_VALUE_CHARS - 1)}…` : shown}`);
  };
  walk(data, '');
  const line = leaves.join(' ');
  return line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line;
};

/** One attempt's answer as a person reads it: `#1 200 in 12 ms` or `#2 timeout after 10000 ms`. */
export const describeAttempt = (attempt: TracedDelivery['attempts'][number]): string =>
  `#${attempt.attempt} ${attempt.at} ${attempt.statusCode ?? 'no answer'}${attempt.error ? ` (${attempt.error})` : ''} ` +
  `in ${attempt.latencyMs} ms`;

/** The JSON lines of a trace: one per event, then one per delivery right after the event it delivers. */
export const jsonLines = (roots: TraceNode[]): Record<string, unknown>[] =>
  flatten(roots).flatMap((node) => {
    const { event } = node;
    const line = {
      kind: 'event',
      service: event.service,
      streamId: event.streamId,
      position: event.position,
      type: event.type,
      occurredAt: event.occurredAt,
      correlationId: event.correlationId,
      causationId: event.causationId,
      eventId: event.eventId,
      requestId: event.requestId,
      platformId: event.platformId,
      depth: node.depth,
      parentEventId: node.parentEventId,
      data: event.data,
    };
    const deliveries = node.deliveries.map((delivery) => ({
      kind: 'delivery',
      service: 'webhooks',
      streamId: delivery.resourceId,
      position: null,
      type: delivery.type,
      occurredAt: delivery.createdAt,
      // As the delivery row keeps them for its attempts (null on a row from before they were kept).
      correlationId: delivery.correlationId,
      causationId: delivery.causationId,
      eventId: delivery.eventId,
      depth: node.depth + 1,
      parentEventId: event.eventId,
      data: { id: delivery.id, status: delivery.status, attemptCount: delivery.attemptCount, attempts: delivery.attempts },
    }));
    return [line, ...deliveries];
  });
