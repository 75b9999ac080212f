import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '@corridor/contracts';
import { PeriodicSweep } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { WALLET_OPTIONS, type WalletOptions } from './wallet-lookups';
import { SandboxMailbox } from './sandbox-mailbox';

/** Mails deleted per sweep; a backlog (after downtime) drains over the following sweeps. */
const PURGE_BATCH = 1_000;

/**
 * Deletes sandbox mail once its OTP has expired, so plaintext OTPs do not pile up in the table.
 * The timer is the table itself (expires_at), so a service that was down purges what expired
 * meanwhile on its first sweep; two replicas sweeping at once delete each row once.
 */
@Injectable()
export class PurgeSandboxMailboxJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('accounts:sandbox-mailbox-purge');
  private readonly sweeper = new PeriodicSweep(
    () => this.purgeExpired(),
    (error) => this.logger.error({ err: error }, 'Sandbox mailbox purge failed; the next sweep tries again.'),
  );

  constructor(
    private readonly mailbox: SandboxMailbox,
    @Inject(WALLET_OPTIONS) private readonly options: WalletOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.mailboxSweepSeconds * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.sweeper.stop();
  }

  /** One purge at the clock's now (up to a batch); returns how many mails it deleted. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  private async purgeExpired(): Promise<number> {
    const purged = await this.mailbox.purgeExpired(this.clock.now(), PURGE_BATCH);
    if (purged > 0) this.logger.info({ purged }, 'Purged sandbox mail whose OTP expired.');
    return purged;
  }
}
