// Pins down the sandbox issuer's suffix magic (platformCardId, else cardholderId): 001 stays
// pending, 002 is rejected, 005 activates 30 s after the request, anything else at once; last4
// is fixed by the suffix.
import { issuanceSuffix, type IssueRequest, sandboxIssuer, sandboxLast4 } from './card-issuer';

const requestedAt = new Date('2026-03-01T10:00:00.000Z');
const request = (platformCardId: string | undefined, cardholderId = 'Customer:01950000-0000-7000-8000-000000000042'): IssueRequest => ({
  cardId: 'Card:01950000-0000-7000-8000-0000000000c1',
  cardholderId,
  ...(platformCardId !== undefined ? { platformCardId } : {}),
  requestedAt,
});
const after = (ms: number) => new Date(requestedAt.getTime() + ms);

describe('sandbox issuer', () => {
  it('reads the suffix of platformCardId, else of cardholderId', () => {
    expect(issuanceSuffix(request('card-005'))).toBe('005');
    expect(issuanceSuffix(request(undefined, 'Customer:01950000-0000-7000-8000-000000000002'))).toBe('002');
  });

  it('001 stays pending and asks not to be checked again', async () => {
    await expect(sandboxIssuer.provisioningStatus(request('card-001'), after(3_600_000))).resolves.toEqual({
      status: 'PENDING',
      checkAgainAt: null,
    });
  });

  it('002 is rejected', async () => {
    await expect(sandboxIssuer.provisioningStatus(request('card-002'), requestedAt)).resolves.toEqual({ status: 'REJECTED' });
    await expect(
      sandboxIssuer.provisioningStatus(request(undefined, 'Customer:01950000-0000-7000-8000-000000000002'), requestedAt),
    ).resolves.toEqual({ status: 'REJECTED' });
  });

  it('005 activates 30 s after the request, not before', async () => {
    await expect(sandboxIssuer.provisioningStatus(request('card-005'), after(29_999))).resolves.toEqual({
      status: 'PENDING',
      checkAgainAt: after(30_000),
    });
    await expect(sandboxIssuer.provisioningStatus(request('card-005'), after(30_000))).resolves.toEqual({ status: 'ACTIVE' });
  });

  it('anything else activates at once', async () => {
    await expect(sandboxIssuer.provisioningStatus(request('card-007'), requestedAt)).resolves.toEqual({ status: 'ACTIVE' });
    await expect(sandboxIssuer.provisioningStatus(request('my-card'), requestedAt)).resolves.toEqual({ status: 'ACTIVE' });
  });

  it('assigns last4 from the suffix, VISA, and an expiry three years on', async () => {
    expect(sandboxLast4('005')).toBe('4005');
    expect(sandboxLast4('abc')).toMatch(/^\d{4}$/);
    expect(sandboxLast4('abc')).toBe(sandboxLast4('abc'));
    await expect(sandboxIssuer.requestCard(request('card-123'))).resolves.toEqual({
      issuerRef: 'sandbox_card_0000000000c1',
      brand: 'VISA',
      last4: '4123',
      expMonth: 3,
      expYear: 2029,
    });
  });
});
