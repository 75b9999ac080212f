import {
  cryptoAddressProblem,
  type CryptoNetwork,
  DomainError,
  invalidInput,
  isCryptoNetwork,
  withdrawalNetworks,
  type WithdrawalFeeEstimateWire,
} from '@corridor/contracts';
import type { FeeTerms } from '../pricing/fee-schedule';
import { variableFeeOf } from '../pricing/quote-math';

// POST /crypto/estimate-withdrawal-fee: what withdrawing `amount` from a crypto internal account to
// an external address costs. The network fee is the sandbox's fixed estimate per network, charged
// in the withdrawn asset (so networkFeeAsset is the account's currency and every figure adds up in
// one unit); the application fee is the platform's fee schedule, as for quotes. Pure.

/** Sandbox network fees in minor units of the withdrawn currency. */
export const sandboxNetworkFees: Readonly<Record<string, Partial<Record<CryptoNetwork, bigint>>>> = {
  USDC: { SOLANA: 1_000n, ETHEREUM: 1_500_000n, BASE: 10_000n, POLYGON: 5_000n },
  BTC: { BITCOIN: 2_000n, LIGHTNING: 10n, SPARK: 0n },
  USDB: { SPARK: 0n },
};

export type WithdrawalAccount = { id: string; currency: string; status: string };
export type WithdrawalRequest = { currency: string; cryptoNetwork: string; amount: bigint; destinationAddress: string };

export const estimateWithdrawalFee = (
  account: WithdrawalAccount,
  request: WithdrawalRequest,
  fees: FeeTerms,
): WithdrawalFeeEstimateWire => {
  const { currency, cryptoNetwork, amount, destinationAddress } = request;
  const networks = withdrawalNetworks[currency];
  if (!networks)
    throw invalidInput(`currency ${currency} is not a crypto currency; withdrawals are in ${Object.keys(withdrawalNetworks).join(', ')}.`, {
      field: 'currency',
    });
  if (account.currency !== currency)
    throw invalidInput(`internalAccountId ${account.id} holds ${account.currency}, not ${currency}.`, { field: 'currency' });
  if (account.status !== 'ACTIVE')
    throw invalidInput(`internalAccountId ${account.id} is ${account.status}; only an ACTIVE account can withdraw.`, {
      field: 'internalAccountId',
    });
  if (!isCryptoNetwork(cryptoNetwork) || !networks.includes(cryptoNetwork)) {
    throw invalidInput(`${currency} is withdrawn on ${networks.join(', ')}, not ${cryptoNetwork}.`, { field: 'cryptoNetwork' });
  }
  const addressProblem = cryptoAddressProblem(cryptoNetwork, destinationAddress);
  if (addressProblem) throw invalidInput(addressProblem, { field: 'destinationAddress' });
  if (amount < 1n || amount > BigInt(Number.MAX_SAFE_INTEGER))
    throw new DomainError('AMOUNT_OUT_OF_RANGE', 'validation', `amount must be from 1 to ${Number.MAX_SAFE_INTEGER} minor units.`, {
      field: 'amount',
    });
  const networkFee = sandboxNetworkFees[currency]?.[cryptoNetwork] ?? 0n;
  const applicationFee = fees.fixedFee + variableFeeOf(amount, fees.variableFeeRate);
  const totalFee = networkFee + applicationFee;
  if (amount <= totalFee) {
    throw new DomainError(
      'AMOUNT_OUT_OF_RANGE',
      'validation',
      `amount ${amount} does not cover the fees of ${totalFee} minor units of ${currency}; withdraw more.`,
      { field: 'amount', totalFee: Number(totalFee) },
    );
  }
  return {
    networkFee: Number(networkFee),
    networkFeeAsset: currency,
    applicationFee: Number(applicationFee),
    totalFee: Number(totalFee),
    netAmount: Number(amount - totalFee),
  };
};
