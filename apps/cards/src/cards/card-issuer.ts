import { createHash } from 'node:crypto';
import type { CardBrandWire } from '@corridor/contracts';

// The issuer port: who provisions a card with a card network. Asking for a card answers at once
// what the issuer assigns (its reference, brand, last4, expiry); provisioning itself finishes
// later and is polled by the provisioning processor on the service's clock, so a crash of cards
// in between only delays it (the next check time is persisted). The sandbox issuer below is the
// only issuer (decision 0015).

export type IssueRequest = {
  cardId: string;
  cardholderId: string;
  /** As the platform sent it (undefined when it let Corridor generate one): the sandbox magic reads its suffix. */
  platformCardId?: string;
  requestedAt: Date;
};

export type IssuedCard = {
  issuerRef: string;
  brand: CardBrandWire;
  last4: string;
  expMonth: number;
  expYear: number;
  panEmbedUrl?: string;
};

export type ProvisioningStatus =
  /** checkAgainAt null: the issuer will not finish on its own (it stays PENDING_ISSUE). */
  { status: 'PENDING'; checkAgainAt: Date | null } | { status: 'ACTIVE' } | { status: 'REJECTED' };

export type CardIssuer = {
  requestCard(request: IssueRequest): Promise<IssuedCard>;
  provisioningStatus(request: IssueRequest, now: Date): Promise<ProvisioningStatus>;
};

export const CARD_ISSUER = 'CARD_ISSUER';

/** The sandbox's provisioning delay for suffix 005. */
export const SANDBOX_ACTIVATION_DELAY_MS = 30_000;

/** The last three characters of platformCardId, or of cardholderId when it was omitted (the reference's rule). */
export const issuanceSuffix = (request: Pick<IssueRequest, 'platformCardId' | 'cardholderId'>): string =>
  (request.platformCardId ?? request.cardholderId).slice(-3);

/** Four digits fixed by the suffix: `4` and the suffix when it is three digits, else digits of its hash. */
export const sandboxLast4 = (suffix: string): string => {
  if (/^\d{3}$/.test(suffix)) return `4${suffix}`;
  const digits = BigInt(`0x${createHash('sha256').update(suffix).digest('hex').slice(0, 12)}`) % 10_000n;
  return digits.toString().padStart(4, '0');
};

export const sandboxIssuer: CardIssuer = {
  requestCard: (request) => {
    const at = request.requestedAt;
    return Promise.resolve({
      issuerRef: `sandbox_card_${request.cardId.slice(-12)}`,
      brand: 'VISA',
      last4: sandboxLast4(issuanceSuffix(request)),
      // Valid for three years from issue, to the end of the month of issue.
      expMonth: at.getUTCMonth() + 1,
      expYear: at.getUTCFullYear() + 3,
    });
  },
  provisioningStatus: (request, now) => {
    switch (issuanceSuffix(request)) {
      case '001':
        return Promise.resolve({ status: 'PENDING', checkAgainAt: null });
      case '002':
        return Promise.resolve({ status: 'REJECTED' });
      case '005': {
        const activatesAt = new Date(request.requestedAt.getTime() + SANDBOX_ACTIVATION_DELAY_MS);
        return Promise.resolve(
          now.getTime() >= activatesAt.getTime() ? { status: 'ACTIVE' } : { status: 'PENDING', checkAgainAt: activatesAt },
        );
      }
      default:
        return Promise.resolve({ status: 'ACTIVE' });
    }
  },
};
