import { deliveryHealth, type HeldDeliveries } from './delivery-health';

const held: HeldDeliveries = { ORDINARY: { inFlight: 3, parked: 40 }, APPROVAL: { inFlight: 0, parked: 0 } };

describe('the delivery part of /health', () => {
  it('is ok while every due webhook has waited less than the threshold', () => {
    const health = deliveryHealth({ dueHeads: 12, oldestWaitSeconds: 2.4, oldestId: 'Webhook:1' }, 60, held);
    expect(health).toEqual({ status: 'ok', dueHeads: 12, oldestWaitSeconds: 2, held });
  });

  it('is degraded, naming the webhook, once one has waited longer', () => {
    const health = deliveryHealth({ dueHeads: 1, oldestWaitSeconds: 75.2, oldestId: 'Webhook:7' }, 60, held);
    expect(health.status).toBe('degraded');
    expect(health['error']).toBe('webhook Webhook:7 has been due and first in line for 75 s (over 60 s), not sent');
  });

  it('is ok with nothing due', () => {
    expect(deliveryHealth({ dueHeads: 0, oldestWaitSeconds: 0, oldestId: null }, 60, held).status).toBe('ok');
  });
});
