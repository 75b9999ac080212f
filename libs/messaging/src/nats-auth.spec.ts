import { parseNatsAuth } from './nats-auth';

describe('parseNatsAuth', () => {
  it('connects without credentials when none are set (a development bus)', () => {
    expect(parseNatsAuth({})).toEqual({});
  });

  it('gives a user its password and an inbox only it may read', () => {
    expect(parseNatsAuth({ NATS_USER: 'accounts', NATS_PASSWORD: 's3cret' })).toEqual({
      user: 'accounts',
      pass: 's3cret',
      inboxPrefix: '_INBOX_accounts',
    });
  });

  it('refuses a user without a password, and a password without a user', () => {
    expect(() => parseNatsAuth({ NATS_USER: 'accounts' })).toThrow('NATS_USER and NATS_PASSWORD go together');
    expect(() => parseNatsAuth({ NATS_PASSWORD: 's3cret' })).toThrow('NATS_USER and NATS_PASSWORD go together');
  });

  it('turns TLS on with the system CAs, a private CA, or a client certificate', () => {
    expect(parseNatsAuth({ NATS_TLS: 'true' }).tls).toEqual({});
    expect(parseNatsAuth({ NATS_TLS_CA: '/etc/nats/ca.pem' }).tls).toEqual({ caFile: '/etc/nats/ca.pem' });
    expect(parseNatsAuth({ NATS_TLS_CERT: '/c.pem', NATS_TLS_KEY: '/k.pem' }).tls).toEqual({ certFile: '/c.pem', keyFile: '/k.pem' });
    expect(() => parseNatsAuth({ NATS_TLS_CERT: '/c.pem' })).toThrow('NATS_TLS_CERT and NATS_TLS_KEY go together');
  });
});
