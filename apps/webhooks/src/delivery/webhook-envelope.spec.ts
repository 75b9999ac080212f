// Pins down the webhook id receivers dedupe on: stable per (event, platform), distinct otherwise.
import { v7 as uuidv7, validate, version } from 'uuid';
import { renderWebhookBody, webhookIdFor } from './webhook-envelope';

describe('webhookIdFor', () => {
  const eventId = uuidv7();

  it('is the same Webhook:<uuidv7> every time for one event and platform', () => {
    const id = webhookIdFor(eventId, 'Platform:a');
    expect(id).toBe(webhookIdFor(eventId, 'Platform:a'));
    const uuid = id.slice('Webhook:'.length);
    expect(validate(uuid)).toBe(true);
    expect(version(uuid)).toBe(7);
    expect(uuid.slice(0, 13)).toBe(eventId.slice(0, 13)); // the event's millisecond timestamp
  });

  it('differs for another event or another platform', () => {
    expect(webhookIdFor(eventId, 'Platform:a')).not.toBe(webhookIdFor(eventId, 'Platform:b'));
    expect(webhookIdFor(eventId, 'Platform:a')).not.toBe(webhookIdFor(uuidv7(), 'Platform:a'));
  });
});

it('renders the reference envelope {id, type, timestamp, data}', () => {
  expect(JSON.parse(renderWebhookBody('Webhook:x', 'TEST', '2026-01-01T00:00:00.000Z', {}))).toEqual({
    id: 'Webhook:x',
    type: 'TEST',
    timestamp: '2026-01-01T00:00:00.000Z',
    data: {},
  });
});
