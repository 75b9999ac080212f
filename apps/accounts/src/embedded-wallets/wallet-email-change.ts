import { Inject, Injectable } from '@nestjs/common';
import type { RequestContext, SignedReply, WalletAuthorization } from '@corridor/contracts';
import { checkEmailSynced, decideEmailChange, decideEmailSync, tiedSet } from './email-change';
import { isFirstLeg } from './signed-retry';
import { SignedRequests } from './signed-requests';
import type { AuthorizeEmailChangeCommand } from './wallet-commands';
import { WALLET_STORE, WalletLookups } from './wallet-lookups';
import type { WalletStore } from './wallet-store';
import { activityPayload } from './wallet-wire';

/** A wallet customer's email change, which its EMAIL_OTP credentials follow (rules in email-change.ts). */
@Injectable()
export class WalletEmailChange {
  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    private readonly lookups: WalletLookups,
    private readonly signer: SignedRequests,
  ) {}

  /**
   * PATCH /customers/{id} changing the email of a customer whose wallet has EMAIL_OTP credentials:
   * the wallet's signed retry first (the whole update body and the tied credentials bound), then on
   * leg 2 the credentials take the new email before the customers service changes it
   * (email-change.ts). Any other update proceeds at once.
   */
  async authorize(context: RequestContext, command: AuthorizeEmailChangeCommand): Promise<SignedReply<WalletAuthorization>> {
    const proceed: SignedReply<WalletAuthorization> = { status: 200, body: { proceed: true } };
    const { customerId, email } = command;
    if (email === undefined) return proceed;
    const wallet = await this.store.walletOfCustomer(customerId, context.platformId);
    if (!wallet) return proceed;
    const tied = (await this.store.credentials(wallet.accountId, context.platformId))
      .filter((credential) => credential.type === 'EMAIL_OTP')
      .map((credential) => credential.id);
    const { needsSignature } = decideEmailChange({
      newEmail: email,
      currentEmail: (await this.store.customer(customerId))?.email ?? null,
      tiedCredentialIds: tied,
      emailTakenElsewhere: await this.store.emailOtpTakenElsewhere(context.platformId, email, wallet.accountId),
      retry: !isFirstLeg(command.headers),
    });
    if (!needsSignature) return proceed;
    return this.signer.signed(
      {
        context,
        accountId: wallet.accountId,
        operation: 'UPDATE_CUSTOMER_EMAIL',
        targetId: customerId,
        body: command.body,
        headers: command.headers,
        bound: { tiedCredentialIds: tiedSet(tied) },
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
            context.platformId,
            { userId: wallet.accountId, userEmail: email },
            now,
            requestId,
          ),
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      async (pending, now) => {
        const boundCredentialIds = (pending.bound['tiedCredentialIds'] ?? []) as string[];
        await this.store.renameTiedCredentials(
          { accountId: wallet.accountId, platformId: context.platformId, email, now },
          (current) =>
            decideEmailSync({
              boundCredentialIds,
              currentCredentialIds: current.credentialIds,
              newEmail: email,
              emailTakenElsewhere: current.emailTakenElsewhere,
            }),
          checkEmailSynced,
        );
        return { status: 200, body: { proceed: true, consumedRequestId: pending.requestId } };
      },
    );
  }
}
