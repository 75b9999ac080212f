// Pins down webhook fairness: approval hooks have a lane of their own, a platform never has more
// than its cap in flight, parked deliveries are bounded, and the circuit breaker's transitions
// (given a circuit, when an attempt starts or ends, then this circuit and this permission).
import {
  type AttemptEnd,
  admit,
  afterAttempt,
  beforeAttempt,
  type BreakerOptions,
  type Circuit,
  CLOSED,
  laneOf,
  park,
  toUnpark,
} from './fairness';

const options: BreakerOptions = { timeoutsToOpen: 3, openMs: 30_000, requestTimeoutMs: 10_000, probeTimeoutMs: 2_000 };
const now = 1_000_000;
const ended = (circuit: Circuit, ...ends: AttemptEnd[]): Circuit =>
  ends.reduce((state, end) => afterAttempt(state, end, now, options), circuit);

describe('laneOf', () => {
  it('puts the INCOMING_PAYMENT.PENDING approval hook in its own lane, everything else in the ordinary one', () => {
    expect(laneOf('INCOMING_PAYMENT.PENDING')).toBe('APPROVAL');
    const others = ['INCOMING_PAYMENT.COMPLETED', 'OUTGOING_PAYMENT.PENDING', 'TEST', 'AGENT_ACTION.PENDING_APPROVAL'] as const;
    expect(others.map(laneOf)).toEqual(['ORDINARY', 'ORDINARY', 'ORDINARY', 'ORDINARY']);
  });
});

describe('admit', () => {
  const of = (platformId: string, id: string) => ({ platformId, id });

  it('given a platform at its cap, when more of its deliveries come, then they are deferred and the others start', () => {
    const admission = admit([of('hostile', 'h1'), of('honest', 'a1'), of('hostile', 'h2')], new Map([['hostile', 2]]), 2, new Set());
    expect(admission).toEqual({ admitted: [of('honest', 'a1')], deferred: [of('hostile', 'h1'), of('hostile', 'h2')] });
  });

  it('given room for one more, when two come, then the first in order starts and the second waits', () => {
    const admission = admit([of('p', '1'), of('p', '2')], new Map([['p', 1]]), 2, new Set());
    expect(admission).toEqual({ admitted: [of('p', '1')], deferred: [of('p', '2')] });
  });

  it('given nothing in flight, when a batch fits under the cap, then all of it starts', () => {
    expect(admit([of('p', '1'), of('q', '2')], new Map(), 1, new Set())).toEqual({ admitted: [of('p', '1'), of('q', '2')], deferred: [] });
  });

  it('given a platform with parked deliveries, when new ones of it come, then they queue behind, even with room', () => {
    const admission = admit([of('p', 'new'), of('q', '1')], new Map([['p', 1]]), 4, new Set(['p']));
    expect(admission).toEqual({ admitted: [of('q', '1')], deferred: [of('p', 'new')] });
  });
});

describe('park', () => {
  it('keeps at most the bound, oldest first, and drops the rest for the tick to offer again', () => {
    expect(park(['a', 'b'], ['c', 'd'], 3)).toEqual({ parked: ['a', 'b', 'c'], dropped: ['d'] });
    expect(park([], ['a'], 3)).toEqual({ parked: ['a'], dropped: [] });
  });
});

describe('toUnpark', () => {
  it('given a cap of 32 and batches of 32, when one delivery finishes, then nothing is unparked until there is room for 16', () => {
    expect(toUnpark(100, 31, 32, 32)).toBe(0);
    expect(toUnpark(100, 17, 32, 32)).toBe(0);
    expect(toUnpark(100, 16, 32, 32)).toBe(16);
  });

  it('given nothing of the platform in flight, then whatever is parked goes, up to the cap', () => {
    expect(toUnpark(3, 0, 32, 32)).toBe(3);
    expect(toUnpark(100, 0, 32, 32)).toBe(32);
  });

  it('given no more parked than the room, then all of them at once: there is nothing left to batch them with', () => {
    expect(toUnpark(5, 10, 32, 32)).toBe(5);
    expect(toUnpark(5, 20, 32, 32)).toBe(5);
    expect(toUnpark(20, 20, 32, 32)).toBe(0);
  });

  it('given a cap of 1, then one at a time', () => {
    expect(toUnpark(4, 0, 1, 32)).toBe(1);
    expect(toUnpark(4, 1, 1, 32)).toBe(0);
  });

  it('given nothing parked, then nothing', () => expect(toUnpark(0, 0, 32, 32)).toBe(0));
});

