import type { WebhookType } from '@corridor/contracts';
import { APPROVAL_HOOK } from '../kinds/incoming-payment';

// The rules that keep one platform's endpoint from hurting the others' webhooks. Pure: the
// dispatcher gathers the facts (what is in flight, what the circuit of an endpoint says) and acts.
//
// Lanes. An INCOMING_PAYMENT.PENDING approval hook decides a payment within a deadline; every
// other webhook can wait. Each lane has its own queue, its own slots and its own per-platform
// counts, so a backlog of ordinary webhooks never sits in front of an approval hook.
//
// Per-platform cap. A platform has at most `perPlatform` deliveries in flight (sending, or holding
// a slot they wait for) in a lane of one process; the rest are parked in memory and started, oldest
// first, as its own deliveries finish. A platform whose endpoint never answers therefore holds `perPlatform`
// slots, not all of them.
//
// Circuit breaker, per (platform, endpoint). Timeouts are what hold slots, so only timeouts count:
//
//   CLOSED ──(timeoutsToOpen consecutive timeouts)──▶ OPEN ──(openMs passed)──▶ HALF_OPEN
//     ▲                                                 ▲                          │ one probe at a time,
//     └──────(an answer, or a fast failure)─────────────┼──────────────────────────┤ probeTimeoutMs
//                                                       └──(the probe timed out: openMs doubles, ≤ 16×)
//
// While OPEN (and while a probe is out) attempts are not sent: each is recorded as an attempt that
// failed, so ordinary webhooks follow the retry schedule and an approval hook fails at once instead
// of waiting for a timeout.

export type Lane = 'APPROVAL' | 'ORDINARY';

export const laneOf = (type: WebhookType): Lane => (type === APPROVAL_HOOK ? 'APPROVAL' : 'ORDINARY');

export type Admission<T> = { admitted: T[]; deferred: T[] };

/**
 * Which candidates may start now: in order, each while its platform has fewer than `perPlatform`
 * in flight (those already in flight, plus those admitted before it here). A platform with
 * deliveries already parked (`waiting`) starts nothing new: its new ones queue behind them, so
 * its oldest go first and none waits for ever. Deliveries taken out of the parking are offered
 * with an empty `waiting`.
 */
export const admit = <T extends { platformId: string }>(
  candidates: readonly T[],
  inFlight: ReadonlyMap<string, number>,
  perPlatform: number,
  waiting: ReadonlySet<string>,
): Admission<T> => {
  const counts = new Map(inFlight);
  const admission: Admission<T> = { admitted: [], deferred: [] };
  for (const candidate of candidates) {
    const count = counts.get(candidate.platformId) ?? 0;
    if (count >= perPlatform || waiting.has(candidate.platformId)) {
      admission.deferred.push(candidate);
      continue;
    }
    counts.set(candidate.platformId, count + 1);
    admission.admitted.push(candidate);
  }
  return admission;
};

/**
 * Deferred deliveries kept for later, at most `max` per platform (the oldest kept): the ones
 * dropped are offered again by the tick, which skips a platform while it has parked deliveries.
 */
export const park = <T>(parked: readonly T[], deferred: readonly T[], max: number): { parked: T[]; dropped: T[] } => {
  const all = [...parked, ...deferred];
  return { parked: all.slice(0, max), dropped: all.slice(max) };
};

/**
 * How many of a platform's parked deliveries start now that one of its own finished: as many as
 * its cap has room for, once that room is half a batch, or all of the parked ones fit, or nothing
 * of it is in flight. A busy platform is so refilled several deliveries at a time (one claim)
 * rather than one per finished delivery.
 */
export const toUnpark = (parked: number, inFlight: number, perPlatform: number, batchSize: number): number => {
  const room = perPlatform - inFlight;
  if (parked === 0 || room <= 0) return 0;
  const worthAJob = Math.max(1, Math.floor(Math.min(perPlatform, batchSize) / 2));
  return room >= worthAJob || parked <= room || inFlight === 0 ? Math.min(parked, room) : 0;
};

export type Circuit =
  | { state: 'CLOSED'; timeouts: number }
  | { state: 'OPEN'; untilMs: number; trips: number }
  | { state: 'HALF_OPEN'; trips: number; probing: boolean };

export type BreakerOptions = {
  /** Consecutive timeouts that open the circuit. */
  timeoutsToOpen: number;
  /** How long the circuit stays open after its first trip; doubled after each failed probe, up to 16×. */
  openMs: number;
  /** The timeout of an ordinary attempt. */
  requestTimeoutMs: number;
  /** The (shorter) timeout of a probe, while the endpoint is suspected of never answering. */
  probeTimeoutMs: number;
};

export const CLOSED: Circuit = { state: 'CLOSED', timeouts: 0 };

const MAX_OPEN_DOUBLINGS = 4;

export type Permission = { send: true; timeoutMs: number; circuit: Circuit } | { send: false; circuit: Circuit; reason: string };

/** Whether an attempt is sent now, with which timeout, and the circuit once it has started. */
export const beforeAttempt = (circuit: Circuit, nowMs: number, options: BreakerOptions): Permission => {
  switch (circuit.state) {
    case 'CLOSED':
      return { send: true, timeoutMs: options.requestTimeoutMs, circuit };
    case 'OPEN':
      if (nowMs < circuit.untilMs) {
        const reason = `not sent: the endpoint's circuit is open after repeated timeouts, until ${new Date(circuit.untilMs).toISOString()}`;
        return { send: false, circuit, reason };
      }
      return { send: true, timeoutMs: options.probeTimeoutMs, circuit: { state: 'HALF_OPEN', trips: circuit.trips, probing: true } };
    case 'HALF_OPEN':
      if (circuit.probing) return { send: false, circuit, reason: "not sent: the endpoint's circuit is half open, a probe is under way" };
      return { send: true, timeoutMs: options.probeTimeoutMs, circuit: { ...circuit, probing: true } };
    default: {
      const unknown: never = circuit;
      return unknown;
    }
  }
};

/** How an attempt that was sent ended: an HTTP answer, a timeout, or another failure (refused, reset, DNS). */
export type AttemptEnd = 'ANSWERED' | 'TIMED_OUT' | 'FAILED';

const opened = (trips: number, nowMs: number, options: BreakerOptions): Circuit => ({
  state: 'OPEN',
  untilMs: nowMs + options.openMs * 2 ** Math.min(trips - 1, MAX_OPEN_DOUBLINGS),
  trips,
});

/** The circuit after a sent attempt ended. Anything but a timeout shows the endpoint does not hold slots, and closes it. */
export const afterAttempt = (circuit: Circuit, end: AttemptEnd, nowMs: number, options: BreakerOptions): Circuit => {
  if (end !== 'TIMED_OUT') return circuit.state === 'CLOSED' && end === 'FAILED' ? circuit : CLOSED;
  switch (circuit.state) {
    case 'CLOSED':
      if (circuit.timeouts + 1 >= options.timeoutsToOpen) return opened(1, nowMs, options);
      return { state: 'CLOSED', timeouts: circuit.timeouts + 1 };
    case 'HALF_OPEN':
      return opened(circuit.trips + 1, nowMs, options);
    case 'OPEN':
      // An attempt started before the circuit opened: the circuit already says what it shows.
      return circuit;
    default: {
      const unknown: never = circuit;
      return unknown;
    }
  }
};
