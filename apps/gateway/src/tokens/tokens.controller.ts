import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import { type ApiTokenWire, type CreateTokenData, type Page, type Permission, type RequestContext, subjects } from '@corridor/contracts';
import { AuthService } from '../auth/auth.service';
import { RequiresPermission } from '../auth/permissions';
import { Ctx, Grantor } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ApiTokenCreateRequest, ListTokensQuery } from './token.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const tokenId = new IdPipe('Token', 'TOKEN_NOT_FOUND', 'Token');

@ApiTags('API tokens')
@ApiBasicAuth()
@Controller('tokens')
export class TokensController {
  constructor(
    private readonly call: ServiceCall,
    private readonly auth: AuthService,
  ) {}

  @ReferenceOperation('createToken')
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  create(@Body() body: ApiTokenCreateRequest, @Ctx() context: RequestContext, @Grantor() grantor: Permission[]): Promise<ApiTokenWire> {
    // The platform service refuses permissions the asking token does not hold (decision 0022).
    const data: CreateTokenData = { name: body.name, permissions: body.permissions, grantorPermissions: grantor };
    return this.call.request(subjects.platform.token.create, data, context);
  }

  @ReferenceOperation('listTokens')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListTokensQuery, @Ctx() context: RequestContext): Promise<Page<ApiTokenWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.platform.token.list, { ...defined(filters), ...pageOf(query) }, context);
  }

  @ReferenceOperation('getTokenById')
  @Get(':tokenId')
  @RequiresPermission('VIEW')
  get(@Param('tokenId', tokenId) id: string, @Ctx() context: RequestContext): Promise<ApiTokenWire> {
    return this.call.request(subjects.platform.token.get, { tokenId: id }, context);
  }

  @ReferenceOperation('deleteTokenById')
  @Delete(':tokenId')
  @HttpCode(204)
  @RequiresPermission('MANAGE')
  async delete(@Param('tokenId', tokenId) id: string, @Ctx() context: RequestContext): Promise<void> {
    await this.call.request(subjects.platform.token.delete, { tokenId: id }, context);
    // The platform also broadcasts the revocation; evicting here covers a lost broadcast on
    // the replica that served the delete.
    this.auth.evictToken(id);
  }
}
