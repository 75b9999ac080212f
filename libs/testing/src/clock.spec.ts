// Pins down that the controllable clock only moves when a test moves it.
import { createControllableClock } from './clock';

describe('createControllableClock', () => {
  it('stands still until advanced or set', () => {
    const clock = createControllableClock(new Date('2025-10-13T00:00:00.000Z'));
    clock.now().setFullYear(1999);
    expect(clock.now().toISOString()).toBe('2025-10-13T00:00:00.000Z');
    clock.advance(30_000);
    expect(clock.now().toISOString()).toBe('2025-10-13T00:00:30.000Z');
    clock.set(new Date('2026-01-01T00:00:00.000Z'));
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('refuses to move backwards through advance', () => {
    expect(() => createControllableClock(new Date(0)).advance(-1)).toThrow(RangeError);
  });
});
