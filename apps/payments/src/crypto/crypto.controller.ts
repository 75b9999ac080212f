import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DomainError,
  type EstimateWithdrawalFeeData,
  type InternalAccountWire,
  isIdOf,
  MINOR_UNITS_MAX,
  parseMinorUnits,
  type ServiceRequest,
  subjects,
  type WithdrawalFeeEstimateWire,
} from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import { feeTermsFor } from '../pricing/fee-schedule';
import { PAYMENTS_OPTIONS, type PaymentsOptions } from '../payments-options';
import { estimateWithdrawalFee } from './withdrawal-fee';

@Controller()
export class CryptoController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(PAYMENTS_OPTIONS) private readonly options: PaymentsOptions,
  ) {}

  /** The account is the accounts service's answer (another platform's is 404, as the reference declares). */
  @MessagePattern(subjects.payments.crypto.estimateWithdrawalFee)
  async estimate(@Payload() request: ServiceRequest<EstimateWithdrawalFeeData>): Promise<WithdrawalFeeEstimateWire> {
    const { context, data } = request;
    if (!isIdOf('InternalAccount', data.internalAccountId)) {
      throw new DomainError(
        'REFERENCE_NOT_FOUND',
        'not_found',
        `Internal account ${String(data.internalAccountId).slice(0, 80)} was not found. Ids look like InternalAccount:<uuid>.`,
        { field: 'internalAccountId' },
      );
    }
    const amount = parseMinorUnits(data.amount, { field: 'amount', min: 0n, max: MINOR_UNITS_MAX });
    const account = await this.client.request<InternalAccountWire>(
      subjects.accounts.internalAccount.get,
      { accountId: data.internalAccountId },
      { context, timeoutMs: 5_000 },
    );
    return estimateWithdrawalFee(
      { id: account.id, currency: account.balance.currency.code, status: account.status },
      {
        currency: data.currency,
        cryptoNetwork: data.cryptoNetwork,
        amount,
        destinationAddress: data.destinationAddress,
      },
      feeTermsFor(this.options.feeSchedules, context.platformId, data.currency),
    );
  }
}
