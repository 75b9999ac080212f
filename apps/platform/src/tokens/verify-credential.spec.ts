// Given the tokens that exist, when a credential is checked, then the secret is verified — against a
// dummy hash when the client id is unknown, so an unknown id costs the same scrypt as a known one.
import type { VerifiedCredential } from '@corridor/contracts';
import { FairGate, GateFull } from './fair-gate';
import { verifyCredential, type VerifierDeps } from './verify-credential';

const credential: VerifiedCredential = { platformId: 'Platform:p', tokenId: 'Token:t', permissions: ['VIEW'], environment: 'SANDBOX' };

const setup = (options = { concurrency: 1, queueMax: 10, queuePerKeyMax: 10 }) => {
  const checked: { secret: string; stored: string }[] = [];
  const deps: VerifierDeps = {
    findToken: async (clientId) => (clientId === 'known' ? { secretHash: 'hash-of-right', credential } : null),
    checkSecret: async (secret, stored) => {
      checked.push({ secret, stored });
      return stored === `hash-of-${secret}`;
    },
    dummyHash: 'dummy-hash',
    gate: new FairGate(options),
  };
  return { deps, checked };
};

describe('verifyCredential', () => {
  it('given a known client id and its secret, answers the credential', async () => {
    const { deps, checked } = setup();
    await expect(verifyCredential(deps, 'known', 'right')).resolves.toEqual(credential);
    expect(checked).toEqual([{ secret: 'right', stored: 'hash-of-right' }]);
  });

  it('given a known client id and a wrong secret, answers null after one check', async () => {
    const { deps, checked } = setup();
    await expect(verifyCredential(deps, 'known', 'wrong')).resolves.toBeNull();
    expect(checked).toHaveLength(1);
  });

  it('given an unknown client id, still checks the secret once, against the dummy hash, and answers null', async () => {
    const { deps, checked } = setup();
    await expect(verifyCredential(deps, 'unknown', 'dummy')).resolves.toBeNull();
    expect(checked).toEqual([{ secret: 'dummy', stored: 'dummy-hash' }]);
  });

  it('given a full gate, refuses unknown and known client ids alike, without a check', async () => {
    const { deps, checked } = setup({ concurrency: 1, queueMax: 0, queuePerKeyMax: 0 });
    let release = (): void => undefined;
    const busy = deps.gate.run('other', () => new Promise<boolean>((resolve) => (release = () => resolve(true))));
    await expect(verifyCredential(deps, 'unknown', 'x')).rejects.toBeInstanceOf(GateFull);
    await expect(verifyCredential(deps, 'known', 'right')).rejects.toBeInstanceOf(GateFull);
    expect(checked).toEqual([]);
    release();
    await busy;
  });
});
