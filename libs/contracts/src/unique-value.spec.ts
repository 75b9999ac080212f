// Pins down when a held unique value is taken over: only from a holder proved gone (deleted, or
// never created and claimed at least ABANDONED_CLAIM_AGE_MS ago); every other refusal stands.
import { DomainError } from './errors';
import {
  ABANDONED_CLAIM_AGE_MS,
  claimAbandoned,
  type ClaimHolderState,
  claimUnique,
  claimUniqueValue,
  type UniqueValue,
  uniqueValueDecider,
} from './unique-value';

const key = 'UmaAddress:$alice@acme.uma.money';
const claimedAt = '2026-11-27T10:00:00.000Z';
const after = (ms: number) => new Date(Date.parse(claimedAt) + ms);

/** One value's stream in memory, claimed through the real decider, and the holders' states. */
const valueStore = (holder: string | null, holders: Record<string, ClaimHolderState>, now: Date) => {
  let value: UniqueValue = holder ? { ownerId: holder } : uniqueValueDecider.initialState();
  const claims: (string | undefined)[] = [];
  return {
    owner: () => value.ownerId,
    claims,
    unique: (ownerId: string) => ({
      conflictCode: 'UMA_ADDRESS_EXISTS',
      claim: async (abandonedOwnerId?: string) => {
        claims.push(abandonedOwnerId);
        const data = { key, ownerId, conflictCode: 'UMA_ADDRESS_EXISTS', conflictMessage: 'taken' };
        const events = claimUniqueValue(
          { type: 'ClaimUniqueValue', data: { ...data, ...(abandonedOwnerId ? { abandonedOwnerId } : {}) }, metadata: {} },
          value,
        );
        value = events.reduce(uniqueValueDecider.evolve, value);
      },
      holderOf: async () => (value.ownerId ? { ownerId: value.ownerId, claimedAt } : undefined),
      holderState: async (id: string) => holders[id] ?? 'missing',
      now: () => now,
    }),
  };
};

describe('claimAbandoned', () => {
  it('takes over from a holder that never came to exist once the claim is exactly the age', () =>
    expect(claimAbandoned('missing', claimedAt, after(ABANDONED_CLAIM_AGE_MS))).toBe(true));
  it('leaves a younger claim alone: its create may still be running', () =>
    expect(claimAbandoned('missing', claimedAt, after(ABANDONED_CLAIM_AGE_MS - 1))).toBe(false));
  it('takes over from a deleted holder at any age', () => expect(claimAbandoned('deleted', claimedAt, after(0))).toBe(true));
  it('never takes over from a holder that exists', () =>
    expect(claimAbandoned('exists', claimedAt, after(10 * ABANDONED_CLAIM_AGE_MS))).toBe(false));
});

describe('claimUnique', () => {
  it('claims a free value once', async () => {
    const store = valueStore(null, {}, after(0));
    await claimUnique(store.unique('Customer:b'));
    expect([store.owner(), store.claims]).toEqual(['Customer:b', [undefined]]);
  });

  it('takes an old claim over from a holder that never came to exist, naming it', async () => {
    const store = valueStore('Customer:a', {}, after(ABANDONED_CLAIM_AGE_MS));
    await claimUnique(store.unique('Customer:b'));
    expect([store.owner(), store.claims]).toEqual(['Customer:b', [undefined, 'Customer:a']]);
  });

  it('refuses with the conflict while the holder exists', async () => {
    const store = valueStore('Customer:a', { 'Customer:a': 'exists' }, after(10 * ABANDONED_CLAIM_AGE_MS));
    await expect(claimUnique(store.unique('Customer:b'))).rejects.toMatchObject({ code: 'UMA_ADDRESS_EXISTS', status: 409 });
    expect(store.owner()).toBe('Customer:a');
  });

  it('refuses a young claim whose holder may still be being created', async () => {
    const store = valueStore('Customer:a', {}, after(ABANDONED_CLAIM_AGE_MS - 1));
    await expect(claimUnique(store.unique('Customer:b'))).rejects.toMatchObject({ code: 'UMA_ADDRESS_EXISTS' });
    expect(store.claims).toEqual([undefined]);
  });

  it('refuses when the holder cannot be told', async () => {
    const unique = { ...valueStore('Customer:a', {}, after(0)).unique('Customer:b'), holderOf: async () => undefined };
    await expect(claimUnique(unique)).rejects.toMatchObject({ code: 'UMA_ADDRESS_EXISTS' });
  });

  it('passes any other failure through without asking for the holder', async () => {
    const unavailable = new DomainError('SERVICE_UNAVAILABLE', 'unavailable', 'The store is down.');
    const holderOf = jest.fn();
    const unique = { ...valueStore(null, {}, after(0)).unique('Customer:b'), claim: () => Promise.reject(unavailable), holderOf };
    await expect(claimUnique(unique)).rejects.toBe(unavailable);
    expect(holderOf).not.toHaveBeenCalled();
  });
});
