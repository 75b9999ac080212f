// Two kinds of spec under apps, libs, scripts and soak, as two jest projects:
// - unit: every *.spec.ts that is not an integration spec. Pure code, no PostgreSQL, NATS or Redis,
//   no global setup; `npm test` runs these alone, in seconds.
// - int: *.int.spec.ts, against the machine's real PostgreSQL, NATS and Redis (`npm run test:int`).
//   Its global setup names the run so the per-file databases it creates are dropped at the end, and
//   jest runs it only when an integration spec is selected.
// `npx jest <file>` picks the right project by the file's name. The end-to-end suites
// (tests/**/*.e2e.spec.ts) start every service and run serially through jest.e2e.config.js.
// scripts/test-all.sh runs all three.
const shared = require('./jest.shared.js');

const folders = '<rootDir>/{apps,libs,scripts,soak}/**';

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: [`${folders}/*.spec.ts`],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$'],
    },
    {
      ...shared,
      displayName: 'int',
      testMatch: [`${folders}/*.int.spec.ts`],
      globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
    },
  ],
  testTimeout: 30000,
  maxWorkers: 2,
};
