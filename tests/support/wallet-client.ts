// An Embedded Wallet client written from the reference alone (reference/grid-conventions.md
// section (k) and its description of scripts/embedded-wallet-sign.js), with no code from Corridor:
// it generates P-256 keys, HPKE-encrypts the OTP to the target bundle, decrypts the session key and
// the export bundle, and builds the Turnkey-style API-key stamp for Grid-Wallet-Signature.
import {
  createECDH,
  createHash,
  createHash as hashOf,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign as signWith,
} from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/p256';
import { sha256 } from '@noble/hashes/sha256';
import bs58check from 'bs58check';

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const info = new TextEncoder().encode('turnkey_hpke');
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytes = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'hex'));
const join = (a: Uint8Array, b: Uint8Array): Uint8Array => Uint8Array.from(Buffer.concat([a, b]));

export type KeyPair = { pubHex: string; privHex: string };

/** gen-keypair: a P-256 key via node:crypto; pubHex = "04"+X+Y, privHex = d. The TEK or a client key. */
export const genKeypair = (): KeyPair => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { pubHex: ecdh.getPublicKey('hex', 'uncompressed'), privHex: ecdh.getPrivateKey('hex').padStart(64, '0') };
};

const seal = async (recipientPubHex: string, plaintext: Uint8Array): Promise<{ enc: Uint8Array; ciphertext: Uint8Array }> => {
  const recipient = bytes(recipientPubHex);
  const sender = await suite.createSenderContext({ recipientPublicKey: await suite.kem.importKey('raw', recipient, true), info });
  const enc = new Uint8Array(sender.enc);
  return { enc, ciphertext: new Uint8Array(await sender.seal(plaintext, join(enc, recipient))) };
};

const open = async (privHex: string, enc: Uint8Array, ciphertext: Uint8Array): Promise<Uint8Array> => {
  const recipient = p256.getPublicKey(bytes(privHex), false);
  const encUncompressed = p256.ProjectivePoint.fromHex(enc).toRawBytes(false);
  const context = await suite.createRecipientContext({
    recipientKey: await suite.kem.importKey('raw', bytes(privHex), false),
    enc: encUncompressed,
    info,
  });
  return new Uint8Array(await context.open(ciphertext, join(encUncompressed, recipient)));
};

/** encrypt-otp: reads targetPublic from the bundle's hex data and seals {"otp_code","public_key"} to it. */
export const encryptOtp = async (otpEncryptionTargetBundle: string, pubHex: string, otpCode: string): Promise<string> => {
  const { data } = JSON.parse(otpEncryptionTargetBundle) as { data: string };
  const { targetPublic } = JSON.parse(Buffer.from(data, 'hex').toString('utf8')) as { targetPublic: string };
  const { enc, ciphertext } = await seal(targetPublic, new TextEncoder().encode(JSON.stringify({ otp_code: otpCode, public_key: pubHex })));
  return JSON.stringify({ encappedPublic: hex(enc), ciphertext: hex(ciphertext) });
};

/** decrypt-bundle: base58check → 33-byte compressed enc ‖ ciphertext; the plaintext is the raw 32-byte session key. */
export const decryptSessionKey = async (encryptedSessionSigningKey: string, privHex: string): Promise<string> => {
  const decoded = bs58check.decode(encryptedSessionSigningKey);
  return hex(await open(privHex, decoded.slice(0, 33), decoded.slice(33)));
};

/** The export: data hex-decodes to {"encappedPublic","ciphertext","organizationId"}; the plaintext is the mnemonic. */
export const decryptExport = async (encryptedWalletCredentials: string, privHex: string): Promise<string> => {
  const { data } = JSON.parse(encryptedWalletCredentials) as { data: string };
  const inner = JSON.parse(Buffer.from(data, 'hex').toString('utf8')) as { encappedPublic: string; ciphertext: string };
  return new TextDecoder().decode(await open(privHex, bytes(inner.encappedPublic), bytes(inner.ciphertext)));
};

/** stamp: ECDSA P-256 over SHA-256 of the exact payload, DER hex, in {"publicKey","scheme","signature"}, base64url. */
export const stamp = (privHex: string, payload: string): string => {
  const signature = p256.sign(sha256(new TextEncoder().encode(payload)), bytes(privHex)).toDERHex();
  const publicKey = hex(p256.getPublicKey(bytes(privHex), true));
  return Buffer.from(JSON.stringify({ publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString('base64url');
};

/** The retry headers of a 202 challenge, signed with the given key. */
export const signedHeaders = (privHex: string, challenge: { payloadToSign: string; requestId: string }): Record<string, string> => ({
  'Grid-Wallet-Signature': stamp(privHex, challenge.payloadToSign),
  'Request-Id': challenge.requestId,
});

/** The OIDC nonce of an OAUTH verify: sha256(clientPublicKey) as hex. */
export const oidcNonce = (clientPublicKey: string): string => createHash('sha256').update(clientPublicKey).digest('hex');

// A software passkey (WebAuthn authenticator) for the PASSKEY flows: "none" attestation, ES256.

const b64url = (data: Uint8Array | string): string => Buffer.from(data).toString('base64url');
const digest = (data: Uint8Array | string): Buffer => hashOf('sha256').update(data).digest();
const counterBytes = (counter: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(counter);
  return buffer;
};

export type SoftwarePasskey = { credentialId: string; privateKey: KeyObject; rpId: string; origin: string; counter: number };

/** navigator.credentials.create(): the attestation for POST /auth/credentials, over the platform-issued challenge. */
export const createPasskey = (options: { rpId: string; origin: string; challenge: string }) => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const rawId = randomBytes(16);
  const cose = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Uint8Array.from(Buffer.from(jwk.x, 'base64url'))],
      [-3, Uint8Array.from(Buffer.from(jwk.y, 'base64url'))],
    ]),
  );
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(rawId.length);
  const authData = Buffer.concat([
    digest(options.rpId),
    Buffer.from([0x45]),
    counterBytes(0),
    Buffer.alloc(16),
    idLength,
    rawId,
    Buffer.from(cose),
  ]);
  const attestationObject = isoCBOR.encode(
    new Map<string, unknown>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', Uint8Array.from(authData)],
    ]) as never,
  );
  const clientDataJson = JSON.stringify({
    type: 'webauthn.create',
    challenge: options.challenge,
    origin: options.origin,
    crossOrigin: false,
  });
  const passkey: SoftwarePasskey = { credentialId: b64url(rawId), privateKey, rpId: options.rpId, origin: options.origin, counter: 0 };
  return {
    passkey,
    attestation: {
      credentialId: passkey.credentialId,
      clientDataJson: b64url(clientDataJson),
      attestationObject: b64url(attestationObject),
      transports: ['internal'],
    },
  };
};

/** navigator.credentials.get(): an assertion over the challenge string's UTF-8 bytes (the PasskeyAuthChallenge's hex). */
export const assertPasskey = (passkey: SoftwarePasskey, challenge: string) => {
  passkey.counter += 1;
  const authenticatorData = Buffer.concat([digest(passkey.rpId), Buffer.from([0x05]), counterBytes(passkey.counter)]);
  const clientDataJson = JSON.stringify({ type: 'webauthn.get', challenge: b64url(challenge), origin: passkey.origin, crossOrigin: false });
  const signature = signWith('sha256', Buffer.concat([authenticatorData, digest(clientDataJson)]), passkey.privateKey);
  return {
    credentialId: passkey.credentialId,
    clientDataJson: b64url(clientDataJson),
    authenticatorData: b64url(authenticatorData),
    signature: b64url(signature),
  };
};
