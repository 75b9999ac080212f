import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { eventsStreamName } from '@corridor/contracts';
import { ensureEventsStream } from '@corridor/event-store';
import { createLogger, startDurableConsumer, natsConnectionOptions } from '@corridor/messaging';
import { connect, type NatsConnection } from 'nats';
import { ACCOUNTS_POLICY_OPTIONS, type AccountsPolicyOptions } from '../internal-accounts/open-accounts-when-customer-created.policy';
import { WalletConsents } from '../internal-accounts/wallet-consents';

/** The card events after which a card pays from fewer wallets: closed, rejected at issue, sources replaced. */
const ENDING_TYPES: readonly string[] = ['CardClosed', 'CardIssueRejected', 'CardFundingSourcesReplaced'];

export type CardConsentEnd = { platformId: string; cardId: string; keepAccountIds: string[]; at: Date };

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * What a cards integration event ends: the consents of the wallets the card does not list after it
 * (a closed or rejected card lists none), as of the event's time. Null for any other event, or
 * one without the card.
 */
export const cardConsentEndOf = (payload: unknown): CardConsentEnd | null => {
  const event = asRecord(payload);
  if (typeof event['type'] !== 'string' || !ENDING_TYPES.includes(event['type'])) return null;
  const card = asRecord(asRecord(event['data'])['card']);
  const at = typeof event['occurredAt'] === 'string' ? new Date(event['occurredAt']) : null;
  if (typeof card['id'] !== 'string' || typeof event['platformId'] !== 'string' || !at || Number.isNaN(at.getTime())) return null;
  const sources = Array.isArray(card['fundingSources']) ? card['fundingSources'].filter((id): id is string => typeof id === 'string') : [];
  const keepAccountIds = event['type'] === 'CardFundingSourcesReplaced' ? sources : [];
  return { platformId: event['platformId'], cardId: card['id'], keepAccountIds, at };
};

/**
 * A wallet's consent to fund a card lasts while the card lists it: when the card is closed, rejected
 * or its sources replaced without the wallet, the consent ends (decision 0020), so the ledger holds
 * no more of the wallet's money for that card even if some caller asked it to. Binding the wallet
 * again takes a new signed retry. Ending is idempotent and in card order, so a redelivery is harmless.
 */
@Injectable()
export class EndCardConsentsWhenCardChangesPolicy implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = createLogger('accounts:card-consents-policy');
  private nats?: NatsConnection;
  private consumer?: { stop(): Promise<void> };

  constructor(
    @Inject(ACCOUNTS_POLICY_OPTIONS) private readonly options: AccountsPolicyOptions,
    private readonly consents: WalletConsents,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { natsUrl, natsAuth, subjectPrefix } = this.options;
    this.nats = await connect(natsConnectionOptions(natsUrl, natsAuth, 'accounts-card-consents-policy'));
    const stream = eventsStreamName(subjectPrefix);
    await ensureEventsStream(this.nats, { name: stream, subjects: [`${subjectPrefix}.events.>`] });
    this.consumer = await startDurableConsumer({
      nc: this.nats,
      stream,
      durable: 'accounts-end-card-consents',
      filterSubject: `${subjectPrefix}.events.cards.Card.>`,
      handle: (payload, meta) => this.handle(payload, meta.msgId),
      logger: this.logger,
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats?.drain();
  }

  async handle(payload: unknown, msgId: string): Promise<void> {
    const end = cardConsentEndOf(payload);
    if (!end) return;
    const ended = await this.consents.endCard(end);
    if (ended > 0)
      this.logger.info({ msgId, cardId: end.cardId, ended }, 'Ended Embedded Wallet consents of a card that no longer lists the wallet.');
  }
}
