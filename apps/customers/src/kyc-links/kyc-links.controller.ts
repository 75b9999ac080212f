import { randomBytes } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  type CompleteKycLinkData,
  type CreateKycLinkData,
  DomainError,
  type KycLinkCompleted,
  type KycLinkIssued,
  type KycLinkPage,
  type KycLinkPageData,
  newId,
  type ServiceRequest,
  subjects,
} from '@corridor/contracts';
import { EventSourcing, isWrongExpectedVersionError } from '@corridor/event-store';
import { customerDecider } from '../customers/customer';
import { PlatformSettingsCache } from '../customers/platform-settings.cache';
import { hashToken } from './kyc-link';
import { completeKycLink, issueKycLink, kycLinkNotFound } from './kyc-link-decisions';
import { KycLinkEntity, type KycLinkRow, renderKycLinkPage } from './kyc-link-view.projection';

/** How long a hosted link can be opened; a customer who needs longer gets a new one from the platform. */
export const KYC_LINK_TTL_MS = 60 * 60 * 1000;

const busy = (customerId: string) =>
  new DomainError(
    'CONFLICT',
    'conflict',
    `Customer ${customerId} was being changed by other requests at the same moment; retry the request.`,
  );

/**
 * Hosted KYC links (decision 0011). The token is 32 random bytes, shown once to the platform and
 * recorded only as its SHA-256. The sandbox has no outside KYC vendor: Corridor serves the page
 * itself and the tester's approve/reject is the vendor's outcome. Production platforms have no
 * hosted provider wired in, so they are refused rather than handed a link nobody serves.
 */
@Controller()
export class KycLinksController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly platformSettings: PlatformSettingsCache,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.customers.kycLink.create)
  async create(@Payload() request: ServiceRequest<CreateKycLinkData>): Promise<KycLinkIssued> {
    const { context, data } = request;
    const settings = await this.platformSettings.get(context);
    if (settings.environment !== 'SANDBOX') {
      throw new DomainError(
        'FORBIDDEN',
        'forbidden',
        'Hosted KYC links need a KYC provider, and none is configured for production platforms in this deployment; submit customers ' +
          'with POST /verifications instead.',
        {
          environment: settings.environment,
        },
      );
    }
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + KYC_LINK_TTL_MS).toISOString();
    const command = {
      type: 'IssueKycLink' as const,
      data: {
        linkId: newId('KycLink'),
        customerId: data.customerId,
        platformId: context.platformId,
        tokenHash: hashToken(token),
        expiresAt,
        ...(data.redirectUri ? { redirectUri: data.redirectUri } : {}),
      },
      metadata: { now },
    };
    await this.write(data.customerId, () =>
      this.eventSourcing.handle(data.customerId, customerDecider, (customer) => issueKycLink(command, customer), context),
    );
    return { token, expiresAt, provider: 'SUMSUB' };
  }

  /** The page's view of a link, by token alone: whoever holds the token is the customer. */
  @MessagePattern(subjects.customers.kycLink.page)
  async page(@Payload() request: ServiceRequest<KycLinkPageData>): Promise<KycLinkPage> {
    return renderKycLinkPage(await this.find(request.data.token), this.clock.now());
  }

  @MessagePattern(subjects.customers.kycLink.complete)
  async complete(@Payload() request: ServiceRequest<CompleteKycLinkData>): Promise<KycLinkCompleted> {
    const { data } = request;
    const row = await this.find(data.token);
    // The page's request has no API token: it acts for the platform that issued the link.
    const context = { ...request.context, platformId: row.platformId };
    const command = {
      type: 'CompleteKycLink' as const,
      data: { customerId: row.customerId, platformId: row.platformId, tokenHash: row.tokenHash, decision: data.decision },
      metadata: { now: this.clock.now() },
    };
    const { state } = await this.write(row.customerId, () =>
      this.eventSourcing.handle(row.customerId, customerDecider, (customer) => completeKycLink(command, customer), context),
    );
    return {
      ...(row.redirectUri ? { redirectUri: row.redirectUri } : {}),
      kycStatus: state.status === 'None' ? 'UNKNOWN' : state.verificationStatus,
    };
  }

  private async find(token: string): Promise<KycLinkRow> {
    const row =
      typeof token === 'string' && token.length > 0
        ? await this.eventSourcing.em.findOne(KycLinkEntity, { tokenHash: hashToken(token) })
        : null;
    if (!row) throw kycLinkNotFound();
    return row;
  }

  private async write<T>(customerId: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isWrongExpectedVersionError(error)) throw busy(customerId);
      throw error;
    }
  }
}