describe('the circuit breaker', () => {
  it('given a closed circuit, when an attempt starts, then it is sent with the ordinary timeout', () => {
    expect(beforeAttempt(CLOSED, now, options)).toEqual({ send: true, timeoutMs: 10_000, circuit: CLOSED });
  });

  it('given a closed circuit, when fewer timeouts than the threshold end in a row, then it stays closed and counts them', () => {
    expect(ended(CLOSED, 'TIMED_OUT', 'TIMED_OUT')).toEqual({ state: 'CLOSED', timeouts: 2 });
  });

  it('given two timeouts, when the endpoint answers or fails fast, then an answer resets the count and a fast failure leaves it', () => {
    expect(ended(CLOSED, 'TIMED_OUT', 'TIMED_OUT', 'ANSWERED', 'TIMED_OUT')).toEqual({ state: 'CLOSED', timeouts: 1 });
    expect(ended(CLOSED, 'TIMED_OUT', 'TIMED_OUT', 'FAILED')).toEqual({ state: 'CLOSED', timeouts: 2 });
  });

  it('given a closed circuit, when the threshold of timeouts in a row is reached, then it opens for openMs', () => {
    expect(ended(CLOSED, 'TIMED_OUT', 'TIMED_OUT', 'TIMED_OUT')).toEqual({ state: 'OPEN', untilMs: now + 30_000, trips: 1 });
  });

  it('given an open circuit, when an attempt starts before openMs passed, then it is not sent and says until when', () => {
    const open: Circuit = { state: 'OPEN', untilMs: now + 1, trips: 1 };
    const permission = beforeAttempt(open, now, options);
    expect(permission).toMatchObject({ send: false, circuit: open });
    const until = new Date(now + 1).toISOString();
    const reason = `not sent: the endpoint's circuit is open after repeated timeouts, until ${until}`;
    expect(permission.send === false && permission.reason).toBe(reason);
  });

  it('given an open circuit whose time is up, when an attempt starts, then it is the probe, sent with the shorter timeout', () => {
    expect(beforeAttempt({ state: 'OPEN', untilMs: now, trips: 2 }, now, options)).toEqual({
      send: true,
      timeoutMs: 2_000,
      circuit: { state: 'HALF_OPEN', trips: 2, probing: true },
    });
  });

  it('given a probe under way, when another attempt starts, then it is not sent', () => {
    expect(beforeAttempt({ state: 'HALF_OPEN', trips: 1, probing: true }, now, options)).toMatchObject({ send: false });
  });

  it('given a probe under way, when it is answered or fails fast, then the circuit closes', () => {
    expect(ended({ state: 'HALF_OPEN', trips: 3, probing: true }, 'ANSWERED')).toEqual(CLOSED);
    expect(ended({ state: 'HALF_OPEN', trips: 3, probing: true }, 'FAILED')).toEqual(CLOSED);
  });

  it('given a probe under way, when it times out, then the circuit opens again for twice as long, at most 16 times openMs', () => {
    expect(ended({ state: 'HALF_OPEN', trips: 1, probing: true }, 'TIMED_OUT')).toEqual({ state: 'OPEN', untilMs: now + 60_000, trips: 2 });
    const longest = ended({ state: 'HALF_OPEN', trips: 9, probing: true }, 'TIMED_OUT');
    expect(longest).toEqual({ state: 'OPEN', untilMs: now + 480_000, trips: 10 });
  });

  it('given an open circuit, when an attempt sent before it opened times out, then nothing changes; answered, it closes', () => {
    const open: Circuit = { state: 'OPEN', untilMs: now + 30_000, trips: 1 };
    expect(ended(open, 'TIMED_OUT')).toBe(open);
    expect(ended(open, 'ANSWERED')).toEqual(CLOSED);
  });
});
