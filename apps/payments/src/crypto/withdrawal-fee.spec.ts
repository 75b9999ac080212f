// The withdrawal fee estimate: the network's fee and the platform's fee add up in the withdrawn
// asset, and every mismatch (currency, network, address format, an amount the fees eat) is a 400
// naming its field.
import { cryptoAddressProblem, DomainError } from '@corridor/contracts';
import { defaultFeeSchedule, feeTermsFor } from '../pricing/fee-schedule';
import { estimateWithdrawalFee } from './withdrawal-fee';

const fees = (currency: string) => feeTermsFor({ default: defaultFeeSchedule, platforms: {} }, 'Platform:p', currency);
const usdc = { id: 'InternalAccount:a', currency: 'USDC', status: 'ACTIVE' };
const solana = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const request = (overrides: Partial<Parameters<typeof estimateWithdrawalFee>[1]> = {}) => ({
  currency: 'USDC',
  cryptoNetwork: 'SOLANA',
  amount: 5_000_000n,
  destinationAddress: solana,
  ...overrides,
});

const fieldOf = (run: () => unknown): [string, unknown] => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return [error.code, error.details?.['field']];
    throw error;
  }
  throw new Error('Expected a refusal.');
};

describe('estimateWithdrawalFee', () => {
  it('adds the network fee and the application fee (0.10 USDC + 0.3 %, rounded up) in USDC', () => {
    expect(estimateWithdrawalFee(usdc, request(), fees('USDC'))).toEqual({
      networkFee: 1_000,
      networkFeeAsset: 'USDC',
      applicationFee: 115_000,
      totalFee: 116_000,
      netAmount: 4_884_000,
    });
    // 0.3 % of 333 333 is 999.999 → 1 000.
    expect(
      estimateWithdrawalFee(
        usdc,
        request({ amount: 333_333n, cryptoNetwork: 'BASE', destinationAddress: `0x${'ab'.repeat(20)}` }),
        fees('USDC'),
      ).applicationFee,
    ).toBe(101_000);
  });

  it.each([
    ['a fiat currency', request({ currency: 'USD' }), ['INVALID_INPUT', 'currency']],
    ['a currency the account does not hold', request({ currency: 'BTC', cryptoNetwork: 'BITCOIN' }), ['INVALID_INPUT', 'currency']],
    ['a network the currency is not on', request({ cryptoNetwork: 'SPARK' }), ['INVALID_INPUT', 'cryptoNetwork']],
    ['an address of another network', request({ destinationAddress: `0x${'ab'.repeat(20)}` }), ['INVALID_INPUT', 'destinationAddress']],
    ['an amount the fees take whole', request({ amount: 101_000n }), ['AMOUNT_OUT_OF_RANGE', 'amount']],
  ])('refuses %s', (_case, input, expected) => expect(fieldOf(() => estimateWithdrawalFee(usdc, input, fees('USDC')))).toEqual(expected));

  it('refuses an account that is not ACTIVE', () =>
    expect(fieldOf(() => estimateWithdrawalFee({ ...usdc, status: 'FROZEN' }, request(), fees('USDC')))).toEqual([
      'INVALID_INPUT',
      'internalAccountId',
    ]));
});

describe('cryptoAddressProblem', () => {
  it.each([
    ['SOLANA', solana],
    ['ETHEREUM', '0x52908400098527886E0F7030069857D2E4169EE7'],
    ['BITCOIN', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    ['BITCOIN', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
    ['LIGHTNING', 'alice@wallet.example'],
    ['LIGHTNING', 'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4js'],
    ['SPARK', 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu'],
  ] as const)('accepts a %s address', (network, address) => expect(cryptoAddressProblem(network, address)).toBeNull());

  it.each([
    ['SOLANA', '0OIl-not-base58-0OIl-not-base58-0OIl'],
    ['ETHEREUM', '0x1234'],
    ['BITCOIN', 'bc1-too-short'],
    ['SPARK', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
  ] as const)('refuses a malformed %s address', (network, address) => expect(cryptoAddressProblem(network, address)).toContain(network));
});
