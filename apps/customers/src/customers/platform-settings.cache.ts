import { Injectable } from '@nestjs/common';
import { type PlatformConfigWire, type RequestContext, subjects } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import type { PlatformSettings } from './platform-settings';

// Settings change rarely (PATCH /config) and every customer write needs them, so they are kept for a
// short time. A write refused on cached settings asks again with `fresh` (see the controller), so a
// currency added to the platform is usable at once.
const CACHE_TTL_MS = 5_000;
const CACHE_ENTRIES_MAX = 10_000;

@Injectable()
export class PlatformSettingsCache {
  private readonly entries = new Map<string, { settings: PlatformSettings; expiresAt: number }>();

  constructor(private readonly client: ServiceClient) {}

  async get(context: RequestContext, options: { fresh?: boolean } = {}): Promise<PlatformSettings> {
    const cached = this.entries.get(context.platformId);
    if (!options.fresh && cached && cached.expiresAt > Date.now()) return cached.settings;
    const config = await this.client.request<PlatformConfigWire>(subjects.platform.platform.get, {}, { context, timeoutMs: 2_000 });
    const settings: PlatformSettings = {
      environment: config.environment,
      isRegulatedFinancialInstitution: config.isRegulatedFinancialInstitution,
      supportedCurrencies: config.supportedCurrencies.map((currency) => currency.currencyCode),
      umaDomain: config.umaDomain,
      embeddedWallets: config.embeddedWalletConfig !== undefined && config.embeddedWalletConfig !== null,
    };
    if (this.entries.size >= CACHE_ENTRIES_MAX) this.entries.clear();
    this.entries.set(context.platformId, { settings, expiresAt: Date.now() + CACHE_TTL_MS });
    return settings;
  }
}
