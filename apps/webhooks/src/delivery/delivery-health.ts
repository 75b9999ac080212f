import type { PartHealth } from '@corridor/contracts';
import type { DueBacklog } from './delivery-store';

/** What one process holds, per lane: deliveries sending or waiting for a slot, and those parked behind their platform's cap. */
export type HeldDeliveries = Record<'ORDINARY' | 'APPROVAL', { inFlight: number; parked: number }>;

/**
 * /health's `delivery` part: degraded when a due webhook, first in line for its resource, has
 * waited longer than `stuckAfterSeconds` to be sent. Receivers cannot cause that (a failed attempt
 * waits for its retry time, when it is not due): the dispatchers are stuck or far behind, and the
 * part names the webhook an operator can look up (GET /webhooks/deliveries/{id} of its platform).
 */
export const deliveryHealth = (backlog: DueBacklog, stuckAfterSeconds: number, held: HeldDeliveries): PartHealth => {
  const waited = Math.round(backlog.oldestWaitSeconds);
  const stuck = backlog.oldestWaitSeconds > stuckAfterSeconds;
  return {
    status: stuck ? 'degraded' : 'ok',
    dueHeads: backlog.dueHeads,
    oldestWaitSeconds: waited,
    ...(stuck
      ? {
          error: `webhook ${backlog.oldestId} has been due and first in line for ${waited} s (over ${stuckAfterSeconds} s), not sent`,
        }
      : {}),
    held,
  };
};
