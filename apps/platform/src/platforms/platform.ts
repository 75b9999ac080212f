import type { Event, PlatformConfigWire, PlatformEnvironment, UpdateConfigData } from '@corridor/contracts';

/** The configuration a platform can change (PATCH /config), plus what only Corridor sets. */
export type PlatformSettings = Pick<
  PlatformConfigWire,
  'umaDomain' | 'proxyUmaSubdomain' | 'webhookEndpoint' | 'supportedCurrencies' | 'isRegulatedFinancialInstitution' | 'embeddedWalletConfig'
>;

export type PlatformCreated = Event<
  'PlatformCreated',
  { platformId: string; configId: string; name: string; environment: PlatformEnvironment; settings: PlatformSettings; createdAt: string }
>;
export type PlatformConfigUpdated = Event<'PlatformConfigUpdated', { platformId: string; changes: UpdateConfigData; updatedAt: string }>;
export type PlatformEvent = PlatformCreated | PlatformConfigUpdated;

export type Platform =
  | { status: 'None' }
  | {
      status: 'Active';
      platformId: string;
      configId: string;
      name: string;
      environment: PlatformEnvironment;
      settings: PlatformSettings;
      createdAt: string;
      updatedAt: string;
    };

export const initialPlatform = (): Platform => ({ status: 'None' });

/** The settings without their webhook endpoint. */
const withoutEndpoint = ({ webhookEndpoint: _cleared, ...settings }: PlatformSettings): PlatformSettings => settings;

/** Applies a config change: omitted members stay, a null webhookEndpoint clears it, embeddedWalletConfig merges member by member. */
export const applyConfigChanges = (settings: PlatformSettings, changes: UpdateConfigData): PlatformSettings => ({
  ...(changes.webhookEndpoint === null ? withoutEndpoint(settings) : settings),
  ...(changes.umaDomain !== undefined ? { umaDomain: changes.umaDomain } : {}),
  ...(typeof changes.webhookEndpoint === 'string' ? { webhookEndpoint: changes.webhookEndpoint } : {}),
  ...(changes.supportedCurrencies !== undefined ? { supportedCurrencies: changes.supportedCurrencies } : {}),
  ...(changes.embeddedWalletConfig !== undefined
    ? { embeddedWalletConfig: { ...settings.embeddedWalletConfig, ...changes.embeddedWalletConfig } }
    : {}),
});

export const evolvePlatform = (state: Platform, event: PlatformEvent): Platform => {
  switch (event.type) {
    case 'PlatformCreated':
      return {
        status: 'Active',
        platformId: event.data.platformId,
        configId: event.data.configId,
        name: event.data.name,
        environment: event.data.environment,
        settings: event.data.settings,
        createdAt: event.data.createdAt,
        updatedAt: event.data.createdAt,
      };
    case 'PlatformConfigUpdated':
      if (state.status !== 'Active') return state;
      return { ...state, settings: applyConfigChanges(state.settings, event.data.changes), updatedAt: event.data.updatedAt };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const platformDecider = { evolve: evolvePlatform, initialState: initialPlatform };
