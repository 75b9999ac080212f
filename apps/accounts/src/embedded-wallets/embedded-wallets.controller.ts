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
import { EmbeddedWallets } from './embedded-wallets.service';

const headersOf = (data: { walletSignature?: string; requestId?: string }) => ({
  ...(data.walletSignature !== undefined ? { walletSignature: data.walletSignature } : {}),
  ...(data.requestId !== undefined ? { requestId: data.requestId } : {}),
});
const bodyOf = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
const WALLET_FUNDED_OPERATIONS: readonly WalletFundedChangeData['operation'][] = ['CREATE_CARD', 'UPDATE_CARD', 'TRANSFER_OUT'];
const textsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
const text = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || value === '') throw invalidInput(`${field} must be a non-empty string.`, { field });
  return value;
};

/** The stamp check's data; a grant must name the transaction, the amount and the currency. */
const stampDataOf = (data: VerifyWalletStampData): VerifyWalletStampData => {
  const grant =
    data.grant === undefined
      ? {}
      : {
          grant: {
            transactionId: text(data.grant.transactionId, 'grant.transactionId'),
            amount: text(data.grant.amount, 'grant.amount'),
            currency: text(data.grant.currency, 'grant.currency'),
          },
        };
  return {
    accountId: data.accountId,
    payloadToSign: text(data.payloadToSign, 'payloadToSign'),
    ...(typeof data.walletSignature === 'string' ? { walletSignature: data.walletSignature } : {}),
    ...grant,
  };
};

@Controller()
export class EmbeddedWalletsController {
  constructor(
    private readonly wallets: EmbeddedWallets,
    private readonly writer: AccountWriter,
  ) {}

  @MessagePattern(subjects.accounts.embeddedWallet.createCredential)
  create(@Payload() request: ServiceRequest<CreateAuthCredentialData>) {
    return this.wallets.createCredential(request.context, bodyOf(request.data.body), headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.listCredentials)
  listCredentials(@Payload() request: ServiceRequest<ListAuthCredentialsData>) {
    return this.wallets.listCredentials(request.context, request.data.accountId);
  }

  @MessagePattern(subjects.accounts.embeddedWallet.revokeCredential)
  revokeCredential(@Payload() request: ServiceRequest<AuthCredentialIdData>) {
    return this.wallets.revokeCredential(request.context, request.data.credentialId, headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.challengeCredential)
  challenge(@Payload() request: ServiceRequest<AuthCredentialIdData>) {
    return this.wallets.challenge(request.context, request.data.credentialId, bodyOf(request.data.body));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.verifyCredential)
  verify(@Payload() request: ServiceRequest<AuthCredentialIdData>) {
    return this.wallets.verify(request.context, request.data.credentialId, bodyOf(request.data.body), headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.listSessions)
  listSessions(@Payload() request: ServiceRequest<ListAuthSessionsData>) {
    return this.wallets.listSessions(request.context, request.data.accountId);
  }

  @MessagePattern(subjects.accounts.embeddedWallet.revokeSession)
  revokeSession(@Payload() request: ServiceRequest<AuthSessionIdData>) {
    return this.wallets.revokeSession(request.context, request.data.sessionId, headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.refreshSession)
  refreshSession(@Payload() request: ServiceRequest<AuthSessionIdData>) {
    return this.wallets.refreshSession(request.context, request.data.sessionId, bodyOf(request.data.body), headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.exportAccount)
  exportAccount(@Payload() request: ServiceRequest<SignedInternalAccountData>) {
    return this.wallets.exportWallet(request.context, request.data.accountId, bodyOf(request.data.body), headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.verifyStamp)
  verifyStamp(@Payload() request: ServiceRequest<VerifyWalletStampData>) {
    return this.wallets.verifyStamp(request.context, stampDataOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.customerEmailChange)
  customerEmailChange(@Payload() request: ServiceRequest<CustomerEmailChangeData>) {
    return this.wallets.authorizeEmailChange(request.context, request.data.customerId, bodyOf(request.data.body), headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.walletFundedChange)
  walletFundedChange(@Payload() request: ServiceRequest<WalletFundedChangeData>) {
    const { accountIds, bindAccountIds, operation, targetId, body } = request.data;
    if (!WALLET_FUNDED_OPERATIONS.includes(operation))
      throw invalidInput(`operation must be one of ${WALLET_FUNDED_OPERATIONS.join(', ')}.`, { field: 'operation' });
    const data = {
      accountIds: textsOf(accountIds),
      bindAccountIds: textsOf(bindAccountIds),
      operation,
      targetId: String(targetId),
      body: bodyOf(body),
    };
    return this.wallets.authorizeWalletFundedChange(request.context, data, headersOf(request.data));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.releaseSignedRequest)
  releaseSignedRequest(@Payload() request: ServiceRequest<ReleaseSignedRequestData>) {
    return this.wallets.releaseSignedRequest(request.context, String(request.data.requestId));
  }

  @MessagePattern(subjects.accounts.embeddedWallet.sandboxMailbox)
  sandboxMailbox(@Payload() request: ServiceRequest<SandboxMailboxData>) {
    return this.wallets.sandboxMailbox(request.context, request.data.accountId);
  }

  /**
   * PATCH /internal-accounts/{id}: privateEnabled is the only mutable field and only wallets have it.
   * An unchanged value answers 200 at once; a change takes the signed retry.
   */
  @MessagePattern(subjects.accounts.embeddedWallet.updateAccount)
  async updateAccount(@Payload() request: ServiceRequest<SignedInternalAccountData>): Promise<SignedReply<InternalAccountWire>> {
    const { context, data } = request;
    const body = bodyOf(data.body);
    const privateEnabled = body['privateEnabled'];
    if (privateEnabled === undefined) {
      throw invalidInput('The update names no field; privateEnabled is the field an internal account lets you change.', {
        field: 'privateEnabled',
      });
    }
    if (typeof privateEnabled !== 'boolean') throw invalidInput('privateEnabled must be true or false.', { field: 'privateEnabled' });
    const row = await this.writer.read(data.accountId, context.platformId);
    if (row.accountType !== 'EMBEDDED_WALLET') {
      throw invalidInput(`privateEnabled applies only to EMBEDDED_WALLET accounts; ${data.accountId} is ${row.accountType}.`, {
        field: 'privateEnabled',
      });
    }
    if (row.privateEnabled === privateEnabled && !data.walletSignature && !data.requestId)
      return { status: 200, body: renderInternalAccount(row) };
    return this.wallets.signedByWallet(
      context,
      data.accountId,
      'UPDATE_ACCOUNT',
      { privateEnabled },
      headersOf(data),
      { type: 'ACTIVITY_TYPE_UPDATE_WALLET', parameters: { walletId: data.accountId, privateEnabled } },
      async (now) => {
        const operationId = `privacy:${context.requestId}`;
        const updated = await this.writer.write(data.accountId, context, (state) =>
          changeAccountPrivacy(
            { type: 'ChangeAccountPrivacy', data: { accountId: data.accountId, operationId, privateEnabled }, metadata: { now } },
            state,
          ),
        );
        return { status: 200, body: renderInternalAccount(updated) };
      },
    );
  }
}
