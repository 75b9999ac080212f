// Blockchain addresses by network: what a withdrawal destination must look like before anything is
// estimated or sent. Format checks only (alphabet, length, prefix); they catch a pasted address
// from the wrong network or a truncated one, not a checksum typo on every network.

export const cryptoNetworks = ['SOLANA', 'ETHEREUM', 'BASE', 'POLYGON', 'SPARK', 'LIGHTNING', 'BITCOIN'] as const;
export type CryptoNetwork = (typeof cryptoNetworks)[number];

const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
const BECH32 = '[02-9ac-hj-np-z]';

const formats: Readonly<Record<CryptoNetwork, { pattern: RegExp; example: string }>> = {
  SOLANA: {
    pattern: new RegExp(`^${BASE58}{32,44}$`),
    example: 'a base58 public key such as 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
  },
  ETHEREUM: { pattern: /^0x[0-9a-fA-F]{40}$/, example: '0x followed by 40 hex digits' },
  BASE: { pattern: /^0x[0-9a-fA-F]{40}$/, example: '0x followed by 40 hex digits' },
  POLYGON: { pattern: /^0x[0-9a-fA-F]{40}$/, example: '0x followed by 40 hex digits' },
  SPARK: { pattern: new RegExp(`^spark(rt|t)?1${BECH32}{20,120}$`), example: 'a bech32m address starting spark1' },
  LIGHTNING: {
    pattern: new RegExp(`^(ln(bc|tb|bcrt)[0-9a-z]*1${BECH32}{20,2000}|[a-z0-9._+-]{1,64}@[a-z0-9-]{1,63}(\\.[a-z0-9-]{1,63})+)$`),
    example: 'a BOLT11 invoice (lnbc…) or a lightning address such as alice@example.com',
  },
  BITCOIN: {
    pattern: new RegExp(`^((bc|tb|bcrt)1${BECH32}{6,87}|[13mn2]${BASE58}{25,34})$`),
    example: 'a bech32 (bc1…) or base58 (1… / 3…) address',
  },
};

export const isCryptoNetwork = (value: unknown): value is CryptoNetwork =>
  typeof value === 'string' && (cryptoNetworks as readonly string[]).includes(value);

/** null when the address fits the network, else a sentence saying what was expected. */
export const cryptoAddressProblem = (network: CryptoNetwork, address: string): string | null => {
  const format = formats[network];
  const candidate = network === 'LIGHTNING' ? address.toLowerCase() : address;
  return format.pattern.test(candidate) ? null : `destinationAddress is not a ${network} address: expected ${format.example}.`;
};

/** The networks each crypto currency can be withdrawn on. */
export const withdrawalNetworks: Readonly<Record<string, readonly CryptoNetwork[]>> = {
  BTC: ['BITCOIN', 'LIGHTNING', 'SPARK'],
  USDC: ['SOLANA', 'ETHEREUM', 'BASE', 'POLYGON'],
  USDB: ['SPARK'],
};

export type EstimateWithdrawalFeeData = {
  internalAccountId: string;
  currency: string;
  cryptoNetwork: string;
  /** Minor units, as a decimal string. */
  amount: string;
  destinationAddress: string;
};

export type WithdrawalFeeEstimateWire = {
  networkFee: number;
  networkFeeAsset: string;
  applicationFee: number;
  totalFee: number;
  netAmount: number;
};
