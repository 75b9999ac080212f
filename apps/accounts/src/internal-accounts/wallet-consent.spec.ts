// Pins down that the ledger holds or debits an Embedded Wallet only on its owner's consent, bound to
// the one transaction (amount, currency) or the one card it was given for, and only while it lasts.
import { deciderSpec } from '@corridor/testing';
import { debitAccount } from './debit-account';
import { holdFunds } from './hold-funds';
import { internalAccountDecider, type InternalAccountEvent } from './internal-account';
import {
  accountId,
  at,
  credited,
  customerId,
  debitCommand,
  holdCommand,
  holdId,
  now,
  platformId,
  payment,
  payoutRail,
} from './internal-account.fixtures';
import type { WalletConsent } from './wallet-consent';

const holds = deciderSpec({ decide: holdFunds, ...internalAccountDecider });
const debits = deciderSpec({ decide: debitAccount, ...internalAccountDecider });

const walletOpened: InternalAccountEvent = {
  type: 'InternalAccountOpened',
  data: {
    accountId,
    platformId,
    customerId,
    accountType: 'EMBEDDED_WALLET',
    currency: 'USD',
    status: 'ACTIVE',
    operationId: 'op-open',
    openedAt: at,
  },
};
const fiatOpened: InternalAccountEvent = {
  type: 'InternalAccountOpened',
  data: { ...walletOpened.data, accountType: 'INTERNAL_FIAT' },
} as InternalAccountEvent;
const cardId = 'Card:0196f1a0-0000-7000-8000-0000000000c1';
const cardCause = { kind: 'CARD_SETTLEMENT' as const, id: 'CardTransaction:0196f1a0-0000-7000-8000-0000000000c2' };

const consentFor = (overrides: Partial<WalletConsent> = {}): WalletConsent => ({
  consentId: 'Request:0196f1a0-0000-7000-8000-0000000000d1',
  platformId,
  accountId,
  kind: 'TRANSACTION',
  reference: holdId,
  amount: 300n,
  currency: 'USD',
  expiresAt: new Date(now.getTime() + 60_000),
  endedAt: null,
  ...overrides,
});
const cardConsent = (overrides: Partial<WalletConsent> = {}) =>
  consentFor({ kind: 'CARD', reference: cardId, amount: null, currency: null, expiresAt: null, ...overrides });
const fundsHeld = (cause = payment, id = holdId): InternalAccountEvent => ({
  type: 'FundsHeld',
  data: { accountId, operationId: 'op-hold', holdId: id, amount: '300', currency: 'USD', cause, counterAccountId: payoutRail, heldAt: at },
});
const refusedFor = (reason: string) => (error: { code: string; status: number; details?: Record<string, unknown> }) =>
  error.code === 'WALLET_CONSENT_REQUIRED' && error.status === 403 && error.details?.['reason'] === reason;

describe('a hold of an Embedded Wallet', () => {
  it('asks for the consent first when none was looked up', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand())
      .thenThrows((error) => (error as unknown as Error).name === 'NeedsConsent'));

  it('holds for the transaction its owner consented to', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ consent: consentFor() }))
      .then([fundsHeld()]));

  it('holds less than the consented amount', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ amount: 299n, consent: consentFor() }))
      .then([{ ...fundsHeld(), data: { ...fundsHeld().data, amount: '299' } } as InternalAccountEvent]));

  it('refuses a hold without a consent, before it says anything of the funds', () =>
    holds
      .given([walletOpened])
      .when(holdCommand({ consent: null }))
      .thenThrows(refusedFor('NO_CONSENT')));

  it('refuses more than the consented amount', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ amount: 301n, consent: consentFor() }))
      .thenThrows(refusedFor('AMOUNT_NOT_CONSENTED')));

  it('refuses another currency than the consented one', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ consent: consentFor({ currency: 'EUR' }) }))
      .thenThrows(refusedFor('AMOUNT_NOT_CONSENTED')));

  it('refuses a consent given for another transaction', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ consent: consentFor({ reference: 'Hold:other' }) }))
      .thenThrows(refusedFor('NO_CONSENT')));

  it('refuses a consent of another wallet', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ consent: consentFor({ accountId: 'InternalAccount:other' }) }))
      .thenThrows(refusedFor('NO_CONSENT')));

  it('refuses a consent at its expiry instant', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ consent: consentFor({ expiresAt: now }) }))
      .thenThrows(refusedFor('CONSENT_EXPIRED')));

  it('spends a transaction consent on its one hold: the same hold id again is refused', () =>
    holds
      .given([walletOpened, credited(), fundsHeld()])
      .when(holdCommand({ operationId: 'op-again', consent: consentFor() }))
      .thenThrows((error) => error.code === 'HOLD_EXISTS'));

  it('does nothing for a retry of a hold already placed, even once its consent has expired', () =>
    holds
      .given([walletOpened, credited(), fundsHeld()])
      .when(holdCommand({ consent: consentFor({ expiresAt: now }) }))
      .thenNothingHappened());

  it('holds for a card bound to the wallet', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ cause: cardCause, cardId, consent: cardConsent() }))
      .then([fundsHeld(cardCause)]));

  it('refuses a card whose binding ended', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ cause: cardCause, cardId, consent: cardConsent({ endedAt: now }) }))
      .thenThrows(refusedFor('CONSENT_ENDED')));

  it('refuses a card consent for anything but a card settlement', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ cardId, consent: cardConsent() }))
      .thenThrows(refusedFor('NOT_A_CARD_MOVEMENT')));

  it('refuses a card consent of another card', () =>
    holds
      .given([walletOpened, credited()])
      .when(holdCommand({ cause: cardCause, cardId, consent: cardConsent({ reference: 'Card:other' }) }))
      .thenThrows(refusedFor('NO_CONSENT')));
});

describe('a debit of an Embedded Wallet', () => {
  it('refuses a debit that no consent can cover, without a lookup', () =>
    debits.given([walletOpened, credited()]).when(debitCommand()).thenThrows(refusedFor('NO_CONSENT_APPLIES')));

  it('refuses a card pull without the card’s consent', () =>
    debits
      .given([walletOpened, credited()])
      .when(debitCommand({ cause: cardCause, cardId, consent: null }))
      .thenThrows(refusedFor('NO_CONSENT')));

  it('pulls for a card bound to the wallet', () =>
    debits
      .given([walletOpened, credited()])
      .when(debitCommand({ cause: cardCause, cardId, consent: cardConsent() }))
      .then([
        {
          type: 'AccountDebited',
          data: {
            accountId,
            operationId: 'op-debit',
            amount: '400',
            currency: 'USD',
            cause: cardCause,
            counterAccountId: payoutRail,
            debitedAt: at,
          },
        },
      ]));
});

describe('an account that is not an Embedded Wallet', () => {
  it('holds and debits without any consent', () => {
    holds.given([fiatOpened, credited()]).when(holdCommand()).then([fundsHeld()]);
    debits
      .given([fiatOpened, credited()])
      .when(debitCommand())
      .then([
        {
          type: 'AccountDebited',
          data: {
            accountId,
            operationId: 'op-debit',
            amount: '400',
            currency: 'USD',
            cause: payment,
            counterAccountId: payoutRail,
            debitedAt: at,
          },
        },
      ]);
  });
});
