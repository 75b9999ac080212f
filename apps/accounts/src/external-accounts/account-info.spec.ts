// Pins accountInfo validation: every specific variant's valid form, each refusal naming its member
// by dot path with a stable code, the generic table path, and the sandbox verification suffixes.
import { DomainError } from '@corridor/contracts';
import { primaryIdentifierOf, sandboxBeneficiaryOutcome, validateAccountInfo } from './account-info';

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' };
const company = { beneficiaryType: 'BUSINESS', legalName: 'Acme GmbH' };

const refusal = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but validation passed');
};

const expectRefusal = (run: () => unknown, code: string, field: string, problem: string) => {
  const error = refusal(run);
  expect({ status: error.status, code: error.code, details: error.details }).toEqual({ status: 400, code, details: { field, problem } });
  expect(error.message).toContain(field);
};

const validCases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  [
    'USD',
    {
      accountType: 'USD_ACCOUNT',
      accountNumber: '000123456102',
      routingNumber: '011000015',
      bankAccountType: 'CHECKING',
      bankName: 'Fed Bank',
      beneficiary: person,
    },
    '000123456102',
  ],
  [
    'EUR',
    {
      accountType: 'EUR_ACCOUNT',
      iban: 'DE89 3704 0044 0532 0130 00',
      swiftCode: 'cobadeffxxx',
      beneficiary: { ...person, countryOfResidence: 'DE' },
    },
    'DE89370400440532013000',
  ],
  ['GBP', { accountType: 'GBP_ACCOUNT', sortCode: '40-47-84', accountNumber: '70872490', beneficiary: company }, '70872490'],
  ['MXN', { accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118359719', beneficiary: person }, '032180000118359719'],
  [
    'BRL',
    { accountType: 'BRL_ACCOUNT', pixKey: 'TestUser.002@pix.com.br', pixKeyType: 'EMAIL', taxId: '12345678909', beneficiary: person },
    'testuser.002@pix.com.br',
  ],
  ['INR', { accountType: 'INR_ACCOUNT', vpa: 'user@upi', beneficiary: person }, 'user@upi'],
  [
    'AED',
    {
      accountType: 'AED_ACCOUNT',
      iban: 'AE070331234567890123456',
      swiftCode: 'EBILAEAD',
      beneficiary: { ...person, address: { line1: '1 Sheikh Zayed Rd', postalCode: '00000', country: 'AE' } },
    },
    'AE070331234567890123456',
  ],
  ['NGN', { accountType: 'NGN_ACCOUNT', accountNumber: '0123456789', bankName: 'Example Bank', beneficiary: person }, '0123456789'],
  [
    'SWIFT',
    {
      accountType: 'SWIFT_ACCOUNT',
      country: 'GB',
      swiftCode: 'NWBKGB2L',
      bankName: 'NatWest',
      iban: 'GB82WEST12345698765432',
      beneficiary: company,
    },
    'GB82WEST12345698765432',
  ],
  [
    'ETHEREUM',
    { accountType: 'ETHEREUM_WALLET', address: '0xAbCDEF1234567890aBCdEf1234567890ABcDef12' },
    '0xAbCDEF1234567890aBCdEf1234567890ABcDef12',
  ],
  [
    'POLYGON',
    { accountType: 'POLYGON_WALLET', address: '0x0000000000000000000000000000000000001010' },
    '0x0000000000000000000000000000000000001010',
  ],
  [
    'BASE',
    { accountType: 'BASE_WALLET', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
    '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  ],
  [
    'SOLANA',
    { accountType: 'SOLANA_WALLET', address: '4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg' },
    '4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg',
  ],
  ['TRON', { accountType: 'TRON_WALLET', address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' }, 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL'],
  [
    'SPARK',
    { accountType: 'SPARK_WALLET', address: 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu' },
    'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu',
  ],
  ['LIGHTNING', { accountType: 'LIGHTNING', lightningAddress: 'John.Doe@LightningWallet.com' }, 'john.doe@lightningwallet.com'],
];

const currencyOf = (accountType: string) => /^([A-Z]{3})_ACCOUNT$/.exec(accountType)?.[1] ?? 'USDC';

describe('validateAccountInfo: valid variants', () => {
  it.each(validCases)('accepts a %s account and normalizes its primary identifier', (_name, accountInfo, identifier) => {
    const info = validateAccountInfo(accountInfo, { currency: currencyOf(accountInfo['accountType'] as string) });
    expect(info.accountType).toBe(accountInfo['accountType']);
    expect(primaryIdentifierOf(info)).toBe(identifier);
  });

  it('keeps the spec additions on USD and drops members the schema does not know', () => {
    const info = validateAccountInfo(
      {
        accountType: 'USD_ACCOUNT',
        accountNumber: '12345',
        routingNumber: '011000015',
        bankAccountType: 'SAVINGS',
        bankName: ' Chase ',
        nickname: 'x',
        beneficiary: { ...person, pet: 'cat' },
      },
      { currency: 'USD' },
    );
    expect(info).toEqual({
      accountType: 'USD_ACCOUNT',
      accountNumber: '12345',
      routingNumber: '011000015',
      bankAccountType: 'SAVINGS',
      bankName: 'Chase',
      beneficiary: person,
    });
  });

  it('compacts and upper-cases IBAN, BIC and sort code', () => {
    const info = validateAccountInfo(
      {
        accountType: 'EUR_ACCOUNT',
        iban: 'gb82 west 1234 5698 7654 32',
        swiftCode: 'westgb2l',
        beneficiary: { ...person, countryOfResidence: 'GB' },
      },
      { currency: 'EUR' },
    );
    expect(info).toMatchObject({ iban: 'GB82WEST12345698765432', swiftCode: 'WESTGB2L' });
  });

  it('accepts the other reference variants against their generated schema', () => {
    const info = validateAccountInfo(
      { accountType: 'CAD_ACCOUNT', bankCode: '001', branchCode: '00011', accountNumber: '1234567', beneficiary: company },
      { currency: 'CAD' },
    );
    expect(info).toEqual({
      accountType: 'CAD_ACCOUNT',
      bankCode: '001',
      branchCode: '00011',
      accountNumber: '1234567',
      beneficiary: company,
    });
  });

  it('uses a custom field name as the path root', () => {
    expectRefusal(
      () => validateAccountInfo({ accountType: 'MXN_ACCOUNT', beneficiary: person }, { currency: 'MXN', field: 'destination.accountInfo' }),
      'INVALID_INPUT',
      'destination.accountInfo.clabeNumber',
      'missing',
    );
  });
});

const usd = (overrides: Record<string, unknown>) => ({
  accountType: 'USD_ACCOUNT',
  accountNumber: '123456789',
  routingNumber: '011000015',
  beneficiary: person,
  ...overrides,
});
const eur = (iban: string) => ({ accountType: 'EUR_ACCOUNT', iban, beneficiary: { ...person, countryOfResidence: 'DE' } });

describe('validateAccountInfo: refusals name the member', () => {
  it.each<readonly [string, unknown, string, string, string, string]>([
    ['an IBAN with a bad checksum', eur('DE89370400440532013001'), 'EUR', 'INVALID_BANK_ACCOUNT', 'accountInfo.iban', 'checksum'],
    ['an IBAN of the wrong length for its country', eur('DE8937040044053201300'), 'EUR', 'INVALID_INPUT', 'accountInfo.iban', 'length'],
    ['an 8-digit routing number', usd({ routingNumber: '01100001' }), 'USD', 'INVALID_INPUT', 'accountInfo.routingNumber', 'length'],
    [
      'a routing number with a bad ABA checksum',
      usd({ routingNumber: '011000016' }),
      'USD',
      'INVALID_BANK_ACCOUNT',
      'accountInfo.routingNumber',
      'checksum',
    ],
    [
      'a bankAccountType outside the enum',
      usd({ bankAccountType: 'BROKERAGE' }),
      'USD',
      'INVALID_INPUT',
      'accountInfo.bankAccountType',
      'enum',
    ],
    [
      'a CLABE with a bad checksum',
      { accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118359718', beneficiary: person },
      'MXN',
      'INVALID_BANK_ACCOUNT',
      'accountInfo.clabeNumber',
      'checksum',
    ],
    ['an unknown accountType', { accountType: 'ZZZ_ACCOUNT' }, 'USD', 'INVALID_INPUT', 'accountInfo.accountType', 'unknown_account_type'],
    ['an accountType of another currency', usd({}), 'EUR', 'INVALID_INPUT', 'accountInfo.accountType', 'currency_mismatch'],
    ['a missing beneficiary', usd({ beneficiary: undefined }), 'USD', 'INVALID_INPUT', 'accountInfo.beneficiary', 'missing'],
    [
      'an individual without fullName',
      usd({ beneficiary: { beneficiaryType: 'INDIVIDUAL' } }),
      'USD',
      'INVALID_INPUT',
      'accountInfo.beneficiary.fullName',
      'missing',
    ],
    [
      'a business without legalName',
      usd({ beneficiary: { beneficiaryType: 'BUSINESS', fullName: 'x' } }),
      'USD',
      'INVALID_INPUT',
      'accountInfo.beneficiary.legalName',
      'missing',
    ],
    [
      'an unknown beneficiaryType',
      usd({ beneficiary: { beneficiaryType: 'TRUST', fullName: 'x' } }),
      'USD',
      'INVALID_INPUT',
      'accountInfo.beneficiary.beneficiaryType',
      'enum',
    ],
    [
      'an AED individual without address',
      { accountType: 'AED_ACCOUNT', iban: 'AE070331234567890123456', beneficiary: person },
      'AED',
      'INVALID_INPUT',
      'accountInfo.beneficiary.address',
      'missing',
    ],
    [
      'a malformed EVM address',
      { accountType: 'ETHEREUM_WALLET', address: '0x12345' },
      'USDC',
      'INVALID_INPUT',
      'accountInfo.address',
      'pattern',
    ],
    [
      'a Tron address with a bad checksum',
      { accountType: 'TRON_WALLET', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' },
      'USDT',
      'INVALID_BANK_ACCOUNT',
      'accountInfo.address',
      'checksum',
    ],
    [
      'a Solana address with a 0',
      { accountType: 'SOLANA_WALLET', address: '0Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg' },
      'USDC',
      'INVALID_INPUT',
      'accountInfo.address',
      'pattern',
    ],
    [
      'a GBP account number of 7 digits',
      { accountType: 'GBP_ACCOUNT', sortCode: '404784', accountNumber: '7087249', beneficiary: person },
      'GBP',
      'INVALID_INPUT',
      'accountInfo.accountNumber',
      'length',
    ],
    [
      'a CPF PIX key holding an email',
      { accountType: 'BRL_ACCOUNT', pixKey: 'a@b.com', pixKeyType: 'CPF', taxId: '12345678909', beneficiary: person },
      'BRL',
      'INVALID_INPUT',
      'accountInfo.pixKey',
      'pattern',
    ],
    [
      'an INR VPA without a handle',
      { accountType: 'INR_ACCOUNT', vpa: 'user', beneficiary: person },
      'INR',
      'INVALID_INPUT',
      'accountInfo.vpa',
      'pattern',
    ],
    [
      'a 9-digit NUBAN',
      { accountType: 'NGN_ACCOUNT', accountNumber: '012345678', bankName: 'Bank', beneficiary: person },
      'NGN',
      'INVALID_INPUT',
      'accountInfo.accountNumber',
      'length',
    ],
    [
      'a SWIFT account without a destination',
      { accountType: 'SWIFT_ACCOUNT', country: 'GB', swiftCode: 'NWBKGB2L', bankName: 'NatWest', beneficiary: company },
      'GBP',
      'INVALID_INPUT',
      'accountInfo.accountNumber',
      'missing',
    ],
    [
      'a BIC of 9 characters',
      {
        accountType: 'SWIFT_ACCOUNT',
        country: 'GB',
        swiftCode: 'NWBKGB2LX',
        bankName: 'NatWest',
        accountNumber: '1',
        beneficiary: company,
      },
      'GBP',
      'INVALID_INPUT',
      'accountInfo.swiftCode',
      'pattern',
    ],
    [
      'lightning with two destinations',
      { accountType: 'LIGHTNING', lightningAddress: 'a@b.com', bolt12: 'lno1qqqqqqqqqqqqqqqqqqqqqqqqq' },
      'BTC',
      'INVALID_INPUT',
      'accountInfo.lightningAddress',
      'exactly_one',
    ],
    ['lightning with no destination', { accountType: 'LIGHTNING' }, 'BTC', 'INVALID_INPUT', 'accountInfo.invoice', 'missing'],
    [
      'a generic variant breaking its phone pattern',
      { accountType: 'KES_ACCOUNT', phoneNumber: '+255712345678', provider: 'M-PESA', beneficiary: person },
      'KES',
      'INVALID_INPUT',
      'accountInfo.phoneNumber',
      'pattern',
    ],
    ['a non-string member', usd({ accountNumber: 123456 }), 'USD', 'INVALID_INPUT', 'accountInfo.accountNumber', 'not_a_string'],
    ['accountInfo that is not an object', 'USD_ACCOUNT', 'USD', 'INVALID_INPUT', 'accountInfo', 'not_an_object'],
  ])('refuses %s', (_name, accountInfo, currency, code, field, problem) => {
    expectRefusal(() => validateAccountInfo(accountInfo, { currency }), code, field, problem);
  });

  it('lists the accepted accountTypes when refusing an unknown one', () => {
    const error = refusal(() => validateAccountInfo({ accountType: 'ZZZ_ACCOUNT' }, { currency: 'USD' }));
    expect(error.message).toContain('USD_ACCOUNT');
    expect(error.message).toContain('TRON_WALLET');
  });
});

describe('sandboxBeneficiaryOutcome', () => {
  it.each([
    ['000123456102', 'NOT_MATCHED'],
    ['DE89370400440532013103', 'PARTIAL_MATCH'],
    ['testuser.104@pix.com.br', 'PENDING'],
    ['0x00000000000000000000000000000000000106', 'UNSUPPORTED'],
    ['000000107', 'CHECKED_BY_RECEIVING_FI'],
    ['000000108', 'MATCHED'],
    ['000000002', 'MATCHED'],
  ])('gives %s the status %s', (identifier, status) => {
    expect(sandboxBeneficiaryOutcome(identifier)).toBe(status);
  });

  it('refuses suffix 105 as an invalid account', () => {
    expectRefusal(() => sandboxBeneficiaryOutcome('123456105'), 'INVALID_BANK_ACCOUNT', 'accountInfo', 'rejected_by_bank');
  });
});
