import { Injectable } from '@nestjs/common';
import { type PlatformConfigWire, type RequestContext, subjects } from '@corridor/contracts';
import { RecentlySeen } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';

/** How long a platform's webhookEndpoint, once seen, is taken as still there without asking. */
export const APPROVAL_HOOK_REMEMBERED_MS = 5_000;
const REMEMBERED_PLATFORMS_MAX = 10_000;
const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Whether a remembered answer may stand in for asking the platform service. Only "it has an
 * endpoint" may, and only for a while: a stale yes sends the payment to the approval hook, where
 * the webhooks service, finding no endpoint, reports noEndpoint and the payment is approved as if
 * asked now (incoming-approval.ts). A stale no would skip the platform's approval, so a no is never
 * remembered.
 */
export const rememberedHookStands = (seenAt: number | undefined, now: number): boolean =>
  seenAt !== undefined && now - seenAt < APPROVAL_HOOK_REMEMBERED_MS;

/**
 * Whether a platform has a webhookEndpoint, i.e. an INCOMING_PAYMENT.PENDING approval hook to ask:
 * the platform service is asked, unless it said yes within APPROVAL_HOOK_REMEMBERED_MS.
 */
@Injectable()
export class ApprovalHooks {
  /** When each platform last said it has an endpoint; the platform seen longest ago is forgotten first. */
  private readonly seenAt = new RecentlySeen<number>(REMEMBERED_PLATFORMS_MAX);

  constructor(private readonly client: ServiceClient) {}

  async has(context: RequestContext, now = Date.now()): Promise<boolean> {
    if (rememberedHookStands(this.seenAt.get(context.platformId), now)) return true;
    const config = await this.client.request<PlatformConfigWire>(
      subjects.platform.platform.get,
      {},
      { context, timeoutMs: LOOKUP_TIMEOUT_MS },
    );
    const has = typeof config.webhookEndpoint === 'string' && config.webhookEndpoint !== '';
    if (!has) {
      this.seenAt.forget(context.platformId);
      return false;
    }
    this.seenAt.remember(context.platformId, now);
    return true;
  }
}
