import type { TracedEvent } from '../../../scripts/trace/trace-reader';
import { foldStream, MAX_FOLDED_EVENTS } from './state-after';

const event = (position: number, type: string, data: Record<string, unknown> = {}): TracedEvent => ({
  service: 'payments',
  eventId: `e${position}`,
  streamId: 'Counter:1',
  position,
  globalPosition: String(position),
  type,
  occurredAt: '2026-11-27T13:00:00.000Z',
  platformId: 'Platform:1',
  correlationId: 'c',
  causationId: null,
  requestId: null,
  data,
});

const counter = {
  initialState: () => ({ total: 0 }),
  evolve: (state: { total: number }, recorded: { type: string; data: { by?: number } }) => {
    if (recorded.type === 'Broken') throw new Error('cannot apply');
    return { total: state.total + (recorded.data.by ?? 0) };
  },
};

describe('state after each event', () => {
  it('given a stream read whole, when folded, then each position has the state after it', () => {
    const states = foldStream([event(2, 'Added', { by: 5 }), event(1, 'Added', { by: 1 })], counter);
    expect(states.get(1)).toEqual({ state: { total: 1 } });
    expect(states.get(2)).toEqual({ state: { total: 6 } });
  });

  it('given an event the decider cannot apply, when folded, then it and every later state are unavailable with the reason', () => {
    const states = foldStream([event(1, 'Added', { by: 1 }), event(2, 'Broken'), event(3, 'Added', { by: 1 })], counter);
    expect(states.get(1)).toEqual({ state: { total: 1 } });
    expect(states.get(2)).toEqual({ unavailable: expect.stringContaining('cannot apply') });
    expect(states.get(3)).toEqual({ unavailable: expect.stringContaining('#2') });
  });

  it('given a gap, an unknown stream type or a very long stream, when folded, then no state is guessed', () => {
    const gap = foldStream([event(1, 'Added'), event(3, 'Added')], counter);
    expect(gap.get(3)).toEqual({ unavailable: expect.stringContaining('before #3') });
    expect(foldStream([event(1, 'Added')], undefined).get(1)).toEqual({ unavailable: expect.stringContaining('no decider') });
    const long = Array.from({ length: MAX_FOLDED_EVENTS + 1 }, (_, index) => event(index + 1, 'Added'));
    expect(foldStream(long, counter).get(1)).toEqual({ unavailable: expect.stringContaining('npm run replay') });
  });
});
