import type { PlatformEnvironment } from '@corridor/contracts';

/** What customer rules need to know about the platform; the controller fetches it from the platform service. */
export type PlatformSettings = {
  environment: PlatformEnvironment;
  isRegulatedFinancialInstitution: boolean;
  supportedCurrencies: string[];
  umaDomain: string;
  /** The platform configured embeddedWalletConfig: its customers with an email get an Embedded Wallet. */
  embeddedWallets: boolean;
};

// Each region's home currency, used to infer `currencies` when the platform leaves them out.
const homeCurrencyOfRegion: Readonly<Record<string, string>> = {
  US: 'USD',
  MX: 'MXN',
  GB: 'GBP',
  BR: 'BRL',
  IN: 'INR',
  NG: 'NGN',
  PH: 'PHP',
  CA: 'CAD',
  AE: 'AED',
  DE: 'EUR',
  FR: 'EUR',
  ES: 'EUR',
  IT: 'EUR',
  NL: 'EUR',
  BE: 'EUR',
  PT: 'EUR',
  IE: 'EUR',
  AT: 'EUR',
  FI: 'EUR',
  GR: 'EUR',
};

export const inferCurrencies = (region: string | undefined, settings: PlatformSettings): string[] => {
  const home = region ? homeCurrencyOfRegion[region] : undefined;
  return home && settings.supportedCurrencies.includes(home) ? [home] : [...settings.supportedCurrencies];
};
