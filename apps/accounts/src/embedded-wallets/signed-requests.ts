import { Inject, Injectable } from '@nestjs/common';
import {
  type AuthMethodType,
  CLOCK,
  type Clock,
  DomainError,
  givesSignedRequestBack,
  newId,
  type RequestContext,
  type SignedReply,
  type WalletSignatureHeaders,
} from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { FailureCounter } from './failure-counter';
import { CHALLENGE_TTL_MS, checkRetry, legOf, offersSandboxSignature, type PendingRequest } from './signed-retry';
import { activityPayload } from './wallet-wire';
import { bodyDigest } from './wallet-crypto';
import { WALLET_LOGGER, WALLET_STORE, WalletLookups } from './wallet-lookups';
import type { WalletStore } from './wallet-store';

// The one two-step signed retry of reference section (k) around the store: leg 1 persists the
// pending request and answers 202, leg 2 checks it (signed-retry.ts), consumes it once and completes.

/** Signed operations whose change another service applies after accounts consumed the request. */
const DOWNSTREAM_OPERATIONS: readonly string[] = ['UPDATE_CUSTOMER_EMAIL', 'UPDATE_CARD', 'CREATE_CARD', 'TRANSFER_OUT'];

export type SignedOperation = {
  context: RequestContext;
  accountId: string;
  operation: string;
  targetId: string;
  body: unknown;
  headers: WalletSignatureHeaders;
  type?: AuthMethodType;
  payload: (requestId: string, now: Date) => string;
  bound?: Record<string, unknown>;
  signerKeys: (pending: PendingRequest, now: Date) => Promise<string[]>;
};

/** What any wallet operation signed by the account's active sessions names: its activity type and parameters. */
export type WalletActivity = { type: string; parameters: Record<string, unknown> };

@Injectable()
export class SignedRequests {
  private readonly logger = createLogger(WALLET_LOGGER);

  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lookups: WalletLookups,
    private readonly failures: FailureCounter,
  ) {}

  /** The one two-step signed retry: leg 1 persists and answers 202, leg 2 checks, consumes once and completes. */
  async signed<T>(op: SignedOperation, complete: (pending: PendingRequest, now: Date) => Promise<SignedReply<T>>): Promise<SignedReply<T>> {
    const sandbox = offersSandboxSignature(op.headers.walletSignature) && (await this.lookups.isSandbox(op.context.platformId));
    const leg = legOf(op.headers, sandbox);
    const now = this.clock.now();
    const digest = bodyDigest(op.body ?? {});
    if (leg.leg === 'challenge') return this.persistChallenge(op, digest, now);
    const pending = await this.failures.counted(`signature:${op.accountId}`, now, async () => {
      const found = await this.store.pending(leg.requestId);
      const signerKeys = found ? await op.signerKeys(found, now) : [];
      const checked = checkRetry({
        pending: found,
        operation: op.operation,
        targetId: op.targetId,
        platformId: op.context.platformId,
        bodyDigest: digest,
        stamp: leg.stamp,
        signerKeys,
        now,
      });
      if (!(await this.store.consumePending(leg.requestId, now))) {
        throw new DomainError(
          'INVALID_SIGNATURE',
          'unauthorized',
          `${leg.requestId} was already used; a requestId completes one request only.`,
        );
      }
      return checked;
    });
    try {
      return await complete(pending, now);
    } catch (error) {
      // Refused before anything changed: the caller keeps their signed consent and may send the same retry again.
      if (givesSignedRequestBack(error)) await this.store.releasePending(pending.requestId, op.context.platformId);
      throw error;
    }
  }

  /** Leg 1 of a handler that completes leg 2 by its own call to `signed`: it binds what leg 1 judged and answers 202. */
  async bindFirstLeg(op: Omit<SignedOperation, 'signerKeys'>): Promise<SignedReply<never>> {
    return this.signed({ ...op, signerKeys: async () => [] }, async () => {
      throw new Error('unreachable: the first leg never completes');
    });
  }

  private async persistChallenge<T>(op: SignedOperation, digest: string, now: Date): Promise<SignedReply<T>> {
    const requestId = newId('Request');
    const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
    const payloadToSign = op.payload(requestId, now);
    await this.store.insertPending(
      {
        requestId,
        platformId: op.context.platformId,
        accountId: op.accountId,
        operation: op.operation,
        targetId: op.targetId,
        bodyDigest: digest,
        payloadToSign,
        expiresAt,
        usedAt: null,
        bound: op.bound ?? {},
      },
      now,
    );
    return { status: 202, body: { payloadToSign, requestId, expiresAt: expiresAt.toISOString(), ...(op.type ? { type: op.type } : {}) } };
  }

  /** Signs any wallet operation with the account's active sessions: PATCH and export of the internal account. */
  async signedByWallet<T>(
    context: RequestContext,
    accountId: string,
    operation: string,
    signed: { body: Record<string, unknown>; headers: WalletSignatureHeaders; activity: WalletActivity },
    complete: (now: Date) => Promise<SignedReply<T>>,
  ): Promise<SignedReply<T>> {
    const wallet = await this.lookups.wallet(accountId, context.platformId);
    const { activity } = signed;
    return this.signed(
      {
        context,
        accountId: wallet.accountId,
        operation,
        targetId: wallet.accountId,
        body: signed.body,
        headers: signed.headers,
        payload: (requestId, now) => activityPayload(activity.type, context.platformId, activity.parameters, now, requestId),
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      (_pending, now) => complete(now),
    );
  }

  /**
   * The change a signed request authorized was refused by the service that applies it (a customer
   * update, a card PATCH): the request is unused again until it expires, so the caller's signed
   * consent is not lost to a refusal that changed nothing. Only requests that complete outside
   * accounts can be given back this way.
   */
  async release(context: RequestContext, requestId: string): Promise<{ released: boolean }> {
    const released = await this.store.releasePending(requestId, context.platformId, DOWNSTREAM_OPERATIONS);
    if (!released) return { released };
    const pending = await this.store.pending(requestId);
    if (pending?.operation === 'UPDATE_CUSTOMER_EMAIL') {
      // Leg 2 gave the tied credentials the new email; the customer keeps the old one, and so do they.
      const customer = await this.store.customer(pending.targetId);
      if (customer?.email) await this.store.renameEmailCredential(pending.accountId, customer.email, this.clock.now());
    }
    this.logger.info({ requestId }, 'Gave a signed request back: the change it authorized was refused downstream.');
    return { released };
  }
}
