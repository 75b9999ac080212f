// Pins down PATCH /config: omitted members stay, a no-change update records nothing, and currency
// settings that could not work are refused.
import { deciderSpec } from '@corridor/testing';
import { createPlatform, type CreatePlatform } from './create-platform';
import { defaultSettings } from './default-settings';
import { platformDecider, type PlatformEvent } from './platform';
import { updateConfig, type UpdateConfig } from './update-config';

const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
const now = new Date('2026-03-01T10:00:00.000Z');
const created: PlatformEvent = {
  type: 'PlatformCreated',
  data: {
    platformId,
    configId: 'PlatformConfig:1',
    name: 'Acme',
    environment: 'SANDBOX',
    settings: defaultSettings('acme'),
    createdAt: now.toISOString(),
  },
};
const update = (changes: UpdateConfig['data']['changes']): UpdateConfig => ({
  type: 'UpdateConfig',
  data: { platformId, changes },
  metadata: { now },
});
const given = deciderSpec({ decide: updateConfig, ...platformDecider }).given;

describe('UpdateConfig', () => {
  it('records a new webhook endpoint', () =>
    given([created])
      .when(update({ webhookEndpoint: 'https://acme.example/hooks' }))
      .then([
        {
          type: 'PlatformConfigUpdated',
          data: { platformId, changes: { webhookEndpoint: 'https://acme.example/hooks' }, updatedAt: now.toISOString() },
        },
      ]));

  it('clears the webhook endpoint with null', () => {
    const updated = (webhookEndpoint: string | null): PlatformEvent => ({
      type: 'PlatformConfigUpdated',
      data: { platformId, changes: { webhookEndpoint }, updatedAt: now.toISOString() },
    });
    const endpointSet = updated('https://acme.example/hooks');
    given([created, endpointSet])
      .when(update({ webhookEndpoint: null }))
      .then([updated(null)]);
    const state = [created, endpointSet, updated(null)].reduce(platformDecider.evolve, platformDecider.initialState());
    expect(state.status === 'Active' && 'webhookEndpoint' in state.settings).toBe(false);
  });

  it('does nothing when clearing an endpoint that is not set', () =>
    given([created])
      .when(update({ webhookEndpoint: null }))
      .thenNothingHappened());

  it('does nothing when the values are already set', () =>
    given([created])
      .when(update({ umaDomain: 'acme.sandbox.uma.money' }))
      .thenNothingHappened());

  it('refuses an unknown currency', () =>
    given([created])
      .when(
        update({
          supportedCurrencies: [
            { currencyCode: 'XYZ', minAmount: 1, maxAmount: 2, requiredCounterpartyFields: [], enabledTransactionTypes: ['OUTGOING'] },
          ],
        }),
      )
      .thenThrows((error) => error.code === 'INVALID_CURRENCY' && error.details?.['field'] === 'supportedCurrencies[0].currencyCode'));

  it('refuses a minimum above the maximum', () =>
    given([created])
      .when(
        update({
          supportedCurrencies: [
            { currencyCode: 'USD', minAmount: 500, maxAmount: 100, requiredCounterpartyFields: [], enabledTransactionTypes: ['OUTGOING'] },
          ],
        }),
      )
      .thenThrows((error) => error.code === 'INVALID_INPUT'));

  it('refuses a currency listed twice', () => {
    const usd = {
      currencyCode: 'USD',
      minAmount: 1,
      maxAmount: 2,
      requiredCounterpartyFields: [],
      enabledTransactionTypes: ['OUTGOING' as const],
    };
    given([created])
      .when(update({ supportedCurrencies: [usd, usd] }))
      .thenThrows((error) => error.code === 'INVALID_INPUT');
  });
});

describe('CreatePlatform', () => {
  const command: CreatePlatform = {
    type: 'CreatePlatform',
    data: { ...created.data, settings: defaultSettings('acme') } as CreatePlatform['data'],
    metadata: { now },
  };
  const givenCreate = deciderSpec({ decide: createPlatform, ...platformDecider }).given;

  it('creates a platform', () => givenCreate([]).when(command).then([created]));
  it('treats a repeat as a retry', () => givenCreate([created]).when(command).thenNothingHappened());
});
