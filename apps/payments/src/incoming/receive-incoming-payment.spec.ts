// Who receives an incoming payment and where it is deposited (spec rules 3-4), judged over what
// the customers and accounts services answered: given those facts, when the payment arrives, then
// the deposit it records, or the refusal the caller hears. Pricing and approval are in incoming-payment.spec.ts.
import type { UmaDepositTargetsWire } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { snapshotOf } from '../exchange-rates/rate-provider';
import { sandboxUsdPrices } from '../pricing/sandbox-rates';
import { parseDecimal } from '../pricing/quote-math';
import { type Deposit, type IncomingPayment, type IncomingPaymentEvent, incomingPaymentDecider } from './incoming-payment';
import { acceptReceiver, type ReceiveIncomingPayment, receiveIncomingPayment } from './receive-incoming-payment';
import { resolveSandboxSender } from './sandbox-sender';

const customerId = 'Customer:0190f000-0000-7000-8000-000000000006';
const usdAccount = { id: 'InternalAccount:0190f000-0000-7000-8000-000000000004', currency: 'USD', status: 'ACTIVE' };
const eurAccount = { id: 'InternalAccount:0190f000-0000-7000-8000-000000000005', currency: 'EUR', status: 'ACTIVE' };
const bankAccount = { id: 'ExternalAccount:0190f000-0000-7000-8000-000000000007', currency: 'USD', status: 'ACTIVE' };
const now = new Date('2026-03-01T10:00:00.000Z');

const receiving = (
  depositTargets: UmaDepositTargetsWire,
  overrides: Partial<ReceiveIncomingPayment['data']> = {},
): ReceiveIncomingPayment => ({
  type: 'ReceiveIncomingPayment',
  data: {
    transactionId: 'Transaction:0190f000-0000-7000-8000-0000000000a3',
    platformId: 'Platform:0190f000-0000-7000-8000-000000000001',
    customer: { customerId, platformCustomerId: 'crm-7' },
    sender: resolveSandboxSender('$success.eur@sandbox.uma.money'),
    currency: 'USD',
    depositTargets,
    amount: 1000n,
    fees: { fixedFee: 10n, variableFeeRate: parseDecimal('0.003') },
    msatToReceivingMinor: snapshotOf(sandboxUsdPrices, now).msatToMinor('USD'),
    limits: { min: 100n, max: 1_000_000_000n },
    approvalHook: true,
    ...overrides,
  },
  metadata: { now, webhookAnswerSeconds: 60, settleRetrySeconds: 10 },
});

const spec = deciderSpec<IncomingPayment, ReceiveIncomingPayment, IncomingPaymentEvent>({
  decide: receiveIncomingPayment,
  ...incomingPaymentDecider,
});
const depositOf = (command: ReceiveIncomingPayment): Deposit => {
  const created = receiveIncomingPayment(command, incomingPaymentDecider.initialState()).find(
    (event): event is Extract<IncomingPaymentEvent, { type: 'IncomingPaymentCreated' }> => event.type === 'IncomingPaymentCreated',
  );
  if (!created) throw new Error('no IncomingPaymentCreated');
  return created.data.deposit;
};

describe('ReceiveIncomingPayment: where the money is deposited', () => {
  it("given no default deposit account, deposits into the customer's internal account in the receiving currency", () =>
    expect(depositOf(receiving({ defaultExternalAccount: null, internalAccounts: [eurAccount, usdAccount] }))).toEqual({
      kind: 'INTERNAL_ACCOUNT',
      accountId: usdAccount.id,
      currency: 'USD',
    }));

  it('given a default UMA deposit account in the currency, deposits there even when an internal account holds it too', () =>
    expect(depositOf(receiving({ defaultExternalAccount: bankAccount, internalAccounts: [usdAccount] }))).toEqual({
      kind: 'EXTERNAL_ACCOUNT',
      accountId: bankAccount.id,
      currency: 'USD',
    }));

  it('given a default deposit account in another currency, refuses with INVALID_CURRENCY naming it and its currency', () =>
    spec
      .given([])
      .when(receiving({ defaultExternalAccount: { ...bankAccount, currency: 'EUR' }, internalAccounts: [usdAccount] }))
      .thenThrows((error) =>
        expect([error.code, error.status, error.details]).toEqual([
          'INVALID_CURRENCY',
          400,
          { field: 'receivingCurrencyCode', depositAccountId: bankAccount.id, depositCurrency: 'EUR' },
        ]),
      ));

  it('given an INACTIVE default deposit account, refuses with INVALID_INPUT naming customerId (no fall back to an internal account)', () =>
    spec
      .given([])
      .when(receiving({ defaultExternalAccount: { ...bankAccount, status: 'INACTIVE' }, internalAccounts: [usdAccount] }))
      .thenThrows((error) => expect([error.code, error.details]).toEqual(['INVALID_INPUT', { field: 'customerId' }])));

  it('given no account in the currency, refuses with INVALID_CURRENCY listing the currencies the customer holds', () =>
    spec
      .given([])
      .when(receiving({ defaultExternalAccount: null, internalAccounts: [eurAccount, { ...eurAccount, id: 'InternalAccount:x' }] }))
      .thenThrows((error) => {
        expect([error.code, error.details]).toEqual(['INVALID_CURRENCY', { field: 'receivingCurrencyCode' }]);
        expect(error.message).toContain('(accounts in: EUR)');
      }));

  it('judges the deposit before the amount: a customer who cannot receive hears that, not the limits', () =>
    spec
      .given([])
      .when(receiving({ defaultExternalAccount: null, internalAccounts: [] }, { amount: 1n }))
      .thenThrows((error) =>
        expect([error.code, error.message]).toEqual(['INVALID_CURRENCY', expect.stringContaining('accounts in: none')]),
      ));
});

describe('acceptReceiver: the customer a receive names', () => {
  const customer = { id: customerId, umaAddress: '$ada@corridor.test', isDeleted: false };
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error as { code: string; status: number; details: unknown };
    }
    throw new Error('expected a refusal');
  };

  it('given the customer named by id, by address, or by both agreeing, accepts it', () => {
    expect(acceptReceiver({ customerId }, customer)).toBe(customer);
    expect(acceptReceiver({ receiverUmaAddress: '$ada@corridor.test' }, customer)).toBe(customer);
    expect(acceptReceiver({ customerId, receiverUmaAddress: '$ada@corridor.test' }, customer)).toBe(customer);
  });

  it('refuses a customerId whose UMA address is not the receiverUmaAddress sent with it, naming receiverUmaAddress', () => {
    const error = refusal(() => acceptReceiver({ customerId, receiverUmaAddress: '$bob@corridor.test' }, customer));
    expect([error.code, error.status, error.details]).toEqual(['INVALID_INPUT', 400, { field: 'receiverUmaAddress' }]);
  });

  it('refuses a deleted customer with 404 USER_NOT_FOUND, naming the field the request used', () => {
    const deleted = { ...customer, isDeleted: true };
    expect(refusal(() => acceptReceiver({ customerId }, deleted))).toMatchObject({
      code: 'USER_NOT_FOUND',
      status: 404,
      details: { field: 'customerId' },
    });
    expect(refusal(() => acceptReceiver({ receiverUmaAddress: '$ada@corridor.test' }, deleted))).toMatchObject({
      code: 'USER_NOT_FOUND',
      details: { field: 'receiverUmaAddress' },
    });
  });
});
