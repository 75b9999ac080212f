const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/tests/**/*.e2e.spec.ts'],
  testTimeout: 60000,
  maxWorkers: 1,
  globalSetup: undefined,
  globalTeardown: '<rootDir>/tests/support/conformance-report.ts',
};
