// Pins down how an internal account comes to exist and that a redelivered open is harmless.
import { deciderSpec } from '@corridor/testing';
import { initialInternalAccount, type InternalAccountEvent, internalAccountDecider, internalAccountEvolver } from './internal-account';
import {
  accountId,
  at,
  credited,
  customerId,
  debited,
  held,
  openCommand,
  opened,
  otherPlatformId,
  platformId,
  released,
  settled,
  statusChanged,
} from './internal-account.fixtures';
import { openInternalAccount, type OpenInternalAccount, openIsFinal } from './open-internal-account';

const { given } = deciderSpec({ decide: openInternalAccount, ...internalAccountDecider });

describe('OpenInternalAccount', () => {
  it('opens an account with nothing in it', () => given([]).when(openCommand()).then([opened()]));

  it('opens a platform account without a customer', () =>
    given([])
      .when(openCommand({ customerId: null, status: 'PENDING' }))
      .then([
        {
          type: 'InternalAccountOpened',
          data: {
            accountId,
            platformId,
            customerId: null,
            accountType: 'INTERNAL_FIAT',
            currency: 'USD',
            status: 'PENDING',
            operationId: 'op-open',
            openedAt: at,
          },
        },
      ]));

  it('does nothing when the same open is repeated', () => given([opened()]).when(openCommand()).thenNothingHappened());

  it('refuses a second open with another operation id', () =>
    given([opened()])
      .when(openCommand({ operationId: 'op-other' }))
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409));

  it('refuses the same operation id with a different payload', () =>
    given([opened()])
      .when(openCommand({ currency: 'EUR' }))
      .thenThrows((error) => error.code === 'CONFLICT'));

  it('refuses an open of the same id by another platform', () =>
    given([opened()])
      .when(openCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'CONFLICT'));

  it('refuses an unsupported currency', () =>
    given([])
      .when(openCommand({ currency: 'XYZ' }))
      .thenThrows((error) => error.code === 'INVALID_CURRENCY' && error.status === 400));

  it('refuses an id that is not an internal account id', () =>
    given([])
      .when(openCommand({ accountId: customerId }))
      .thenThrows((error) => error.code === 'INVALID_INPUT' && error.details?.['field'] === 'accountId'));
});

/** Given the events so far, when this open arrives, then its outcome is final (or not) for the writer. */
const finality = (events: InternalAccountEvent[], evolve = internalAccountDecider.evolve) => ({
  when: (command: OpenInternalAccount) => ({
    then: (final: boolean) => expect(openIsFinal(command.data, events.reduce(evolve, initialInternalAccount()))).toBe(final),
  }),
});

const privacyChanged: InternalAccountEvent = {
  type: 'AccountPrivacyChanged',
  data: { accountId, operationId: 'op-privacy', privateEnabled: true, changedAt: at },
};

/**
 * Every kind of event an opened account can record after its opening (keyed by it, so a new event
 * type fails to compile until it is here), after the events the deciders require before it.
 */
const afterOpening: Record<Exclude<InternalAccountEvent['type'], 'InternalAccountOpened'>, InternalAccountEvent[]> = {
  AccountCredited: [credited()],
  AccountDebited: [credited(), debited()],
  FundsHeld: [credited(), held()],
  HoldSettled: [credited(), held(), settled()],
  HoldReleased: [credited(), held(), released()],
  AccountStatusChanged: [statusChanged('ACTIVE', 'FROZEN'), statusChanged('FROZEN', 'CLOSED')],
  AccountPrivacyChanged: [privacyChanged],
};

describe('OpenInternalAccount: when deciding nothing is final', () => {
  it('is final for a repeat of the open that opened the account', () => finality([opened()]).when(openCommand()).then(true));

  it.each(Object.entries(afterOpening))('stays final, and still decides nothing, after %s', (_, later) => {
    finality([opened(), ...later])
      .when(openCommand())
      .then(true);
    given([opened(), ...later])
      .when(openCommand())
      .thenNothingHappened();
  });

  it('is not final when the open decides an opening', () => finality([]).when(openCommand()).then(false));

  it('is not final for a refusal: another operation, another platform or another payload', () => {
    finality([opened()])
      .when(openCommand({ operationId: 'op-other' }))
      .then(false);
    finality([opened()])
      .when(openCommand({ platformId: otherPlatformId }))
      .then(false);
    finality([opened()])
      .when(openCommand({ currency: 'EUR' }))
      .then(false);
  });

  it('is not final once the window let the opening go (the decider recalls it; the writer reads the tail)', () =>
    finality([opened(), credited('1', 'op-1'), credited('1', 'op-2')], internalAccountEvolver(2))
      .when(openCommand())
      .then(false));
});
