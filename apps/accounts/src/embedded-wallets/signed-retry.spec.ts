import { p256 } from '@noble/curves/p256';
import { sha256 } from '@noble/hashes/sha256';
import { checkRetry, legOf, type PendingRequest, SANDBOX_SIGNATURE, type Signature } from './signed-retry';
import { parseStamp } from './wallet-crypto';

const now = new Date('2026-11-25T12:00:00Z');
const privateKey = p256.utils.randomPrivateKey();
const publicKey = Buffer.from(p256.getPublicKey(privateKey, true)).toString('hex');
const payload =
  '{"organizationId":"Platform:1","parameters":{"walletId":"InternalAccount:1"},"timestampMs":"1","type":"ACTIVITY_TYPE_EXPORT_WALLET"}';

const stampOf = (signed: string, key = privateKey): string => {
  const signature = p256.sign(sha256(new TextEncoder().encode(signed)), key).toDERHex();
  const pub = Buffer.from(p256.getPublicKey(key, true)).toString('hex');
  return Buffer.from(JSON.stringify({ publicKey: pub, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString('base64url');
};

const pending = (overrides: Partial<PendingRequest> = {}): PendingRequest => ({
  requestId: 'Request:1',
  platformId: 'Platform:1',
  accountId: 'InternalAccount:1',
  operation: 'EXPORT_WALLET',
  targetId: 'InternalAccount:1',
  bodyDigest: 'digest-a',
  payloadToSign: payload,
  expiresAt: new Date(now.getTime() + 60_000),
  usedAt: null,
  bound: {},
  ...overrides,
});

const retry = (
  overrides: { pending?: PendingRequest | null; bodyDigest?: string; stamp?: Signature; signerKeys?: string[]; at?: Date } = {},
) =>
  checkRetry({
    pending: overrides.pending === undefined ? pending() : overrides.pending,
    operation: 'EXPORT_WALLET',
    targetId: 'InternalAccount:1',
    platformId: 'Platform:1',
    bodyDigest: overrides.bodyDigest ?? 'digest-a',
    stamp: overrides.stamp ?? parseStamp(stampOf(payload))!,
    signerKeys: overrides.signerKeys ?? [publicKey],
    now: overrides.at ?? now,
  });

const codeOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'none';
};

describe('legOf', () => {
  it('given no signature headers, then it is the first leg', () => expect(legOf({})).toEqual({ leg: 'challenge' }));
  it('given Request-Id alone, then WALLET_SIGNATURE_MISSING', () =>
    expect(codeOf(() => legOf({ requestId: 'Request:1' }))).toBe('WALLET_SIGNATURE_MISSING'));
  it('given a signature alone, then REQUEST_ID_MISSING', () =>
    expect(codeOf(() => legOf({ walletSignature: stampOf(payload) }))).toBe('REQUEST_ID_MISSING'));
  it.each(['not base64 !', Buffer.from('{"publicKey":"02"}').toString('base64url'), Buffer.from('[1,2]').toString('base64url')])(
    'given a malformed stamp %s, then WALLET_SIGNATURE_MALFORMED',
    (header) => expect(codeOf(() => legOf({ walletSignature: header, requestId: 'Request:1' }))).toBe('WALLET_SIGNATURE_MALFORMED'),
  );
  it('given both headers, then the second leg with the parsed stamp', () => {
    const leg = legOf({ walletSignature: stampOf(payload), requestId: 'Request:1' });
    expect(leg).toMatchObject({ leg: 'retry', requestId: 'Request:1', stamp: { publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256' } });
  });
});

describe('the sandbox signature', () => {
  it('given sandbox-valid-signature on a sandbox platform, then the second leg with it', () =>
    expect(legOf({ walletSignature: SANDBOX_SIGNATURE, requestId: 'Request:1' }, true)).toEqual({
      leg: 'retry',
      stamp: SANDBOX_SIGNATURE,
      requestId: 'Request:1',
    }));
  it('given sandbox-valid-signature on a production platform, then WALLET_SIGNATURE_MALFORMED as before', () =>
    expect(codeOf(() => legOf({ walletSignature: SANDBOX_SIGNATURE, requestId: 'Request:1' }, false))).toBe('WALLET_SIGNATURE_MALFORMED'));
  it('given sandbox-valid-signature without Request-Id, then REQUEST_ID_MISSING even in the sandbox', () =>
    expect(codeOf(() => legOf({ walletSignature: SANDBOX_SIGNATURE }, true))).toBe('REQUEST_ID_MISSING'));
  it('given it, then the pending request completes without any signer key', () =>
    expect(retry({ stamp: SANDBOX_SIGNATURE, signerKeys: [] }).requestId).toBe('Request:1'));
  it('given it with another body, then WALLET_SIGNATURE_BODY_MISMATCH', () =>
    expect(codeOf(() => retry({ stamp: SANDBOX_SIGNATURE, bodyDigest: 'digest-b' }))).toBe('WALLET_SIGNATURE_BODY_MISMATCH'));
  it('given it with a used request id, then INVALID_SIGNATURE', () =>
    expect(codeOf(() => retry({ stamp: SANDBOX_SIGNATURE, pending: pending({ usedAt: now }) }))).toBe('INVALID_SIGNATURE'));
});

describe('checkRetry', () => {
  it('given a valid stamp by an active session over the payload, then the pending request completes', () =>
    expect(retry().requestId).toBe('Request:1'));
  it('given an unknown request id, then INVALID_SIGNATURE', () => expect(codeOf(() => retry({ pending: null }))).toBe('INVALID_SIGNATURE'));
  it('given a used request id, then INVALID_SIGNATURE', () =>
    expect(codeOf(() => retry({ pending: pending({ usedAt: now }) }))).toBe('INVALID_SIGNATURE'));
  it('given an expired request id, then INVALID_SIGNATURE', () =>
    expect(codeOf(() => retry({ at: new Date(now.getTime() + 61_000) }))).toBe('INVALID_SIGNATURE'));
  it('given another operation’s request id, then INVALID_SIGNATURE', () =>
    expect(codeOf(() => retry({ pending: pending({ operation: 'UPDATE_ACCOUNT' }) }))).toBe('INVALID_SIGNATURE'));
  it('given another platform’s request id, then INVALID_SIGNATURE', () =>
    expect(codeOf(() => retry({ pending: pending({ platformId: 'Platform:2' }) }))).toBe('INVALID_SIGNATURE'));
  it('given a different body, then WALLET_SIGNATURE_BODY_MISMATCH', () =>
    expect(codeOf(() => retry({ bodyDigest: 'digest-b' }))).toBe('WALLET_SIGNATURE_BODY_MISMATCH'));
  it('given a key that is no active session, then WALLET_SIGNATURE_INVALID', () =>
    expect(codeOf(() => retry({ signerKeys: [] }))).toBe('WALLET_SIGNATURE_INVALID'));
  it('given a stamp over another payload, then WALLET_SIGNATURE_INVALID', () =>
    expect(codeOf(() => retry({ stamp: parseStamp(stampOf(`${payload} `))! }))).toBe('WALLET_SIGNATURE_INVALID'));
});
