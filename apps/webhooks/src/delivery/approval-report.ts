import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { DomainError, type IncomingApprovalAnswerData, newUuid, type RequestContext, subjects } from '@corridor/contracts';
import { createLogger, ServiceClient } from '@corridor/messaging';
import type { PostResult } from './post-webhook';

const ATTEMPTS = 4;
const TIMEOUT_MS = 5_000;

/**
 * Tells the payments service how the platform answered an INCOMING_PAYMENT.PENDING approval hook
 * (the delivery's one attempt: status and body, or the error). Retried a few times; if payments
 * never hears, its own deadline fails the payment PAYMENT_APPROVAL_WEBHOOK_ERROR, so the wait is
 * bounded either way (docs/decisions/0013-incoming-payments.md). Reports are fire-and-forget for
 * the delivery worker; shutdown waits for those under way.
 */
@Injectable()
export class ApprovalReporter implements OnApplicationShutdown {
  private readonly logger = createLogger('webhooks:approval-report');
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly client: ServiceClient) {}

  /** noEndpoint: the platform had no webhookEndpoint when the hook was due, so nothing was sent (payments approves). */
  report(platformId: string, transactionId: string, result: PostResult, options: { noEndpoint: boolean }): void {
    const data: IncomingApprovalAnswerData = {
      transactionId,
      ...(options.noEndpoint ? { noEndpoint: true } : {}),
      ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
      ...(result.responseBody !== undefined ? { responseBody: result.responseBody } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
    };
    const sending = this.send(platformId, data).finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }

  private async send(platformId: string, data: IncomingApprovalAnswerData): Promise<void> {
    const requestId = newUuid();
    const context: RequestContext = { platformId, actor: { kind: 'system', name: 'webhooks' }, requestId, correlationId: requestId };
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.client.request(subjects.payments.incoming.approvalAnswer, data, { context, timeoutMs: TIMEOUT_MS });
        return;
      } catch (error) {
        // A refusal (the payment is unknown to payments) will not change on retry.
        if ((error instanceof DomainError && error.status < 500) || attempt >= ATTEMPTS) {
          this.logger.warn(
            { err: error, transactionId: data.transactionId },
            'The approval answer could not be reported; the payment fails at its deadline.',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.inFlight);
  }
}
