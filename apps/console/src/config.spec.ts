// Pins down what the console reads from its environment: a credential is required, the port is checked, and the defaults.
import { loadConfig } from './config';

const token = 'a'.repeat(24);

describe('console config', () => {
  it('listens on 127.0.0.1:9190 unless told otherwise', () =>
    expect(loadConfig({ CONSOLE_TOKEN: token, CONSOLE_HEALTH_URLS: 'payments=http://p/health' })).toMatchObject({
      port: 9190,
      host: '127.0.0.1',
      health: { payments: 'http://p/health' },
    }));

  it('prefers CONSOLE_DATABASE_URL', () =>
    expect(loadConfig({ CONSOLE_TOKEN: token, CONSOLE_DATABASE_URL: 'postgres://console@db/corridor' }).databaseUrl).toBe(
      'postgres://console@db/corridor',
    ));

  it('refuses to start without a credential or with a bad port', () => {
    expect(() => loadConfig({})).toThrow(/CONSOLE_TOKEN|CONSOLE_USERS/);
    expect(() => loadConfig({ CONSOLE_TOKEN: token, CONSOLE_PORT: '70000' })).toThrow('CONSOLE_PORT must be a port number, not "70000".');
  });
});
