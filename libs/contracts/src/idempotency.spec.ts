// What an Idempotency-Key names: ids derived in the actor's scope, and the same request told apart
// from another one under a used key (decision 0028).
import { idForRequest } from './ids';
import { idempotencyScopeKey, idempotencyScopeOf, requestFingerprint, requireSameRequest } from './idempotency';

const platformId = 'Platform:019542f5-b3e7-7d02-8000-000000000001';
const platform = { platformId, actor: { kind: 'token' as const, tokenId: 'Token:a' } };
const agent = (agentId: string) => ({ platformId, actor: { kind: 'agent' as const, agentId } });

describe('idForRequest', () => {
  it('derives one id from one key in one scope, so a retry names what the first attempt made', () =>
    expect(idForRequest('Card', idempotencyScopeOf(platform), 'create-card', 'k-1')).toBe(
      idForRequest('Card', idempotencyScopeOf(platform), 'create-card', 'k-1'),
    ));

  it('gives every token of a platform the one scope: the platform', () =>
    expect(idempotencyScopeOf(platform)).toEqual(idempotencyScopeOf({ platformId, actor: { kind: 'token', tokenId: 'Token:b' } })));

  it('keeps an agent apart from its platform and from every other agent under the same key', () => {
    const ids = [platform, agent('Agent:x'), agent('Agent:y')].map((context) =>
      idForRequest('ExternalAccount', idempotencyScopeOf(context), 'create-external-account', 'shared'),
    );
    expect(new Set(ids).size).toBe(3);
  });

  it('derives a platform’s ids as it always did, from (platform, operation, key)', () =>
    // Pinned: a changed derivation would make a retry across a deploy create a second resource.
    expect(idForRequest('Customer', idempotencyScopeOf(platform), 'create-customer', 'k-1')).toBe(
      'Customer:e469056d-fb6e-5383-a7a4-d4fa3ea18e57',
    ));

  it('is fresh without a key', () =>
    expect(idForRequest('Card', idempotencyScopeOf(platform), 'create-card', undefined)).not.toBe(
      idForRequest('Card', idempotencyScopeOf(platform), 'create-card', undefined),
    ));
});

describe('idempotencyScopeKey', () => {
  it('never names two scopes alike', () =>
    expect(idempotencyScopeKey({ platformId })).not.toBe(idempotencyScopeKey({ platformId, agentId: 'platform' })));
});

describe('requestFingerprint', () => {
  it('ignores key order and undefined members', () =>
    expect(requestFingerprint('POST', '/cards', { a: 1, b: { c: 2, d: undefined } })).toBe(
      requestFingerprint('POST', '/cards', { b: { c: 2 }, a: 1 }),
    ));

  it('tells apart the body, the path and the method', () => {
    const prints = [
      requestFingerprint('POST', '/cards', { a: 1 }),
      requestFingerprint('POST', '/cards', { a: 2 }),
      requestFingerprint('POST', '/tokens', { a: 1 }),
      requestFingerprint('PUT', '/cards', { a: 1 }),
    ];
    expect(new Set(prints).size).toBe(4);
  });
});

describe('requireSameRequest', () => {
  it('lets the same request through (a retry)', () => expect(() => requireSameRequest('f', 'f', 'Card:x')).not.toThrow());
  it('refuses another request under the key with a 409 naming what the key made', () =>
    expect(() => requireSameRequest('f', 'g', 'Card:x')).toThrow(
      expect.objectContaining({ status: 409, code: 'CONFLICT', details: expect.objectContaining({ resourceId: 'Card:x' }) }),
    ));
  it('refuses a request without a fingerprint: it had no key, so its id cannot name an existing resource', () =>
    expect(() => requireSameRequest('f', undefined, 'Card:x')).toThrow(expect.objectContaining({ status: 409 })));
  it('answers a resource kept before fingerprints were as a retry', () =>
    expect(() => requireSameRequest(undefined, 'g', 'Card:x')).not.toThrow());
});
