import type { RequestContext } from '@corridor/contracts';
import type { RecordedEvent } from './types';

/**
 * The context a timer, sweep or wakeup acts on a stream in (decision 0029): the story goes on with
 * the correlation of the stream's last event, and that event is the cause of what the tick does.
 * The tick keeps its own request id and actor. A stream without events keeps the given context:
 * nothing else is known of its story.
 */
export const resumedContext = (context: RequestContext, last: Pick<RecordedEvent, 'eventId' | 'metadata'> | undefined): RequestContext =>
  last ? { ...context, correlationId: last.metadata.correlationId, causationId: last.eventId } : context;
