// Pins down how an internal account comes to exist and that a redelivered open is harmless.
import { deciderSpec } from '@corridor/testing';
import { internalAccountDecider } from './internal-account';
import { accountId, at, customerId, openCommand, opened, otherPlatformId, platformId } from './internal-account.fixtures';
import { openInternalAccount } from './open-internal-account';

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
