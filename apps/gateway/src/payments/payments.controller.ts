import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import {
  type CreateQuoteData,
  type ExchangeRateWire,
  type ListExchangeRatesData,
  type ListTransactionsData,
  type Page,
  type QuoteIdData,
  type QuoteWire,
  type RequestContext,
  subjects,
  type TransactionIdData,
  type TransactionWire,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { AsOfQuery, defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ExchangeRatesQuery, ListTransactionsQuery, QuoteRequest, QuoteRequestPipe } from './payments.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const quoteId = new IdPipe('Quote', 'QUOTE_NOT_FOUND', 'Quote');
const transactionId = new IdPipe('Transaction', 'TRANSACTION_NOT_FOUND', 'Transaction');
const quoteBody = new QuoteRequestPipe();

@ApiTags('Exchange Rates')
@ApiBasicAuth()
@Controller('exchange-rates')
export class ExchangeRatesController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('getExchangeRates')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ExchangeRatesQuery, @Ctx() context: RequestContext): Promise<{ data: ExchangeRateWire[] }> {
    const { destinationCurrency, ...rest } = query;
    const data: ListExchangeRatesData = defined({
      ...rest,
      ...(destinationCurrency !== undefined ? { destinationCurrencies: destinationCurrency } : {}),
    });
    return this.call.request(subjects.payments.exchangeRate.list, data, context);
  }
}

@ApiTags('Cross-Currency Transfers')
@ApiBasicAuth()
@Controller('quotes')
export class QuotesController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createQuote')
  @Post()
  @HttpCode(201)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: QuoteRequest })
  create(@Body(quoteBody) body: CreateQuoteData, @Ctx() context: RequestContext): Promise<QuoteWire> {
    return this.call.request(subjects.payments.quote.create, body, context);
  }

  @ReferenceOperation('getQuoteById')
  @Get(':quoteId')
  @RequiresPermission('VIEW')
  get(@Param('quoteId', quoteId) id: string, @Query() query: AsOfQuery, @Ctx() context: RequestContext): Promise<QuoteWire> {
    return this.call.request(subjects.payments.quote.get, { quoteId: id, ...defined(query) } satisfies QuoteIdData, context);
  }
}

@ApiTags('Transactions')
@ApiBasicAuth()
@Controller('transactions')
export class TransactionsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('listTransactions')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListTransactionsQuery, @Ctx() context: RequestContext): Promise<Page<TransactionWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(
      subjects.payments.transaction.list,
      { ...defined(filters), ...pageOf(query) } satisfies ListTransactionsData,
      context,
    );
  }

  @ReferenceOperation('getTransactionById')
  @Get(':transactionId')
  @RequiresPermission('VIEW')
  get(
    @Param('transactionId', transactionId) id: string,
    @Query() query: AsOfQuery,
    @Ctx() context: RequestContext,
  ): Promise<TransactionWire> {
    return this.call.request(
      subjects.payments.transaction.get,
      { transactionId: id, ...defined(query) } satisfies TransactionIdData,
      context,
    );
  }
}
