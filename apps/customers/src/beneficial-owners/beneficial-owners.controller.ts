import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type BeneficialOwnerIdData,
  type BeneficialOwnerWire,
  CLOCK,
  type Clock,
  type CreateBeneficialOwnerData,
  DomainError,
  idempotencyScopeOf,
  idForRequest,
  type ListBeneficialOwnersData,
  type Page,
  type RequestContext,
  type ServiceRequest,
  subjects,
  type UpdateBeneficialOwnerData,
} from '@corridor/contracts';
import { EventSourcing, findPage, isWrongExpectedVersionError } from '@corridor/event-store';
import { customerDecider } from '../customers/customer';
import { PlatformSettingsCache } from '../customers/platform-settings.cache';
import { VERIFICATION_PROVIDERS, type VerificationProviders } from '../verifications/verification-provider';
import { addBeneficialOwner } from './add-beneficial-owner';
import { BeneficialOwnerEntity, renderBeneficialOwnerRow } from './beneficial-owner-view.projection';
import { ownerNotFound, updateBeneficialOwner } from './update-beneficial-owner';

/**
 * Every owner change appends to the business's stream at the version it was decided on. Writers
 * that collide are decided again on the fresh state a bounded number of times; a request that
 * still loses is told to retry rather than failing as an internal error.
 */
const busy = (customerId: string) =>
  new DomainError(
    'CONFLICT',
    'conflict',
    `Customer ${customerId} was being changed by other requests at the same moment; retry the request.`,
  );

@Controller()
export class BeneficialOwnersController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly platformSettings: PlatformSettingsCache,
    @Inject(VERIFICATION_PROVIDERS) private readonly providers: VerificationProviders,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.customers.beneficialOwner.create)
  async create(@Payload() request: ServiceRequest<CreateBeneficialOwnerData>): Promise<BeneficialOwnerWire> {
    const { context, data } = request;
    const settings = await this.platformSettings.get(context);
    // A new owner goes through KYC automatically; the screening is recorded with the owner.
    const kycStatus = await this.providers[settings.environment].screenPerson(data.personalInfo);
    // Derived from the Idempotency-Key: a retry after a lost answer finds the owner the first attempt added.
    const beneficialOwnerId = idForRequest(
      'BeneficialOwner',
      idempotencyScopeOf(context),
      'create-beneficial-owner',
      context.idempotencyKey,
    );
    const fingerprint = context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {};
    const command = {
      type: 'AddBeneficialOwner' as const,
      data: { beneficialOwnerId, platformId: context.platformId, request: data, kycStatus, ...fingerprint },
      metadata: { now: this.clock.now() },
    };
    await this.write(data.customerId, () =>
      this.eventSourcing.handle(data.customerId, customerDecider, (customer) => addBeneficialOwner(command, customer), context),
    );
    return this.read(context, beneficialOwnerId);
  }

  @MessagePattern(subjects.customers.beneficialOwner.get)
  get(@Payload() request: ServiceRequest<BeneficialOwnerIdData>): Promise<BeneficialOwnerWire> {
    return this.read(request.context, request.data.beneficialOwnerId);
  }

  @MessagePattern(subjects.customers.beneficialOwner.update)
  async update(@Payload() request: ServiceRequest<UpdateBeneficialOwnerData>): Promise<BeneficialOwnerWire> {
    const { context, data } = request;
    const current = await this.read(context, data.beneficialOwnerId);
    const { personalInfo } = data.patch;
    // Changed personal details are screened again, on the owner as they will be after the patch.
    const kycStatus = personalInfo
      ? await this.providers[(await this.platformSettings.get(context)).environment].screenPerson({
          ...current.personalInfo,
          ...personalInfo,
        })
      : undefined;
    const command = {
      type: 'UpdateBeneficialOwner' as const,
      data: {
        beneficialOwnerId: data.beneficialOwnerId,
        customerId: current.customerId,
        platformId: context.platformId,
        patch: data.patch,
        ...(kycStatus ? { kycStatus } : {}),
      },
      metadata: { now: this.clock.now() },
    };
    await this.write(current.customerId, () =>
      this.eventSourcing.handle(current.customerId, customerDecider, (customer) => updateBeneficialOwner(command, customer), context),
    );
    return this.read(context, data.beneficialOwnerId);
  }

  @MessagePattern(subjects.customers.beneficialOwner.list)
  list(@Payload() request: ServiceRequest<ListBeneficialOwnersData>): Promise<Page<BeneficialOwnerWire>> {
    const { customerId, limit, cursor } = request.data;
    // Scoped by platform: another platform's business lists nothing, exactly like an unknown one.
    const where = { platformId: request.context.platformId, customerId };
    return findPage(
      this.eventSourcing.em,
      BeneficialOwnerEntity,
      where,
      { limit, ...(cursor ? { cursor } : {}) },
      renderBeneficialOwnerRow,
    );
  }

  private async write<T>(customerId: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isWrongExpectedVersionError(error)) throw busy(customerId);
      throw error;
    }
  }

  private async read(context: RequestContext, beneficialOwnerId: string): Promise<BeneficialOwnerWire> {
    const row = await this.eventSourcing.em.findOne(BeneficialOwnerEntity, { id: beneficialOwnerId, platformId: context.platformId });
    if (!row) throw ownerNotFound(beneficialOwnerId);
    return renderBeneficialOwnerRow(row);
  }
}
