import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type DiscoveryWire,
  type ListDiscoveriesData,
  type ListUmaProvidersData,
  type Page,
  type ServiceRequest,
  subjects,
  type UmaProviderWire,
} from '@corridor/contracts';
import { listUmaProviders } from '../uma/uma-directory';
import { listDiscoveries } from './discoveries';

/** GET /discoveries and GET /uma-providers: directories, the same for every platform. */
@Controller()
export class DirectoriesController {
  @MessagePattern(subjects.payments.discovery.list)
  discoveries(@Payload() request: ServiceRequest<ListDiscoveriesData>): { data: DiscoveryWire[] } {
    return listDiscoveries(request.data);
  }

  @MessagePattern(subjects.payments.umaProvider.list)
  umaProviders(@Payload() request: ServiceRequest<ListUmaProvidersData>): Page<UmaProviderWire> {
    return listUmaProviders(request.data);
  }
}
