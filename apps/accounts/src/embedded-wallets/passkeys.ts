import { createHash } from 'node:crypto';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { DomainError } from '@corridor/contracts';

// PASSKEY credentials through @simplewebauthn/server: registration against the platform-issued
// challenge, authentication against the Grid-issued one (the lowercase hex SHA-256 of the
// canonical session-creation body, used as UTF-8 bytes).

export type WebAuthnConfig = { rpIds: string[]; origins: string[] };
export type PasskeyKey = { credentialId: string; publicKey: string; counter: number };
export type PasskeyAttestation = { credentialId: string; clientDataJson: string; attestationObject: string; transports?: string[] };
export type PasskeyAssertion = {
  credentialId: string;
  clientDataJson: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
};

const unauthorized = (reason: string): DomainError =>
  new DomainError('UNAUTHORIZED', 'unauthorized', `The passkey is not accepted: ${reason}.`, { reason });

/**
 * The reference's sandbox assertion signature (section (f)): on a SANDBOX platform an assertion
 * whose signature is this value skips WebAuthn verification. It must still name this credential's
 * passkey and come with the challenge's Request-Id, which is used once.
 */
export const SANDBOX_PASSKEY_SIGNATURE = 'sandbox-valid-passkey-signature';

/** Whether an assertion offers the sandbox signature, so the platform's environment is worth looking up. */
export const offersSandboxAssertion = (assertion: unknown): boolean =>
  (assertion as { signature?: unknown } | null)?.signature === SANDBOX_PASSKEY_SIGNATURE;

/** True when the sandbox shortcut stands in for WebAuthn; false when the assertion must be verified for real. */
export const sandboxAssertionAccepted = (assertion: unknown, key: PasskeyKey, sandbox: boolean): boolean => {
  if (!sandbox || !offersSandboxAssertion(assertion)) return false;
  if ((assertion as { credentialId?: unknown }).credentialId !== key.credentialId)
    throw unauthorized('assertion.credentialId is not this credential’s passkey');
  return true;
};

/** The challenge a passkey signs to open a session: lowercase hex SHA-256 of the exact payload. */
export const passkeyChallengeOf = (payload: string): string => createHash('sha256').update(payload).digest('hex');

export const registerPasskey = async (attestation: PasskeyAttestation, challenge: string, config: WebAuthnConfig): Promise<PasskeyKey> => {
  requireRelyingParty(config);
  try {
    const result = await verifyRegistrationResponse({
      response: {
        id: attestation.credentialId,
        rawId: attestation.credentialId,
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: attestation.clientDataJson,
          attestationObject: attestation.attestationObject,
          ...(attestation.transports ? { transports: attestation.transports as never } : {}),
        },
      },
      expectedChallenge: challenge,
      expectedOrigin: config.origins,
      expectedRPID: config.rpIds,
      requireUserVerification: false,
    });
    if (!result.verified || !result.registrationInfo) throw unauthorized('the attestation does not verify');
    const { credential } = result.registrationInfo;
    return { credentialId: credential.id, publicKey: Buffer.from(credential.publicKey).toString('base64url'), counter: credential.counter };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw unauthorized(`the attestation does not verify (${(error as Error).message})`);
  }
};

/** Verifies an assertion over the challenge (hex string as UTF-8); returns the new signature counter. */
export const authenticatePasskey = async (
  assertion: PasskeyAssertion,
  challengeHex: string,
  key: PasskeyKey,
  config: WebAuthnConfig,
): Promise<number> => {
  requireRelyingParty(config);
  if (assertion.credentialId !== key.credentialId) throw unauthorized('assertion.credentialId is not this credential’s passkey');
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: assertion.credentialId,
        rawId: assertion.credentialId,
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: assertion.clientDataJson,
          authenticatorData: assertion.authenticatorData,
          signature: assertion.signature,
          ...(assertion.userHandle ? { userHandle: assertion.userHandle } : {}),
        },
      },
      expectedChallenge: Buffer.from(challengeHex, 'utf8').toString('base64url'),
      expectedOrigin: config.origins,
      expectedRPID: config.rpIds,
      credential: { id: key.credentialId, publicKey: Uint8Array.from(Buffer.from(key.publicKey, 'base64url')), counter: key.counter },
      requireUserVerification: false,
    });
    if (!result.verified) throw unauthorized('the assertion does not verify');
    return result.authenticationInfo.newCounter;
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw unauthorized(`the assertion does not verify (${(error as Error).message})`);
  }
};

const DEVELOPMENT_WEBAUTHN: WebAuthnConfig = { rpIds: ['localhost'], origins: ['http://localhost:3000'] };

const isLoopbackHost = (host: string): boolean => {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
};
const hostOf = (origin: string): string => (URL.canParse(origin) ? new URL(origin).hostname : origin);

/**
 * EMBEDDED_WALLET_WEBAUTHN_RP_IDS / EMBEDDED_WALLET_WEBAUTHN_ORIGINS: comma-separated. Outside
 * production, localhost when unset. In production (decision 0021) the localhost defaults are never
 * used: unset means no relying party, so passkeys answer 503 until the operator names the platform
 * apps' domains; a loopback value set there refuses to start, since any page on the user's own
 * machine could then ask their authenticator for an assertion.
 */
export const parseWebAuthnConfig = (env: NodeJS.ProcessEnv): WebAuthnConfig => {
  const list = (value: string | undefined) =>
    value
      ? value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean)
      : [];
  const rpIds = list(env['EMBEDDED_WALLET_WEBAUTHN_RP_IDS']);
  const origins = list(env['EMBEDDED_WALLET_WEBAUTHN_ORIGINS']);
  if (env['NODE_ENV'] !== 'production')
    return {
      rpIds: rpIds.length > 0 ? rpIds : DEVELOPMENT_WEBAUTHN.rpIds,
      origins: origins.length > 0 ? origins : DEVELOPMENT_WEBAUTHN.origins,
    };
  const loopback = [...rpIds, ...origins.map(hostOf)].find(isLoopbackHost);
  if (loopback !== undefined) {
    throw new Error(
      `EMBEDDED_WALLET_WEBAUTHN_RP_IDS and _ORIGINS name ${loopback}, a loopback host; ` +
        'in production name the domains of the apps where customers use passkeys.',
    );
  }
  if ((rpIds.length === 0) !== (origins.length === 0))
    throw new Error('EMBEDDED_WALLET_WEBAUTHN_RP_IDS and EMBEDDED_WALLET_WEBAUTHN_ORIGINS are set together, or neither (passkeys off).');
  return { rpIds, origins };
};

/** 503 while no relying party is configured (production without EMBEDDED_WALLET_WEBAUTHN_*): passkeys are off. */
export const requireRelyingParty = (config: WebAuthnConfig): void => {
  if (config.rpIds.length > 0 && config.origins.length > 0) return;
  throw new DomainError(
    'PASSKEY_UNAVAILABLE',
    'unavailable',
    'This Corridor deployment accepts no passkeys: its operator has not named the relying party ' +
      '(EMBEDDED_WALLET_WEBAUTHN_RP_IDS and EMBEDDED_WALLET_WEBAUTHN_ORIGINS).',
  );
};
