import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ExchangeRateWire, type ListExchangeRatesData, type ServiceRequest, subjects } from '@corridor/contracts';
import { PAYMENTS_OPTIONS, type PaymentsOptions } from '../payments-options';
import { feeTermsFor } from '../pricing/fee-schedule';
import { listExchangeRates } from './list-exchange-rates';
import { ExchangeRateCache } from './rate-provider';

@Controller()
export class ExchangeRatesController {
  constructor(
    private readonly rates: ExchangeRateCache,
    @Inject(PAYMENTS_OPTIONS) private readonly options: PaymentsOptions,
  ) {}

  /** The asking platform's fees are included, as the reference promises for authenticated requests. */
  @MessagePattern(subjects.payments.exchangeRate.list)
  async list(@Payload() request: ServiceRequest<ListExchangeRatesData>): Promise<{ data: ExchangeRateWire[] }> {
    const { sourceCurrency, destinationCurrencies, sendingAmount } = request.data;
    const snapshot = await this.rates.current();
    const feesOf = (currency: string) => feeTermsFor(this.options.feeSchedules, request.context.platformId, currency);
    return {
      data: listExchangeRates(snapshot, feesOf, {
        ...(sourceCurrency !== undefined ? { sourceCurrency } : {}),
        ...(destinationCurrencies !== undefined ? { destinationCurrencies } : {}),
        ...(sendingAmount !== undefined ? { sendingAmount } : {}),
      }),
    };
  }
}
