import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type AuthCredentialIdData,
  type AuthSessionIdData,
  type CreateAuthCredentialData,
  type CustomerEmailChangeData,
  type WalletFundedChangeData,
  type InternalAccountWire,
  invalidInput,
  type ListAuthCredentialsData,
  type ListAuthSessionsData,
  type ReleaseSignedRequestData,
  type SandboxMailboxData,
  type ServiceRequest,
  type SignedInternalAccountData,
  type SignedReply,
  subjects,
  type VerifyWalletStampData,
} from '@corridor/contracts';
import { AccountWriter } from '../internal-accounts/account-writer';
import { changeAccountPrivacy } from '../internal-accounts/change-account-privacy';
import { renderInternalAccount } from '../internal-accounts/internal-account-view.projection';
import { SignedRequests } from './signed-requests';
import {
  headersOf,
  parseAuthorizeEmailChange,
  parseChallengeCredential,
  parseCreateCredential,
  parseExportWallet,
  parseRefreshSession,
  parseUpdateWalletAccount,
  parseVerifyCredential,
  parseVerifyStamp,
  parseWalletFundedChange,
} from './wallet-commands';
import { WalletCredentials } from './wallet-credentials';
import { WalletEmailChange } from './wallet-email-change';
import { WalletFunding } from './wallet-funding';
import { WalletKeys } from './wallet-keys';
import { WalletOtpMail } from './wallet-otp-mail';
import { WalletSessions } from './wallet-sessions';
import { WalletSignIn } from './wallet-sign-in';

/** The Embedded Wallet handlers: each parses its data into a typed command (wallet-commands.ts) and hands it to its flow. */
@Controller()
export class EmbeddedWalletsController {
  constructor(
    private readonly credentials: WalletCredentials,
    private readonly signIn: WalletSignIn,
    private readonly sessions: WalletSessions,
    private readonly keys: WalletKeys,
    private readonly funding: WalletFunding,
    private readonly emailChange: WalletEmailChange,
    private readonly signedRequests: SignedRequests,
    private readonly otpMail: WalletOtpMail,
    private readonly writer: AccountWriter,
  ) {}

  @MessagePattern(subjects.accounts.embeddedWallet.createCredential)
  create(@Payload() request: ServiceRequest<CreateAuthCredentialData>) {
    return this.credentials.create(request.context, parseCreateCredential(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.listCredentials)
  listCredentials(@Payload() request: ServiceRequest<ListAuthCredentialsData>) {
    return this.credentials.list(request.context, request.data.accountId);
  }

  @MessagePattern(subjects.accounts.embeddedWallet.revokeCredential)
  revokeCredential(@Payload() request: ServiceRequest<AuthCredentialIdData>) {
    return this.credentials.revoke(request.context, { credentialId: request.data.credentialId, headers: headersOf(request.data) });
  }

  @MessagePattern(subjects.accounts.embeddedWallet.challengeCredential)
  challenge(@Payload() request: ServiceRequest<AuthCredentialIdData>) {
    return this.signIn.challenge(request.context, parseChallengeCredential(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.verifyCredential)
  verify(@Payload() request: ServiceRequest<AuthCredentialIdData>) {
    return this.signIn.verify(request.context, parseVerifyCredential(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.listSessions)
  listSessions(@Payload() request: ServiceRequest<ListAuthSessionsData>) {
    return this.sessions.list(request.context, request.data.accountId);
  }

  @MessagePattern(subjects.accounts.embeddedWallet.revokeSession)
  revokeSession(@Payload() request: ServiceRequest<AuthSessionIdData>) {
    return this.sessions.revoke(request.context, { sessionId: request.data.sessionId, headers: headersOf(request.data) });
  }

  @MessagePattern(subjects.accounts.embeddedWallet.refreshSession)
  refreshSession(@Payload() request: ServiceRequest<AuthSessionIdData>) {
    return this.sessions.refresh(request.context, parseRefreshSession(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.exportAccount)
  exportAccount(@Payload() request: ServiceRequest<SignedInternalAccountData>) {
    return this.keys.export(request.context, parseExportWallet(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.verifyStamp)
  verifyStamp(@Payload() request: ServiceRequest<VerifyWalletStampData>) {
    return this.funding.verifyStamp(request.context, parseVerifyStamp(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.customerEmailChange)
  customerEmailChange(@Payload() request: ServiceRequest<CustomerEmailChangeData>) {
    return this.emailChange.authorize(request.context, parseAuthorizeEmailChange(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.walletFundedChange)
  walletFundedChange(@Payload() request: ServiceRequest<WalletFundedChangeData>) {
    return this.funding.authorizeChange(request.context, parseWalletFundedChange(request.data), headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.releaseSignedRequest)
  releaseSignedRequest(@Payload() request: ServiceRequest<ReleaseSignedRequestData>) {
    return this.signedRequests.release(request.context, String(request.data.requestId));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.sandboxMailbox)
  sandboxMailbox(@Payload() request: ServiceRequest<SandboxMailboxData>) {
    return this.otpMail.sandboxMailbox(request.context, request.data.accountId);
  }

  /**
   * PATCH /internal-accounts/{id}: privateEnabled is the only mutable field and only wallets have it.
   * An unchanged value answers 200 at once; a change takes the signed retry.
   */
  @MessagePattern(subjects.accounts.embeddedWallet.updateAccount)
  async updateAccount(@Payload() request: ServiceRequest<SignedInternalAccountData>): Promise<SignedReply<InternalAccountWire>> {
    const { context } = request;
    const { accountId, privateEnabled, headers } = parseUpdateWalletAccount(request.data);
    const row = await this.writer.read(accountId, context.platformId);
    if (row.accountType !== 'EMBEDDED_WALLET') {
      throw invalidInput(`privateEnabled applies only to EMBEDDED_WALLET accounts; ${accountId} is ${row.accountType}.`, {
        field: 'privateEnabled',
      });
    }
    if (row.privateEnabled === privateEnabled && !headers.walletSignature && !headers.requestId)
      return { status: 200, body: renderInternalAccount(row) };
    const signed = {
      body: { privateEnabled },
      headers,
      activity: { type: 'ACTIVITY_TYPE_UPDATE_WALLET', parameters: { walletId: accountId, privateEnabled } },
    };
    return this.signedRequests.signedByWallet(context, accountId, 'UPDATE_ACCOUNT', signed, async (now) => {
      const operationId = `privacy:${context.requestId}`;
      const updated = await this.writer.write(accountId, context, (state) =>
        changeAccountPrivacy({ type: 'ChangeAccountPrivacy', data: { accountId, operationId, privateEnabled }, metadata: { now } }, state),
      );
      return { status: 200, body: renderInternalAccount(updated) };
    });
  }
}
