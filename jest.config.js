// One jest configuration for the workspace. Unit specs (*.spec.ts) and integration specs
// (*.int.spec.ts) run together; the end-to-end suites (tests/**/*.e2e.spec.ts) start every
// service and run serially through jest.e2e.config.js.
const swc = JSON.parse(require('fs').readFileSync(__dirname + '/.swcrc', 'utf8'));
delete swc.$schema;

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{apps,libs,scripts,soak}/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: {
    '^@corridor/(blob-store|contracts|event-store|messaging|telemetry|testing)$': '<rootDir>/libs/$1/src/index.ts',
  },
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
