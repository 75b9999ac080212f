import { Inject, Injectable } from '@nestjs/common';
import {
  admitAttempt,
  countsTowardLock,
  DEFAULT_FAILURE_POLICY,
  type FailurePolicy,
  type FailureWindow,
  giveBackAttempt,
} from './auth-rules';
import { WALLET_OPTIONS, WALLET_STORE, type WalletOptions } from './wallet-lookups';
import type { WalletStore } from './wallet-store';

/** Challenges are not guesses: ten in ten minutes lock a credential's challenge (longer each time), and nothing clears the count early. */
export const CHALLENGE_POLICY: FailurePolicy = { ...DEFAULT_FAILURE_POLICY, maxFailures: 10, windowMs: 10 * 60_000 };

/** The failure counts of credentials' verifies and wallets' signatures, kept in the store under each key's row lock. */
@Injectable()
export class FailureCounter {
  /** The configured policy of verifies and signatures (EMBEDDED_WALLET_AUTH_FAILURES_MAX). */
  readonly policy: FailurePolicy;

  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) options: WalletOptions,
  ) {
    this.policy = { ...DEFAULT_FAILURE_POLICY, maxFailures: options.authFailuresMax };
  }

  /**
   * One attempt under a failure counter (a credential's verify, a wallet's signatures). The attempt
   * takes its place in the count before it is judged (admitAttempt, under the key's row lock), so a
   * burst of concurrent guesses is judged at most up to the limit and the rest are 429 with
   * Retry-After. A wrong secret or signature keeps its place (countsTowardLock); a refusal that
   * guessed nothing gives it back; a success clears the key. `attempt` sees its admitted window.
   */
  async counted<T>(key: string, now: Date, attempt: (admitted: FailureWindow) => Promise<T>): Promise<T> {
    const policy = this.policy;
    const admitted = await this.store.changeAttempts(key, (window) => admitAttempt(window, now, policy));
    let result: T;
    try {
      result = await attempt(admitted);
    } catch (error) {
      if (!countsTowardLock(error)) await this.store.changeAttempts(key, (window) => giveBackAttempt(window ?? admitted, policy));
      throw error;
    }
    await this.store.clearAttempts(key);
    return result;
  }

  /** A challenge takes its place in the credential's challenge count; the count is never cleared early. */
  async admitChallenge(credentialId: string, now: Date): Promise<void> {
    await this.store.changeAttempts(`challenge:${credentialId}`, (window) => admitAttempt(window, now, CHALLENGE_POLICY));
  }
}
