// Resource ids: `<Type>:<uuid>`, v7 (time-ordered) when fresh, v5 derived from an Idempotency-Key
// so a retry names the same resource. The derivation across actors is pinned in idempotency.spec.ts.
import { idForRequest, isIdOf, newId } from './ids';

const scope = { platformId: 'Platform:019542f5-b3e7-7d02-8000-000000000001' };

describe('newId', () => {
  it('is the type, a colon and a v7 uuid, and sorts by creation', () => {
    const first = newId('Card');
    const second = newId('Card');
    expect(first).toMatch(/^Card:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(isIdOf('Card', first)).toBe(true);
    expect(first < second).toBe(true);
  });
});

describe('idForRequest', () => {
  it('derives a v5 uuid of the given type from a key', () =>
    expect(idForRequest('Card', scope, 'create-card', 'k-1')).toMatch(
      /^Card:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    ));

  it('tells apart the operation, the key and the platform', () => {
    const ids = [
      idForRequest('Card', scope, 'create-card', 'k-1'),
      idForRequest('Card', scope, 'issue-card', 'k-1'),
      idForRequest('Card', scope, 'create-card', 'k-2'),
      idForRequest('Card', { platformId: 'Platform:other' }, 'create-card', 'k-1'),
    ];
    expect(new Set(ids).size).toBe(4);
  });

  it('treats an empty key as no key: a fresh v7 id', () => {
    const id = idForRequest('Card', scope, 'create-card', '');
    expect(id).toMatch(/^Card:[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(id).not.toBe(idForRequest('Card', scope, 'create-card', ''));
  });
});

describe('isIdOf', () => {
  it.each([
    ['another type', 'Customer:019542f5-b3e7-7d02-8000-000000000001'],
    ['no uuid', 'Card:not-a-uuid'],
    ['no type', '019542f5-b3e7-7d02-8000-000000000001'],
    ['not a string', 42],
  ])('refuses %s', (_what, value) => expect(isIdOf('Card', value)).toBe(false));
});
