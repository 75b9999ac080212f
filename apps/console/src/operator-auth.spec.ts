import { createHash } from 'node:crypto';
import { decideOperator, parseOperatorCredentials } from './operator-auth';

const token = 'operator-token-0123456789abcdef';
const digest = (text: string) => createHash('sha256').update(text).digest('hex');
const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

describe('operator credentials', () => {
  const credentials = parseOperatorCredentials(token, `alice:${digest('correct horse battery')}`);

  it('given no operator credential configured, when the console starts, then it refuses to', () => {
    expect(() => parseOperatorCredentials(undefined, '')).toThrow(/CONSOLE_TOKEN or CONSOLE_USERS/);
    expect(() => parseOperatorCredentials('short', undefined)).toThrow(/at least 24/);
    expect(() => parseOperatorCredentials(undefined, 'alice:plaintext')).toThrow(/sha256/);
  });

  it('given the console token or an operator password, when it is sent, then the operator is let in', () => {
    expect(decideOperator(credentials, `Bearer ${token}`)).toEqual({ allowed: true, operator: 'token' });
    expect(decideOperator(credentials, basic('alice', 'correct horse battery'))).toEqual({ allowed: true, operator: 'alice' });
  });

  it('given a platform API token or a wrong credential, when it is sent, then the answer is 401', () => {
    const platformToken = basic('Token:0197a0f1-0000-7000-8000-000000000000', 'platform-secret');
    const wrong = [basic('alice', 'wrong'), basic('mallory', 'correct horse battery'), `Bearer ${token}x`, `Digest ${token}`];
    for (const header of [undefined, platformToken, ...wrong]) {
      expect(decideOperator(credentials, header)).toMatchObject({ allowed: false, status: 401 });
    }
  });

  it('given only users, when a bearer token is sent, then it is refused', () => {
    const usersOnly = parseOperatorCredentials(undefined, `alice:${digest('pw')}`);
    expect(decideOperator(usersOnly, `Bearer ${token}`)).toMatchObject({ allowed: false });
  });
});
