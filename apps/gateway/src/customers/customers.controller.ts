import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, type Type, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiExtraModels, ApiTags, getSchemaPath } from '@nestjs/swagger';
import {
  type CreateCustomerData,
  type CustomerIdData,
  type CustomerWire,
  type Page,
  type RequestContext,
  subjects,
  type UpdateCustomerData,
  type CustomerEmailChangeData,
  type SignedReply,
  type WalletAuthorization,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { AsOfQuery, defined, pageOf } from '../http/list-query';
import { DiscriminatedBodyPipe, IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answer, applyAuthorized, walletHeaders } from '../auth-credentials/signed-reply';
import {
  BusinessCustomerCreateRequest,
  BusinessCustomerUpdateRequest,
  type CustomerCreateRequest,
  type CustomerUpdateRequest,
  IndividualCustomerCreateRequest,
  IndividualCustomerUpdateRequest,
  ListCustomersQuery,
} from './customer.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const customerId = new IdPipe('Customer', 'USER_NOT_FOUND', 'Customer');
const createBody = new DiscriminatedBodyPipe('customerType', {
  INDIVIDUAL: IndividualCustomerCreateRequest,
  BUSINESS: BusinessCustomerCreateRequest,
});
const updateBody = new DiscriminatedBodyPipe('customerType', {
  INDIVIDUAL: IndividualCustomerUpdateRequest,
  BUSINESS: BusinessCustomerUpdateRequest,
});
const oneOf = (...models: Type<object>[]) => ({
  schema: { oneOf: models.map((model) => ({ $ref: getSchemaPath(model) })), discriminator: { propertyName: 'customerType' } },
});

@ApiTags('Customers')
@ApiBasicAuth()
@ApiExtraModels(
  IndividualCustomerCreateRequest,
  BusinessCustomerCreateRequest,
  IndividualCustomerUpdateRequest,
  BusinessCustomerUpdateRequest,
)
@Controller('customers')
export class CustomersController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createCustomer')
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  @ApiBody(oneOf(IndividualCustomerCreateRequest, BusinessCustomerCreateRequest))
  create(@Body(createBody) body: CustomerCreateRequest, @Ctx() context: RequestContext): Promise<CustomerWire> {
    return this.call.request(subjects.customers.customer.create, body satisfies CreateCustomerData, context);
  }

  @ReferenceOperation('listCustomers')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListCustomersQuery, @Ctx() context: RequestContext): Promise<Page<CustomerWire>> {
    const { limit: _limit, cursor: _cursor, isIncludingDeleted, ...filters } = query;
    const data = {
      ...defined(filters),
      ...(isIncludingDeleted !== undefined ? { isIncludingDeleted: isIncludingDeleted === 'true' } : {}),
      ...pageOf(query),
    };
    return this.call.request(subjects.customers.customer.list, data, context);
  }

  @ReferenceOperation('getCustomerById')
  @Get(':customerId')
  @RequiresPermission('VIEW')
  get(@Param('customerId', customerId) id: string, @Query() query: AsOfQuery, @Ctx() context: RequestContext): Promise<CustomerWire> {
    return this.call.request(subjects.customers.customer.get, { customerId: id, ...defined(query) } satisfies CustomerIdData, context);
  }

  @ReferenceOperation('updateCustomerById', { signature: 'signedRetry' })
  @Patch(':customerId')
  @RequiresPermission('MANAGE')
  @ApiBody(oneOf(IndividualCustomerUpdateRequest, BusinessCustomerUpdateRequest))
  async update(
    @Param('customerId', customerId) id: string,
    @Body(updateBody) body: CustomerUpdateRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    // An email change of a customer with an Embedded Wallet takes the wallet's signed retry first.
    let authorization: WalletAuthorization | undefined;
    if ((body as { email?: unknown }).email !== undefined) {
      const wallet = await this.call.request<SignedReply<WalletAuthorization>>(
        subjects.accounts.embeddedWallet.customerEmailChange,
        { customerId: id, body: { ...body }, ...walletHeaders(request) } satisfies CustomerEmailChangeData,
        context,
      );
      if (wallet.status === 202) return answer(reply, wallet);
      authorization = wallet.body;
    }
    const data: UpdateCustomerData = { customerId: id, patch: body };
    return applyAuthorized(this.call, context, authorization, () =>
      this.call.request<CustomerWire>(subjects.customers.customer.update, data, context),
    );
  }

  @ReferenceOperation('deleteCustomerById')
  @Delete(':customerId')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  delete(@Param('customerId', customerId) id: string, @Ctx() context: RequestContext): Promise<CustomerWire> {
    return this.call.request(subjects.customers.customer.delete, { customerId: id }, context);
  }
}
