// The end-to-end suites: every service started as a process, one suite at a time.
const shared = require('./jest.shared.js');

module.exports = {
  ...shared,
  testMatch: ['<rootDir>/tests/**/*.e2e.spec.ts'],
  testTimeout: 60000,
  maxWorkers: 1,
  globalTeardown: '<rootDir>/tests/support/conformance-report.ts',
};
