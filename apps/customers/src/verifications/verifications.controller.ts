import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { FilterQuery } from '@mikro-orm/core';
import {
  CLOCK,
  type Clock,
  DomainError,
  type ListVerificationsData,
  newId,
  type Page,
  type RenderVerificationAtData,
  type RequestContext,
  type ServiceRequest,
  subjects,
  type SubmitVerificationData,
  type VerificationIdData,
  type VerificationWire,
} from '@corridor/contracts';
import { EventSourcing, findPage } from '@corridor/event-store';
import { customerDecider } from '../customers/customer';
import { PlatformSettingsCache } from '../customers/platform-settings.cache';
import { recordVerificationOutcome, submitVerification } from './submit-verification';
import { VERIFICATION_PROVIDERS, type VerificationProviders } from './verification-provider';
import { renderVerification, renderVerificationAt, VerificationEntity, type VerificationRow } from './verification-view.projection';

const notFound = (verificationId: string) =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Verification ${verificationId} was not found.`);

@Controller()
export class VerificationsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly platformSettings: PlatformSettingsCache,
    @Inject(VERIFICATION_PROVIDERS) private readonly providers: VerificationProviders,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Submit, then hand a complete customer to the provider and record its outcome. Two appends to
   * the customer's stream: should the process stop between them, the verification stays
   * IN_PROGRESS and the next POST /verifications for the customer asks the provider again.
   */
  @MessagePattern(subjects.customers.verification.submit)
  async submit(@Payload() request: ServiceRequest<SubmitVerificationData>): Promise<VerificationWire> {
    const { context, data } = request;
    const { customerId } = data;
    const platformId = context.platformId;
    const command = {
      type: 'SubmitVerification' as const,
      data: { verificationId: newId('Verification'), customerId, platformId },
      metadata: { now: this.clock.now() },
    };
    const { state } = await this.eventSourcing.handle(
      customerId,
      customerDecider,
      (customer) => submitVerification(command, customer),
      context,
    );
    const latest = state.status === 'None' ? undefined : state.latestVerification;
    if (state.status === 'None' || !latest) throw new Error(`Submitting ${customerId} recorded no verification.`);
    if (latest.verificationStatus === 'IN_PROGRESS') {
      const settings = await this.platformSettings.get(context);
      const outcome = await this.providers[settings.environment].verify(state);
      if (outcome !== 'IN_PROGRESS') {
        const decided = {
          type: 'RecordVerificationOutcome' as const,
          data: { verificationId: latest.verificationId, customerId, platformId, outcome },
          metadata: { now: this.clock.now() },
        };
        await this.eventSourcing.handle(customerId, customerDecider, (customer) => recordVerificationOutcome(decided, customer), context);
      }
    }
    return this.read(context, latest.verificationId);
  }

  @MessagePattern(subjects.customers.verification.get)
  get(@Payload() request: ServiceRequest<VerificationIdData>): Promise<VerificationWire> {
    return this.read(request.context, request.data.verificationId);
  }

  @MessagePattern(subjects.customers.verification.list)
  list(@Payload() request: ServiceRequest<ListVerificationsData>): Promise<Page<VerificationWire>> {
    const { customerId, verificationStatus, limit, cursor } = request.data;
    const where: FilterQuery<VerificationRow> = {
      platformId: request.context.platformId,
      ...(customerId ? { customerId } : {}),
      ...(verificationStatus ? { verificationStatus } : {}),
    };
    return findPage(this.eventSourcing.em, VerificationEntity, where, { limit, ...(cursor ? { cursor } : {}) }, renderVerification);
  }

  /** The webhooks service renders a verification as it was right after the event it announces. */
  @MessagePattern(subjects.customers.verification.renderAt)
  async renderAt(@Payload() request: ServiceRequest<RenderVerificationAtData>): Promise<VerificationWire> {
    const { customerId, verificationId, streamPosition } = request.data;
    const { events } = await this.eventSourcing.store.readStream(customerId);
    const verification = renderVerificationAt(events, streamPosition, verificationId, request.context.platformId);
    if (!verification) throw notFound(verificationId);
    return verification;
  }

  private async read(context: RequestContext, verificationId: string): Promise<VerificationWire> {
    const row = await this.eventSourcing.em.findOne(VerificationEntity, { id: verificationId, platformId: context.platformId });
    if (!row) throw notFound(verificationId);
    return renderVerification(row);
  }
}
