// Pins down the signature format receivers verify, and that private keys at rest need the right key.
import { createVerify, randomBytes } from 'node:crypto';
import { decryptPrivateKey, encryptPrivateKey, generateSigningKeyPair, signatureHeader, verifySignatureHeader } from './signing-key';

const kek = randomBytes(32);

describe('webhook signatures', () => {
  const pair = generateSigningKeyPair();
  const privateKey = decryptPrivateKey(encryptPrivateKey(pair.privateKeyPem, kek), kek);
  const body = JSON.stringify({ id: 'Webhook:1', type: 'TEST', timestamp: '2026-01-01T00:00:00Z', data: {} });

  it('is {"v":"1","s":base64 DER} that Node verify("SHA256") accepts with the public PEM', () => {
    const header = JSON.parse(signatureHeader(body, privateKey)) as { v: string; s: string };
    expect(header.v).toBe('1');
    const der = Buffer.from(header.s, 'base64');
    expect(der[0]).toBe(0x30); // an ASN.1 SEQUENCE: DER, not the raw r||s form
    expect(createVerify('SHA256').update(body).verify(pair.publicKeyPem, der)).toBe(true);
  });

  it('fails for a tampered body, another key or a malformed header', () => {
    const header = signatureHeader(body, privateKey);
    expect(verifySignatureHeader(body, header, pair.publicKeyPem)).toBe(true);
    expect(verifySignatureHeader(body.replace('TEST', 'TEsT'), header, pair.publicKeyPem)).toBe(false);
    expect(verifySignatureHeader(body, header, generateSigningKeyPair().publicKeyPem)).toBe(false);
    expect(verifySignatureHeader(body, 'not json', pair.publicKeyPem)).toBe(false);
    expect(verifySignatureHeader(body, JSON.stringify({ v: '2', s: JSON.parse(header).s }), pair.publicKeyPem)).toBe(false);
  });

  it('keeps the private key sealed: another key-encryption key or an altered byte cannot open it', () => {
    const sealed = encryptPrivateKey(pair.privateKeyPem, kek);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(() => decryptPrivateKey(sealed, randomBytes(32))).toThrow();
    const altered = Buffer.from(sealed, 'base64');
    altered.writeUInt8(altered.readUInt8(altered.length - 1) ^ 1, altered.length - 1);
    expect(() => decryptPrivateKey(altered.toString('base64'), kek)).toThrow();
  });
});
