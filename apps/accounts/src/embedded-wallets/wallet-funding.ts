import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  DomainError,
  newId,
  type RequestContext,
  type SignedReply,
  type VerifyWalletStampData,
  type WalletAuthorization,
  type WalletFundedChangeData,
  type WalletSignatureHeaders,
} from '@corridor/contracts';
import { FailureCounter } from './failure-counter';
import { type ConsentPlan, consentPlanOf, WALLET_CURRENCY } from './signed-consent';
import { isFirstLeg, offersSandboxSignature } from './signed-retry';
import { SignedRequests } from './signed-requests';
import { parseStamp, verifyStamp } from './wallet-crypto';
import { WalletLookups } from './wallet-lookups';
import { activityPayload } from './wallet-wire';
import { parseLedgerAmount } from '../internal-accounts/ledger-input';
import { WalletConsents } from '../internal-accounts/wallet-consents';

/**
 * Wallet money leaving by a signature: a quote's stamp (one signed call) and a card or transfer out
 * funded by the wallet (the signed retry). A verified signature leaves the consent the ledger
 * requires (decision 0020).
 */
@Injectable()
export class WalletFunding {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lookups: WalletLookups,
    private readonly failures: FailureCounter,
    private readonly signer: SignedRequests,
    private readonly consents: WalletConsents,
  ) {}

  /**
   * The single signed call of quote execution: no 202 leg and no Request-Id; the stamp must be by an
   * active session of the wallet over the quote's exact payloadToSign. With a grant, the verified
   * stamp leaves the wallet's consent to that transaction's hold, which the ledger requires.
   */
  async verifyStamp(context: RequestContext, data: VerifyWalletStampData): Promise<{ verified: true }> {
    const { accountId, payloadToSign, walletSignature, grant } = data;
    const wallet = await this.lookups.wallet(accountId, context.platformId);
    const amount = grant === undefined ? undefined : parseLedgerAmount(grant.amount, 'grant.amount');
    if (!walletSignature?.trim()) {
      throw new DomainError(
        'WALLET_SIGNATURE_MISSING',
        'unauthorized',
        'Executing a quote from an Embedded Wallet needs Grid-Wallet-Signature: a stamp over the quote’s ' +
          'paymentInstructions[].accountOrWalletInfo.payloadToSign.',
      );
    }
    const now = this.clock.now();
    // The reference's sandbox value stands in for the stamp on sandbox platforms (section (f)).
    const sandbox = offersSandboxSignature(walletSignature) && (await this.lookups.isSandbox(context.platformId));
    if (!sandbox) await this.checkStamp(context, wallet.accountId, payloadToSign, walletSignature, now);
    if (grant !== undefined && amount !== undefined) {
      const consent = {
        platformId: context.platformId,
        accountId: wallet.accountId,
        transactionId: grant.transactionId,
        amount,
        currency: grant.currency,
      };
      await this.consents.grantTransaction({ ...consent, consentId: newId('Consent'), now });
    }
    return { verified: true };
  }

  private async checkStamp(context: RequestContext, accountId: string, payloadToSign: string, signature: string, now: Date): Promise<void> {
    const stamp = parseStamp(signature.trim());
    if (!stamp)
      throw new DomainError(
        'WALLET_SIGNATURE_MALFORMED',
        'unauthorized',
        'Grid-Wallet-Signature must be base64url of {"publicKey","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature"}.',
      );
    // The same counter as the wallet's signed retries: stamps guessed here or there lock both.
    await this.failures.counted(`signature:${accountId}`, now, async () => {
      const signers = await this.lookups.activeSessionKeys(accountId, context.platformId, now);
      if (!signers.includes(stamp.publicKey) || !verifyStamp(stamp, payloadToSign)) {
        throw new DomainError(
          'WALLET_SIGNATURE_INVALID',
          'unauthorized',
          'The stamp is not a signature over the quote’s payloadToSign by an active session of the source wallet.',
        );
      }
    });
  }

  /**
   * Wallet money committed outside a quote (a card created or changed, a transfer out): the signed
   * retry of the first wallet among accountIds, or proceed. Leg 1 decides what the owner signs for
   * (signed-consent.ts), fixing a new card's or transfer's id and naming it in the payload; leg 2,
   * once the stamp verifies, leaves the consent the ledger requires (decision 0020).
   */
  async authorizeChange(
    context: RequestContext,
    data: WalletFundedChangeData,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<WalletAuthorization>> {
    const wallet = await this.lookups.firstWallet(data.accountIds, context.platformId);
    if (!wallet) return { status: 200, body: { proceed: true } };
    const walletId = wallet.accountId;
    // Only leg 1's plan is kept (bound to the pending request); leg 2 reads it back from there.
    const plan = isFirstLeg(headers) ? consentPlanOf(data, walletId, newId) : null;
    return this.signer.signed(
      {
        context,
        accountId: walletId,
        operation: data.operation,
        targetId: data.targetId,
        body: data.body,
        headers,
        bound: plan ? { plan } : {},
        payload: (requestId, now) =>
          activityPayload(plan?.activity.type ?? '', context.platformId, plan?.activity.parameters ?? {}, now, requestId),
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(walletId, context.platformId, now),
      },
      async (pending, now) => {
        const signed = pending.bound['plan'] as ConsentPlan;
        await this.grant(context.platformId, walletId, signed, pending.requestId, now);
        return {
          status: 200,
          body: {
            proceed: true,
            consumedRequestId: pending.requestId,
            ...(signed.answersResourceId ? { resourceId: signed.resourceId } : {}),
          },
        };
      },
    );
  }

  /** The consent a verified signed retry leaves for the ledger: to fund the card, or to the transfer's one hold. */
  private async grant(platformId: string, accountId: string, plan: ConsentPlan, consentId: string, now: Date): Promise<void> {
    if (plan.grant?.kind === 'CARD') await this.consents.grantCard({ platformId, accountId, cardId: plan.resourceId, consentId, now });
    if (plan.grant?.kind === 'TRANSACTION') {
      await this.consents.grantTransaction({
        platformId,
        accountId,
        transactionId: plan.resourceId,
        amount: BigInt(plan.grant.amount),
        currency: WALLET_CURRENCY,
        consentId,
        now,
      });
    }
  }
}
