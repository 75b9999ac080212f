// Pins down the carrier every hop uses: the ids written by one side are the ids restored by the
// other, a carrier without them falls back field by field, and work continued from a carrier runs
// inside the restored context (and only there).
import {
  contextCarrier,
  continueFromCarrier,
  currentContext,
  idsFromCarrier,
  runWithContext,
  setContextPlatform,
  SpanKind,
  type TelemetryContext,
} from './index';

const ids: TelemetryContext = { requestId: 'req-1', correlationId: 'corr-1', causationId: 'Event:1', platformId: 'Platform:1' };
const span = { name: 'test', kind: SpanKind.INTERNAL };

describe('context carriers', () => {
  it('restores the ids it carries', () => {
    const carrier = contextCarrier(ids);
    expect(idsFromCarrier((name) => carrier[name], { requestId: 'x', correlationId: 'y' })).toEqual(ids);
  });

  it('writes the current context when none is given, and nothing outside one', () => {
    expect(runWithContext(ids, () => contextCarrier())).toMatchObject({
      'Corridor-Correlation-Id': 'corr-1',
      'Corridor-Causation-Id': 'Event:1',
    });
    expect(contextCarrier()).toEqual({});
  });

  it('falls back field by field for a carrier from before the headers existed', () => {
    const fallback = { requestId: 'msg-1', correlationId: 'corr-old', causationId: 'Event:old', platformId: 'Platform:2' };
    expect(idsFromCarrier(() => undefined, fallback)).toEqual(fallback);
    expect(idsFromCarrier((name) => (name === 'Corridor-Correlation-Id' ? 'corr-new' : undefined), fallback)).toEqual({
      ...fallback,
      correlationId: 'corr-new',
    });
  });

  it('runs continued work inside the restored context, and leaves the caller outside it', async () => {
    const carrier = contextCarrier(ids);
    const seen = await continueFromCarrier(
      (name) => carrier[name],
      { requestId: 'x', correlationId: 'y' },
      span,
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return currentContext();
      },
    );
    expect(seen).toEqual(ids);
    expect(currentContext()).toBeUndefined();
  });

  it('names the platform in the context once it is known, for the rest of that work only', () => {
    const outer = { requestId: 'req-2', correlationId: 'corr-2' };
    const inside = runWithContext(outer, () => {
      setContextPlatform('Platform:3');
      return currentContext();
    });
    expect(inside).toEqual({ ...outer, platformId: 'Platform:3' });
    expect(outer).toEqual({ requestId: 'req-2', correlationId: 'corr-2' });
  });

  it('rethrows what the continued work throws', async () => {
    await expect(
      continueFromCarrier(
        () => undefined,
        { requestId: 'x', correlationId: 'y' },
        span,
        async () => Promise.reject(new Error('boom')),
      ),
    ).rejects.toThrow('boom');
  });
});
