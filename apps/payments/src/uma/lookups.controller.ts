import { withCorridorPayerFields } from './payer-fields';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  type CustomerWire,
  DomainError,
  type ExternalAccountWire,
  invalidInput,
  invalidUmaAddress,
  isIdOf,
  isUmaAddress,
  type LookupExternalAccountData,
  type LookupSender,
  type LookupUmaData,
  newId,
  type ReceiverExternalAccountLookupWire,
  type ReceiverUmaLookupWire,
  type RequestContext,
  type ServiceRequest,
  subjects,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import { ExchangeRateCache } from '../exchange-rates/rate-provider';
import { type ReceiverLookupRecord, receiverLookupDecider, type RecordLookup, recordLookup } from './receiver-lookup';
import { currencyPreferencesOf } from './receiver-pricing';
import { toCurrencyPreferenceWire, umaReceiverAt } from './uma-directory';
import { UMA_OPTIONS, type UmaOptions } from './uma-options';

const CALL_TIMEOUT_MS = 5_000;

/**
 * GET /receiver/uma/{address} and GET /receiver/external-account/{id}: find what the receiver
 * accepts, price it, and record the answer as a Lookup stream whose id a quote can cite.
 */
@Controller()
export class LookupsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    private readonly rates: ExchangeRateCache,
    @Inject(UMA_OPTIONS) private readonly options: UmaOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.payments.lookup.uma)
  async uma(@Payload() request: ServiceRequest<LookupUmaData>): Promise<ReceiverUmaLookupWire> {
    const { context, data } = request;
    if (!isUmaAddress(data.receiverUmaAddress)) throw invalidUmaAddress('receiverUmaAddress', data.receiverUmaAddress);
    const sender = await this.sender(context, data);
    const receiver = umaReceiverAt(data.receiverUmaAddress);
    const record = await this.record(
      context,
      { kind: 'UMA', receiverUmaAddress: data.receiverUmaAddress, ...sender },
      receiver.currencies,
      receiver.requiredPayerDataFields,
    );
    return { receiverUmaAddress: data.receiverUmaAddress, ...this.render(record) };
  }

  @MessagePattern(subjects.payments.lookup.externalAccount)
  async externalAccount(@Payload() request: ServiceRequest<LookupExternalAccountData>): Promise<ReceiverExternalAccountLookupWire> {
    const { context, data } = request;
    const notFound = new DomainError(
      'REFERENCE_NOT_FOUND',
      'not_found',
      `External account ${String(data.accountId).slice(0, 80)} was not found.`,
      { accountId: data.accountId },
    );
    if (!isIdOf('ExternalAccount', data.accountId)) throw notFound;
    const sender = await this.sender(context, data);
    const account = await this.externalAccountOf(context, data.accountId);
    if (account.status === 'INACTIVE')
      throw invalidInput(`External account ${account.id} is INACTIVE and cannot receive.`, { field: 'accountId' });
    const record = await this.record(context, { kind: 'EXTERNAL_ACCOUNT', accountId: account.id, ...sender }, [account.currency], []);
    return { accountId: account.id, ...this.render(record) };
  }

  /**
   * The sender, if the request names one (senderUmaAddress, customerId, both or neither: the
   * reference marks both optional). A named sender is checked (a well-formed address; a live
   * customer of this platform) and recorded with the lookup. Without one, the lookup is of the
   * receiver alone: the same currencies, estimates, limits and lookupId, and every payer data field
   * the receiver and its corridors require (what any payer will be asked for); nothing about a
   * payer is checked then. The lookup's answer never depends on the sender, and a quote citing the
   * lookupId checks its own payer's fields whichever way the lookup was made.
   */
  private async sender(context: RequestContext, data: LookupSender): Promise<LookupSender> {
    const { senderUmaAddress, customerId } = data;
    if (senderUmaAddress !== undefined && !isUmaAddress(senderUmaAddress)) throw invalidUmaAddress('senderUmaAddress', senderUmaAddress);
    if (customerId !== undefined) {
      const message = `customerId ${String(customerId).slice(0, 80)} does not name a customer of this platform.`;
      if (!isIdOf('Customer', customerId)) throw invalidInput(message, { field: 'customerId' });
      const customer = await this.client
        .request<CustomerWire>(subjects.customers.customer.get, { customerId }, { context, timeoutMs: CALL_TIMEOUT_MS })
        .catch((error: unknown) => {
          if (error instanceof DomainError && error.status === 404) throw invalidInput(message, { field: 'customerId' });
          throw error;
        });
      if (customer.isDeleted)
        throw invalidInput(`customerId ${customerId} names a deleted customer, who cannot send payments.`, { field: 'customerId' });
    }
    return { ...(senderUmaAddress !== undefined ? { senderUmaAddress } : {}), ...(customerId !== undefined ? { customerId } : {}) };
  }

  /** A customer's or the platform's own external account; another platform's is not found. */
  private async externalAccountOf(context: RequestContext, externalAccountId: string): Promise<ExternalAccountWire> {
    const get = (owner: 'CUSTOMER' | 'PLATFORM') =>
      this.client.request<ExternalAccountWire>(
        subjects.accounts.externalAccount.get,
        { owner, externalAccountId },
        { context, timeoutMs: CALL_TIMEOUT_MS },
      );
    try {
      return await get('CUSTOMER');
    } catch (error) {
      if (!(error instanceof DomainError) || (error.status !== 404 && error.code !== 'INVALID_INPUT')) throw error;
      return get('PLATFORM');
    }
  }

  private async record(
    context: RequestContext,
    target: Pick<ReceiverLookupRecord, 'kind' | 'receiverUmaAddress' | 'accountId' | 'senderUmaAddress' | 'customerId'>,
    currencies: readonly string[],
    requiredPayerDataFields: ReceiverLookupRecord['requiredPayerDataFields'],
  ): Promise<ReceiverLookupRecord> {
    const lookupId = newId('Lookup');
    const snapshot = await this.rates.current();
    const command: RecordLookup = {
      type: 'RecordLookup',
      data: {
        lookup: {
          lookupId,
          platformId: context.platformId,
          ...target,
          supportedCurrencies: currencyPreferencesOf(snapshot, currencies),
          requiredPayerDataFields,
        },
      },
      metadata: { now: this.clock.now(), ttlSeconds: this.options.lookupTtlSeconds },
    };
    const { state } = await this.eventSourcing.handle(
      lookupId,
      receiverLookupDecider,
      (current) => recordLookup(command, current),
      context,
      { assumeNew: true },
    );
    if (state.kind !== 'Recorded') throw new Error(`Lookup ${lookupId} was not recorded.`);
    return state.lookup;
  }

  /** The receiver's own payer data fields plus those its currencies' corridors require: all a quote will ask for. */
  private render(record: ReceiverLookupRecord) {
    const fields = withCorridorPayerFields(
      record.requiredPayerDataFields,
      record.supportedCurrencies.map((preference) => preference.code),
    );
    return {
      lookupId: record.lookupId,
      supportedCurrencies: record.supportedCurrencies.map(toCurrencyPreferenceWire),
      ...(fields.length > 0 ? { requiredPayerDataFields: fields } : {}),
    };
  }
}
