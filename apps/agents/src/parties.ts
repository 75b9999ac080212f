import { Injectable } from '@nestjs/common';
import {
  trimTrailing,
  type CustomerWire,
  DomainError,
  type ExchangeRateWire,
  type ExternalAccountWire,
  type InternalAccountWire,
  isIdOf,
  type ListExchangeRatesData,
  type QuoteIdData,
  type QuoteWire,
  type RequestContext,
  subjects,
  type VerifyWalletStampData,
} from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import type { WalletStampTarget } from './actions/wallet-stamp';
import { type Rate, rateFromQuoteRate } from './policy/evaluate-policy';

const LOOKUP_TIMEOUT_MS = 5_000;

/** A JSON number as the plain decimal rateFromQuoteRate reads (never exponent notation). */
const decimalOf = (value: number): string =>
  /e/i.test(String(value)) ? trimTrailing(trimTrailing(value.toFixed(20), '0'), '.') : String(value);

const isNotFound = (error: unknown) => error instanceof DomainError && error.status === 404;
const customerNotFound = (message: string) => new DomainError('USER_NOT_FOUND', 'not_found', message, { field: 'customerId' });

/**
 * Payments' answer that it exchanges no such currency: 400 INVALID_INPUT on the currency filter
 * (list-exchange-rates.ts). Like a pair it lists no corridor for, that means "no rate". Any other
 * refusal is about something else (our request, the caller's platform) and must not pass for a
 * missing rate.
 */
export const isUnpricedCurrency = (error: unknown): boolean =>
  error instanceof DomainError &&
  error.code === 'INVALID_INPUT' &&
  (error.details?.['field'] === 'sourceCurrency' || error.details?.['field'] === 'destinationCurrency');

/**
 * What the agents service asks of the services that own it — customers, accounts, payments — with
 * the caller's platform, so another platform's resource is simply not found. Only facts are
 * gathered here; what they allow is decided in the deciders and the policy evaluation.
 */
@Injectable()
export class AgentParties {
  constructor(private readonly client: ServiceClient) {}

  request<Reply>(subject: string, data: unknown, context: RequestContext, timeoutMs = LOOKUP_TIMEOUT_MS): Promise<Reply> {
    return this.client.request<Reply>(subject, data, { context, timeoutMs });
  }

  /**
   * A customer of this platform, not deleted. Else 404 USER_NOT_FOUND, or `missing` where the
   * operation declares no 404 (createAgent names the customer in its body: a 400 naming the field).
   */
  async customer(
    context: RequestContext,
    customerId: string,
    missing: (message: string) => DomainError = customerNotFound,
  ): Promise<CustomerWire> {
    const notFound = () => missing(`Customer ${String(customerId).slice(0, 80)} is not a customer of this platform.`);
    if (!isIdOf('Customer', customerId)) throw notFound();
    const customer = await this.request<CustomerWire>(subjects.customers.customer.get, { customerId }, context).catch((error: unknown) => {
      throw isNotFound(error) ? notFound() : error;
    });
    if (customer.isDeleted) throw notFound();
    return customer;
  }

  async internalAccount(context: RequestContext, accountId: unknown): Promise<InternalAccountWire | undefined> {
    if (!isIdOf('InternalAccount', accountId)) return undefined;
    return this.request<InternalAccountWire>(subjects.accounts.internalAccount.get, { accountId }, context).catch((error: unknown) => {
      // Unknown, deleted or another platform's: an answer, not a failure. The caller refuses an
      // undefined account exactly as one of another customer, naming the field it came from, so
      // the refusal tells the agent nothing about other tenants. Every other error propagates.
      if (isNotFound(error)) return undefined;
      throw error;
    });
  }

  async externalAccount(context: RequestContext, externalAccountId: unknown): Promise<ExternalAccountWire | undefined> {
    if (!isIdOf('ExternalAccount', externalAccountId)) return undefined;
    return this.request<ExternalAccountWire>(
      subjects.accounts.externalAccount.get,
      { owner: 'CUSTOMER', externalAccountId },
      context,
    ).catch((error: unknown) => {
      // As for internal accounts: not found is refused by the caller like another customer's account.
      if (isNotFound(error)) return undefined;
      throw error;
    });
  }

  /** asOf: the quote as it stood then (decision 0039); payments answers 404 before it existed. */
  async quote(context: RequestContext, quoteId: string, asOf?: string): Promise<QuoteWire> {
    return this.request<QuoteWire>(
      subjects.payments.quote.get,
      { quoteId, ...(asOf !== undefined ? { asOf } : {}) } satisfies QuoteIdData,
      context,
    );
  }

  /**
   * The stamp of a wallet-sourced quote, checked by accounts as payments
   * checks it on execute: a refusal is accounts' 401 (WALLET_SIGNATURE_*).
   */
  async verifyWalletStamp(context: RequestContext, target: WalletStampTarget, walletSignature: string | undefined): Promise<void> {
    const data: VerifyWalletStampData = { ...target, ...(walletSignature !== undefined ? { walletSignature } : {}) };
    await this.request(subjects.accounts.embeddedWallet.verifyStamp, data, context);
  }

  /**
   * The rate from one currency into another now, from payments' exchange rates: the listed corridor
   * from → to, or else the reverse corridor read backwards. A pair payments does not trade is a 400
   * naming it (the policy cannot be evaluated in a currency nobody can price).
   */
  async rate(context: RequestContext, from: string, to: string): Promise<Rate> {
    const forward = await this.listRates(context, from, to);
    if (forward) return rateFromQuoteRate(decimalOf(forward.exchangeRate), from, to);
    const reverse = await this.listRates(context, to, from);
    if (reverse) {
      // reverse: `to` units per one `from` unit; invert it into the sending-per-receiving form.
      const inverted = rateFromQuoteRate(decimalOf(reverse.exchangeRate), to, from);
      return { numerator: inverted.denominator, denominator: inverted.numerator };
    }
    throw new DomainError(
      'INVALID_INPUT',
      'validation',
      `No exchange rate between ${from} and ${to} is available to compare this ${from} amount with the agent's ${to} limits.`,
      { field: 'currency' },
    );
  }

  private async listRates(context: RequestContext, from: string, to: string): Promise<ExchangeRateWire | undefined> {
    const data: ListExchangeRatesData = { sourceCurrency: from, destinationCurrencies: [to] };
    const rates = await this.request<ExchangeRateWire[] | { data: ExchangeRateWire[] }>(
      subjects.payments.exchangeRate.list,
      data,
      context,
    ).catch((error: unknown) => {
      if (isUnpricedCurrency(error)) return [];
      throw error;
    });
    const list = Array.isArray(rates) ? rates : rates.data;
    return list.find((rate) => rate.sourceCurrency.code === from && rate.destinationCurrency.code === to && rate.exchangeRate > 0);
  }
}
