// Pins down token creation and deletion, including that one platform cannot delete another's token
// and that a token grants only permissions it holds.
import { deciderSpec } from '@corridor/testing';
import { createToken, type CreateToken } from './create-token';
import { deleteToken, type DeleteToken } from './delete-token';
import { tokenDecider, type TokenEvent } from './token';
import { hashSecret, verifySecret } from './secrets';

const tokenId = 'Token:0196f1a0-0000-7000-8000-000000000001';
const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
const now = new Date('2026-03-01T10:00:00.000Z');
const data = { tokenId, platformId, name: 'read only', permissions: ['VIEW' as const], clientId: 'c1', secretHash: 'scrypt$x' };
const created: TokenEvent = { type: 'TokenCreated', data: { ...data, createdAt: now.toISOString() } };
type Permissions = CreateToken['data']['permissions'];
const all: Permissions = ['VIEW', 'TRANSACT', 'MANAGE'];
const create = (permissions: Permissions, grantorPermissions: Permissions = all): CreateToken => ({
  type: 'CreateToken',
  data: { ...data, permissions, grantorPermissions },
  metadata: { now },
});
const remove = (onPlatform = platformId): DeleteToken => ({
  type: 'DeleteToken',
  data: { tokenId, platformId: onPlatform },
  metadata: { now },
});

describe('CreateToken', () => {
  const given = deciderSpec({ decide: createToken, ...tokenDecider }).given;
  it('creates a token with its permissions once each', () =>
    given([])
      .when(create(['VIEW', 'VIEW']))
      .then([created]));
  it('refuses a token without permissions', () =>
    given([])
      .when(create([]))
      .thenThrows((error) => error.code === 'INVALID_INPUT'));
  it('refuses a MANAGE-only grantor a TRANSACT token (403 naming TRANSACT)', () =>
    given([])
      .when(create(['VIEW', 'TRANSACT'], ['MANAGE']))
      .thenThrows((error) => error.status === 403 && /TRANSACT/.test(error.message)));
  it('lets a MANAGE-only grantor create a VIEW and MANAGE token', () =>
    given([])
      .when(create(['VIEW', 'MANAGE'], ['MANAGE']))
      .then([{ type: 'TokenCreated', data: { ...data, permissions: ['VIEW', 'MANAGE'], createdAt: now.toISOString() } }]));

  describe('under a used Idempotency-Key (the token id is derived from it)', () => {
    const first = 'a1'.repeat(32);
    const underKey = (fingerprint: string | undefined, permissions: CreateToken['data']['permissions'] = ['VIEW']): CreateToken => ({
      type: 'CreateToken',
      data: { ...data, permissions, grantorPermissions: all, ...(fingerprint ? { requestFingerprint: fingerprint } : {}) },
      metadata: { now },
    });
    const createdUnderKey: TokenEvent = {
      type: 'TokenCreated',
      data: { ...data, requestFingerprint: first, createdAt: now.toISOString() },
    };

    it('keeps the request’s fingerprint with the token', () => given([]).when(underKey(first)).then([createdUnderKey]));
    it('does nothing when the same request comes again', () => given([createdUnderKey]).when(underKey(first)).thenNothingHappened());
    it('refuses another request under the key with a 409 naming the token', () =>
      given([createdUnderKey])
        .when(underKey('b2'.repeat(32), ['MANAGE']))
        .thenThrows((error) => error.status === 409 && error.details?.['resourceId'] === tokenId));
    it('refuses the key of a token deleted since', () =>
      given([createdUnderKey, { type: 'TokenDeleted', data: { tokenId, platformId, deletedAt: now.toISOString() } }])
        .when(underKey(first))
        .thenThrows((error) => error.status === 409));
  });
});

describe('DeleteToken', () => {
  const given = deciderSpec({ decide: deleteToken, ...tokenDecider }).given;
  it('deletes a live token', () =>
    given([created])
      .when(remove())
      .then([{ type: 'TokenDeleted', data: { tokenId, platformId, deletedAt: now.toISOString() } }]));
  it('answers TOKEN_NOT_FOUND for another platform', () =>
    given([created])
      .when(remove('Platform:other'))
      .thenThrows((error) => error.code === 'TOKEN_NOT_FOUND' && error.status === 404));
  it('answers TOKEN_NOT_FOUND when deleted twice', () =>
    given([created, { type: 'TokenDeleted', data: { tokenId, platformId, deletedAt: now.toISOString() } }])
      .when(remove())
      .thenThrows((error) => error.code === 'TOKEN_NOT_FOUND'));
});

describe('client secrets', () => {
  it('verifies the secret that was hashed and nothing else', async () => {
    const stored = await hashSecret('s3cret');
    expect(stored).not.toContain('s3cret');
    await expect(verifySecret('s3cret', stored)).resolves.toBe(true);
    await expect(verifySecret('s3cret!', stored)).resolves.toBe(false);
    await expect(verifySecret('s3cret', 'garbage')).resolves.toBe(false);
  });
});
