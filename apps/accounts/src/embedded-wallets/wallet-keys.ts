import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock, newId, type RequestContext, type SignedReply } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { SignedRequests } from './signed-requests';
import type { ExportWalletCommand } from './wallet-commands';
import { exportBundle, newMnemonic, openAtRest, sealAtRest } from './wallet-crypto';
import { bundleSignerOf, notFound, WALLET_LOGGER, WALLET_OPTIONS, WALLET_STORE, type WalletOptions } from './wallet-lookups';
import type { WalletStore } from './wallet-store';

/** A wallet's key: created sealed at rest with its first credential, and exported (signed) to a client key. */
@Injectable()
export class WalletKeys {
  private readonly logger = createLogger(WALLET_LOGGER);

  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) private readonly options: WalletOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly signer: SignedRequests,
  ) {
    if (options.exportSigningKey) {
      const enclaveQuorumPublic = options.exportSigningKey.publicKeyHex;
      this.logger.info(
        { enclaveQuorumPublic },
        'Production wallet exports and OTP target bundles are signed; clients pin this public key.',
      );
    } else {
      this.logger.warn(
        'EMBEDDED_WALLET_EXPORT_SIGNING_KEY is unset: production wallet exports and OTP target bundles carry empty dataSignature and ' +
          'enclaveQuorumPublic.',
      );
    }
  }

  /** The wallet's key and first credential; the internal account itself is opened by the policy. */
  async provision(input: { accountId: string; platformId: string; customerId: string; email: string }): Promise<void> {
    const now = this.clock.now();
    if (await this.store.walletOf(input.accountId, input.platformId)) return;
    await this.store.provisionWallet({
      ...input,
      sealedMnemonic: sealAtRest(newMnemonic(), this.options.keyEncryptionKey),
      credentialId: newId('AuthMethod'),
      now,
    });
  }

  async export(
    context: RequestContext,
    command: ExportWalletCommand,
  ): Promise<SignedReply<{ id: string; encryptedWalletCredentials: string }>> {
    const { accountId, clientPublicKey } = command;
    const signed = {
      body: { clientPublicKey: clientPublicKey.toLowerCase() },
      headers: command.headers,
      activity: { type: 'ACTIVITY_TYPE_EXPORT_WALLET', parameters: { walletId: accountId, targetPublicKey: clientPublicKey } },
    };
    return this.signer.signedByWallet(context, accountId, 'EXPORT_WALLET', signed, async () => {
      const sealed = await this.store.sealedMnemonic(accountId, context.platformId);
      if (!sealed) throw notFound('Embedded Wallet account', accountId);
      const mnemonic = openAtRest(sealed, this.options.keyEncryptionKey);
      const signer = bundleSignerOf(this.options, (await this.store.platform(context.platformId))?.environment ?? '');
      this.logger.info({ accountId, signed: signer !== null }, 'Exported an Embedded Wallet to its client key.');
      const encryptedWalletCredentials = await exportBundle(clientPublicKey, mnemonic, context.platformId, signer);
      return { status: 200, body: { id: accountId, encryptedWalletCredentials } };
    });
  }
}
