// The end-to-end suites: every service started as a process, one suite at a time (maxWorkers 1:
// jest runs them in band, in its own process). The suites that need only a platform of their own
// share one stack, started by the global setup when a selected suite uses it and stopped by the
// teardown; the others start their own (decision 0050).
const shared = require('./jest.shared.js');

module.exports = {
  ...shared,
  testMatch: ['<rootDir>/tests/**/*.e2e.spec.ts'],
  testTimeout: 60000,
  maxWorkers: 1,
  testSequencer: '<rootDir>/tests/support/e2e-sequencer.js',
  globalSetup: '<rootDir>/tests/support/e2e-global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/e2e-global-teardown.ts',
};
