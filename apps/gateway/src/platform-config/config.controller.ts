import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import { type PlatformConfigWire, type RequestContext, subjects, type UpdateConfigData } from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { ServiceCall } from '../service-call';
import { PlatformConfigUpdateRequest } from './config.dto';

@ApiTags('Platform configuration')
@ApiBasicAuth()
@Controller('config')
export class ConfigController {
  constructor(private readonly call: ServiceCall) {}

  @Get()
  @RequiresPermission('VIEW')
  get(@Ctx() context: RequestContext): Promise<PlatformConfigWire> {
    return this.call.request(subjects.platform.config.get, {}, context);
  }

  @Patch()
  @RequiresPermission('MANAGE')
  update(@Body() body: PlatformConfigUpdateRequest, @Ctx() context: RequestContext): Promise<PlatformConfigWire> {
    return this.call.request(subjects.platform.config.update, body satisfies UpdateConfigData, context);
  }
}
