import bs58check from 'bs58check';
import { p256 } from '@noble/curves/p256';
import {
  bundleSigningKeyOf,
  exportBundle,
  generateP256KeyPair,
  hpkeOpen,
  openAtRest,
  openOtpBundle,
  hpkeSeal,
  otpDigest,
  otpDigestKey,
  otpEncryptionTargetBundle,
  sameDigest,
  sealAtRest,
  sealSessionSigningKey,
  toHex,
} from './wallet-crypto';
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';

describe('wallet formats', () => {
  it('seals a session key as base58check(compressed enc ‖ ciphertext) that opens to the raw key', async () => {
    const client = generateP256KeyPair();
    const session = generateP256KeyPair();
    const decoded = bs58check.decode(await sealSessionSigningKey(client.publicKeyHex, session.privateKeyHex));
    expect([0x02, 0x03]).toContain(decoded[0]);
    const opened = await hpkeOpen(client.privateKeyHex, decoded.slice(0, 33), decoded.slice(33));
    expect(toHex(opened)).toBe(session.privateKeyHex);
  });

  it('opens an OTP bundle sealed to the target bundle, and refuses one sealed to another key', async () => {
    const target = generateP256KeyPair();
    const tek = generateP256KeyPair();
    const data = JSON.parse(
      Buffer.from(
        JSON.parse(otpEncryptionTargetBundle(target.publicKeyHex, 'Platform:1', 'InternalAccount:1', null)).data,
        'hex',
      ).toString(),
    ) as { targetPublic: string };
    const sealed = await hpkeSeal(
      data.targetPublic,
      new TextEncoder().encode(JSON.stringify({ otp_code: '123456', public_key: tek.publicKeyHex })),
    );
    const bundle = JSON.stringify({ encappedPublic: toHex(sealed.enc), ciphertext: toHex(sealed.ciphertext) });
    expect(await openOtpBundle(bundle, target.privateKeyHex)).toEqual({ otpCode: '123456', publicKey: tek.publicKeyHex });
    expect(await openOtpBundle(bundle, generateP256KeyPair().privateKeyHex)).toBeNull();
    expect(await openOtpBundle('{"encappedPublic":"zz"}', target.privateKeyHex)).toBeNull();
  });

  it('exports the mnemonic in the documented bundle', async () => {
    const client = generateP256KeyPair();
    const outer = JSON.parse(await exportBundle(client.publicKeyHex, 'abandon ability able', 'Platform:1', null)) as Record<string, string>;
    expect(outer).toMatchObject({ version: 'v1.0.0', dataSignature: '', enclaveQuorumPublic: '' });
    const data = JSON.parse(Buffer.from(outer['data']!, 'hex').toString()) as Record<string, string>;
    expect(p256.ProjectivePoint.fromHex(data['encappedPublic']!)).toBeDefined();
    const plaintext = await hpkeOpen(
      client.privateKeyHex,
      Buffer.from(data['encappedPublic']!, 'hex'),
      Buffer.from(data['ciphertext']!, 'hex'),
    );
    expect(new TextDecoder().decode(plaintext)).toBe('abandon ability able');
    expect(data['organizationId']).toBe('Platform:1');
  });

  describe('signed bundles (production)', () => {
    // A key made by node:crypto and a verification by node:crypto: the signature is checked by an
    // implementation other than the one that made it, as a client's would be.
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const signer = bundleSigningKeyOf(Buffer.from(jwk.d!, 'base64url').toString('hex'));
    const verifies = (outer: Record<string, string>, data = Buffer.from(outer['data']!, 'hex')): boolean => {
      const point = Buffer.from(outer['enclaveQuorumPublic']!, 'hex');
      const key = createPublicKey({
        key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
        format: 'jwk',
      });
      return verify('sha256', data, { key, dsaEncoding: 'der' }, Buffer.from(outer['dataSignature']!, 'hex'));
    };

    it('given a signing key, then dataSignature is ECDSA-P256-SHA256 (DER hex) over the data bytes by enclaveQuorumPublic', async () => {
      const outer = JSON.parse(
        await exportBundle(generateP256KeyPair().publicKeyHex, 'abandon ability able', 'Platform:1', signer),
      ) as Record<string, string>;
      expect(outer['enclaveQuorumPublic']).toBe(
        `04${Buffer.from(jwk.x!, 'base64url').toString('hex')}${Buffer.from(jwk.y!, 'base64url').toString('hex')}`,
      );
      expect(outer['dataSignature']).toMatch(/^30[0-9a-f]+$/);
      expect(verifies(outer)).toBe(true);
      const altered = Buffer.from(outer['data']!, 'hex');
      altered.writeUInt8(altered.readUInt8(altered.length - 2) ^ 1, altered.length - 2);
      expect(verifies(outer, altered)).toBe(false);
    });

    it('given a signing key, then the OTP target bundle is signed the same way', () => {
      const outer = JSON.parse(
        otpEncryptionTargetBundle(generateP256KeyPair().publicKeyHex, 'Platform:1', 'InternalAccount:1', signer),
      ) as Record<string, string>;
      expect(outer['enclaveQuorumPublic']).toBe(signer.publicKeyHex);
      expect(verifies(outer)).toBe(true);
    });

    it.each(['', 'zz'.repeat(32), '00'.repeat(32), 'ff'.repeat(32), 'ab'.repeat(31)])('given %s as the key, then it is refused', (hex) => {
      expect(() => bundleSigningKeyOf(hex)).toThrow(/not a P-256 private key/);
    });
  });

  it('keeps secrets at rest only under the key-encryption key', () => {
    const kek = randomBytes(32);
    const sealed = sealAtRest('abandon ability able', kek);
    expect(sealed).not.toContain('abandon');
    expect(openAtRest(sealed, kek)).toBe('abandon ability able');
    expect(() => openAtRest(sealed, randomBytes(32))).toThrow();
  });

  it('compares OTP digests whole: the same digest matches, any other (shorter, longer, not hex, empty) does not', () => {
    const key = otpDigestKey(randomBytes(32));
    const stored = otpDigest('123456', 'salt', key);
    expect(sameDigest(otpDigest('123456', 'salt', key), stored)).toBe(true);
    expect(sameDigest(otpDigest('123457', 'salt', key), stored)).toBe(false);
    expect(sameDigest(stored.slice(0, 62), stored)).toBe(false);
    expect(sameDigest(`${stored}00`, stored)).toBe(false);
    expect(sameDigest(`${stored.slice(0, 10)}zz${stored.slice(12)}`, stored)).toBe(false);
    expect(sameDigest('', '')).toBe(false);
  });

  it('keys OTP digests: a copy of the database without the key-encryption key cannot test codes against them', () => {
    const kek = randomBytes(32);
    const stored = otpDigest('123456', 'salt', otpDigestKey(kek));
    // What the old sha256(salt:code) digest was, and what the same digest under another key is: neither matches.
    expect(stored).not.toBe(createHash('sha256').update('salt:123456').digest('hex'));
    expect(otpDigest('123456', 'salt', otpDigestKey(randomBytes(32)))).not.toBe(stored);
    // The digest key is derived, not the key-encryption key itself.
    expect(otpDigestKey(kek).equals(kek)).toBe(false);
    expect(otpDigestKey(kek)).toEqual(otpDigestKey(Buffer.from(kek)));
  });
});
