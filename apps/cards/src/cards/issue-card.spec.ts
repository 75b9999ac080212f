// Pins down issuing a card: PENDING_ISSUE with the issuer's details and a provisioning check due
// at once; a cardholder without APPROVED KYC and every kind of ineligible funding source refused
// with the spec's codes; the same request again under its key is a no-op, another one a 409.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type Card, type CardEvent, cardDecider } from './card';
import { accountA, accountB, card, cardIssued, cardholderId, issueCommand, issuedAt, source } from './card.fixtures';
import { type IssueCard, issueCard } from './issue-card';

const spec = deciderSpec<Card, IssueCard, CardEvent>({ decide: issueCard, ...cardDecider });
const refusedWith = (code: string, reason?: string) => (error: DomainError) =>
  error instanceof DomainError && error.code === code && (reason === undefined || error.details?.['reason'] === reason);

describe('IssueCard', () => {
  it('issues a PENDING_ISSUE card in the sources’ currency, checked by the issuer at once', () =>
    spec
      .given([])
      .when(issueCommand())
      .then([{ type: 'CardIssued', data: { card: card(), provisioningCheckAt: issuedAt } }]));

  it('keeps the sources in the order given', () =>
    spec
      .given([])
      .when(issueCommand({ fundingSources: [accountB, accountA], sources: [source(accountA), source(accountB)] }))
      .then([{ type: 'CardIssued', data: { card: card({ fundingSources: [accountB, accountA] }), provisioningCheckAt: issuedAt } }]));

  it('marks a generated platformCardId so the issuer’s suffix rule reads the cardholder id', () =>
    spec
      .given([])
      .when(issueCommand({ requestedPlatformCardId: undefined as unknown as string, platformCardId: 'card_generated' }))
      .then([
        {
          type: 'CardIssued',
          data: { card: card({ platformCardId: 'card_generated', platformCardIdGenerated: true }), provisioningCheckAt: issuedAt },
        },
      ]));

  describe('under a used Idempotency-Key (the card id is derived from it)', () => {
    const first = 'c1'.repeat(32);
    const issuedUnderKey: CardEvent = {
      type: 'CardIssued',
      data: { card: card({ requestFingerprint: first }), provisioningCheckAt: issuedAt },
    };

    it('keeps the request’s fingerprint with the card', () =>
      spec
        .given([])
        .when(issueCommand({ requestFingerprint: first }))
        .then([issuedUnderKey]));
    it('does nothing when the same request comes again', () =>
      spec
        .given([issuedUnderKey])
        .when(issueCommand({ requestFingerprint: first }))
        .thenNothingHappened());
    it('refuses another request under the key with a 409 naming the card', () =>
      spec
        .given([issuedUnderKey])
        .when(issueCommand({ requestFingerprint: 'd2'.repeat(32), platformCardId: 'other' }))
        .thenThrows((error) => error.status === 409 && error.details?.['resourceId'] === card().id));
    it('refuses a request without a key whose id names a card', () =>
      spec
        .given([cardIssued()])
        .when(issueCommand())
        .thenThrows((error) => error.status === 409));
  });

  it.each(['UNVERIFIED', 'PENDING', 'REJECTED', undefined] as const)('refuses a cardholder whose KYC is %s', (kycStatus) =>
    spec
      .given([])
      .when(issueCommand({ cardholderKycStatus: kycStatus }))
      .thenThrows(refusedWith('CARDHOLDER_KYC_NOT_APPROVED')),
  );

  it.each([
    ['not found on this platform', source(accountA, { found: false }), 'NOT_FOUND'],
    ['another customer’s', source(accountA, { customerId: 'Customer:01950000-0000-7000-8000-000000000099' }), 'NOT_OWNED_BY_CARDHOLDER'],
    ['a platform account', source(accountA, { customerId: undefined as unknown as string }), 'NOT_OWNED_BY_CARDHOLDER'],
    ['FROZEN', source(accountA, { status: 'FROZEN' }), 'ACCOUNT_NOT_ACTIVE'],
    ['CLOSED', source(accountA, { status: 'CLOSED' }), 'ACCOUNT_NOT_ACTIVE'],
    ['in EUR', source(accountA, { currency: 'EUR' }), 'CURRENCY_NOT_CARD_ELIGIBLE'],
  ])('refuses a funding source %s', (_label, fact, reason) =>
    spec
      .given([])
      .when(issueCommand({ sources: [fact] }))
      .thenThrows(refusedWith('FUNDING_SOURCE_INELIGIBLE', reason)),
  );

  it.each([
    ['002', 'INSUFFICIENT_BALANCE'],
    ['003', 'ACCOUNT_CLOSED'],
  ])('refuses a funding source whose id ends %s (sandbox magic)', (suffix, reason) => {
    const magic = `InternalAccount:01950000-0000-7000-8000-000000000${suffix}`;
    spec
      .given([])
      .when(issueCommand({ fundingSources: [magic], sources: [source(magic)] }))
      .thenThrows(refusedWith('FUNDING_SOURCE_INELIGIBLE', reason));
  });

  it('refuses sources in two currencies, naming the second', () =>
    spec
      .given([])
      .when(issueCommand({ fundingSources: [accountA, accountB], sources: [source(accountA), source(accountB, { currency: 'USDB' })] }))
      .thenThrows(
        (error) => refusedWith('FUNDING_SOURCE_INELIGIBLE', 'CURRENCY_MISMATCH')(error) && error.details?.['accountId'] === accountB,
      ));

  it('refuses a source listed twice', () =>
    spec
      .given([])
      .when(issueCommand({ fundingSources: [accountA, accountA] }))
      .thenThrows(refusedWith('FUNDING_SOURCE_INELIGIBLE', 'DUPLICATE')));

  it('refuses an empty list of sources', () =>
    spec
      .given([])
      .when(issueCommand({ fundingSources: [] }))
      .thenThrows(refusedWith('INVALID_INPUT')));

  it('issues on a USDB source when USDB is eligible', () =>
    spec
      .given([])
      .when(issueCommand({ sources: [source(accountA, { currency: 'USDB' })] }))
      .then([{ type: 'CardIssued', data: { card: card({ currency: 'USDB' }), provisioningCheckAt: issuedAt } }]));

  it('names the cardholder in a refused ownership', () =>
    spec
      .given([])
      .when(issueCommand({ sources: [source(accountA, { customerId: 'Customer:x' })] }))
      .thenThrows((error) => error.message.includes(cardholderId)));
});
