// What an agent may ask to transfer: given the accounts as the accounts service answered them and
// the customer the agent acts for, when the agent asks for a transfer out or in, then the pair and
// its currency, or the refusal it hears before anything is reserved or recorded.
import { DomainError } from '@corridor/contracts';
import { type AgentTransferFacts, judgeAgentTransfer } from './transfer-pair';

const customerId = 'Customer:0195b000-0000-7000-8000-000000000001';
const internal = {
  id: 'InternalAccount:0195b000-0000-7000-8000-000000000002',
  customerId,
  type: 'INTERNAL_FIAT' as const,
  balance: { amount: 0, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } },
};
const external = { id: 'ExternalAccount:0195b000-0000-7000-8000-000000000003', customerId, currency: 'USD' };
const out = (overrides: Partial<AgentTransferFacts> = {}): AgentTransferFacts => ({
  direction: 'OUT',
  customerId,
  internal,
  external,
  requested: { source: internal.id, destination: external.id },
  ...overrides,
});
const into = (overrides: Partial<AgentTransferFacts> = {}): AgentTransferFacts =>
  out({ direction: 'IN', requested: { source: external.id, destination: internal.id }, ...overrides });
const refusal = (facts: AgentTransferFacts): DomainError => {
  try {
    judgeAgentTransfer(facts);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('judgeAgentTransfer', () => {
  it("gives the pair and the one currency both hold, for a transfer out and in between the customer's own accounts", () => {
    expect(judgeAgentTransfer(out())).toEqual({ internal, external, currency: 'USD' });
    expect(judgeAgentTransfer(into())).toEqual({ internal, external, currency: 'USD' });
  });

  it("refuses an unknown account and another customer's alike, a 404 naming the field and the id as sent", () => {
    const unknown = refusal(out({ internal: undefined, requested: { source: 'InternalAccount:nope', destination: external.id } }));
    expect([unknown.code, unknown.status, unknown.details]).toEqual(['REFERENCE_NOT_FOUND', 404, { field: 'source.accountId' }]);
    expect(unknown.message).toContain('InternalAccount:nope');
    const foreign = refusal(out({ external: { ...external, customerId: 'Customer:0195b000-0000-7000-8000-0000000000ff' } }));
    expect([foreign.code, foreign.details]).toEqual(['REFERENCE_NOT_FOUND', { field: 'destination.accountId' }]);
  });

  it('names the transfer-in source (the external account) and destination (the internal account) by their own fields', () => {
    expect(refusal(into({ external: undefined })).details).toEqual({ field: 'source.accountId' });
    expect(refusal(into({ internal: undefined })).details).toEqual({ field: 'destination.accountId' });
  });

  it('judges the source before the destination, and ownership before currency', () => {
    expect(refusal(out({ internal: undefined, external: undefined })).details).toEqual({ field: 'source.accountId' });
    expect(refusal(out({ external: { ...external, customerId: 'Customer:other', currency: 'EUR' } })).code).toBe('REFERENCE_NOT_FOUND');
  });

  it('refuses two currencies with INVALID_CURRENCY naming the external account', () => {
    const outward = refusal(out({ external: { ...external, currency: 'EUR' } }));
    expect([outward.code, outward.status, outward.details]).toEqual(['INVALID_CURRENCY', 400, { field: 'destination.accountId' }]);
    expect(outward.message).toBe('destination.accountId holds EUR and source.accountId USD; a transfer moves one currency.');
    const inward = refusal(into({ external: { ...external, currency: 'EUR' } }));
    expect([inward.details, inward.message]).toEqual([
      { field: 'source.accountId' },
      'source.accountId holds EUR and destination.accountId USD; a transfer moves one currency.',
    ]);
  });
});
