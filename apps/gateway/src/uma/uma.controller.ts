import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type ClaimInvitationData,
  type CreateInvitationData,
  type DiscoveryWire,
  type EstimateWithdrawalFeeData,
  type InvitationWire,
  type ListDiscoveriesData,
  type ListUmaProvidersData,
  type LookupExternalAccountData,
  type LookupUmaData,
  type Page,
  type ReceiverExternalAccountLookupWire,
  type ReceiverUmaLookupWire,
  type RequestContext,
  subjects,
  type UmaProviderWire,
  type WithdrawalFeeEstimateWire,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import {
  ClaimInvitationRequest,
  CreateInvitationRequest,
  DiscoveriesQuery,
  EstimateWithdrawalFeeRequest,
  InvitationCodePipe,
  ListUmaProvidersQuery,
  LOOKUP_SENDER_NOTE,
  LookupQuery,
  UmaAddressPathPipe,
} from './uma.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const externalAccountId = new IdPipe('ExternalAccount', 'REFERENCE_NOT_FOUND', 'External account');
const invitationCode = new InvitationCodePipe();
const umaAddress = new UmaAddressPathPipe();

@ApiTags('Cross-Currency Transfers')
@ApiBasicAuth()
@Controller('receiver')
export class ReceiverLookupsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('lookupUma')
  @Get('uma/:receiverUmaAddress')
  @RequiresPermission('VIEW')
  @ApiOperation({
    summary: 'Look up an UMA address: the currencies it accepts, estimates, limits and payer data',
    description: LOOKUP_SENDER_NOTE,
  })
  uma(
    @Param('receiverUmaAddress', umaAddress) receiverUmaAddress: string,
    @Query() query: LookupQuery,
    @Ctx() context: RequestContext,
  ): Promise<ReceiverUmaLookupWire> {
    return this.call.request(subjects.payments.lookup.uma, defined({ receiverUmaAddress, ...query }) satisfies LookupUmaData, context);
  }

  @ReferenceOperation('lookupExternalAccount')
  @Get('external-account/:accountId')
  @RequiresPermission('VIEW')
  @ApiOperation({ summary: 'Look up an external account: its currency, estimate and limits', description: LOOKUP_SENDER_NOTE })
  externalAccount(
    @Param('accountId', externalAccountId) accountId: string,
    @Query() query: LookupQuery,
    @Ctx() context: RequestContext,
  ): Promise<ReceiverExternalAccountLookupWire> {
    return this.call.request(
      subjects.payments.lookup.externalAccount,
      defined({ accountId, ...query }) satisfies LookupExternalAccountData,
      context,
    );
  }
}

@ApiTags('Available UMA Providers')
@ApiBasicAuth()
@Controller('uma-providers')
export class UmaProvidersController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('getAvailableUmaProviders')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListUmaProvidersQuery, @Ctx() context: RequestContext): Promise<Page<UmaProviderWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(
      subjects.payments.umaProvider.list,
      { ...defined(filters), ...pageOf(query) } satisfies ListUmaProvidersData,
      context,
    );
  }
}

@ApiTags('Discoveries')
@ApiBasicAuth()
@Controller('discoveries')
export class DiscoveriesController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('getDiscoveries')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: DiscoveriesQuery, @Ctx() context: RequestContext): Promise<{ data: DiscoveryWire[] }> {
    return this.call.request(subjects.payments.discovery.list, defined({ ...query }) satisfies ListDiscoveriesData, context);
  }
}

@ApiTags('Cross-Currency Transfers')
@ApiBasicAuth()
@Controller('crypto')
export class CryptoController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('estimateCryptoWithdrawalFee')
  @Post('estimate-withdrawal-fee')
  @HttpCode(200)
  @RequiresPermission('VIEW')
  estimate(@Body() body: EstimateWithdrawalFeeRequest, @Ctx() context: RequestContext): Promise<WithdrawalFeeEstimateWire> {
    const data: EstimateWithdrawalFeeData = { ...body, amount: String(body.amount) };
    return this.call.request(subjects.payments.crypto.estimateWithdrawalFee, data, context);
  }
}

@ApiTags('Invitations')
@ApiBasicAuth()
@Controller('invitations')
export class InvitationsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createInvitation')
  @Post()
  @HttpCode(201)
  @RequiresPermission('TRANSACT')
  create(@Body() body: CreateInvitationRequest, @Ctx() context: RequestContext): Promise<InvitationWire> {
    const { amountToSend, ...rest } = body;
    const data: CreateInvitationData = defined({ ...rest, ...(amountToSend !== undefined ? { amountToSend: String(amountToSend) } : {}) });
    return this.call.request(subjects.payments.invitation.create, data, context);
  }

  @ReferenceOperation('getInvitation')
  @Get(':invitationCode')
  @RequiresPermission('VIEW')
  get(@Param('invitationCode', invitationCode) code: string, @Ctx() context: RequestContext): Promise<InvitationWire> {
    return this.call.request(subjects.payments.invitation.get, { code }, context);
  }

  @ReferenceOperation('claimInvitation')
  @Post(':invitationCode/claim')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  claim(
    @Param('invitationCode', invitationCode) code: string,
    @Body() body: ClaimInvitationRequest,
    @Ctx() context: RequestContext,
  ): Promise<InvitationWire> {
    return this.call.request(
      subjects.payments.invitation.claim,
      { code, inviteeUma: body.inviteeUma } satisfies ClaimInvitationData,
      context,
    );
  }

  @ReferenceOperation('cancelInvitation')
  @Post(':invitationCode/cancel')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  cancel(@Param('invitationCode', invitationCode) code: string, @Ctx() context: RequestContext): Promise<InvitationWire> {
    return this.call.request(subjects.payments.invitation.cancel, { code }, context);
  }
}
