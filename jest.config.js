// Three kinds of spec under apps, libs, scripts and soak, as three jest projects:
// - unit: every *.spec.ts that is neither a whole-repo check nor an integration spec. Pure code, no
//   PostgreSQL, NATS or Redis, no global setup; `npm test` runs these alone, in seconds.
// - checks: the whole-repo checks (every regular expression through recheck, the published OpenAPI
//   against the reference, the NATS grants against every subject the code uses, the app list against
//   every deployment file): pure too, but they parse the whole tree and take most of the time
//   (`npm run test:checks`).
// - int: *.int.spec.ts, against the machine's real PostgreSQL, NATS and Redis (`npm run test:int`).
//   Its global setup names the run so the per-file databases it creates are dropped at the end, and
//   jest runs it only when an integration spec is selected.
// `npx jest <file>` picks the right project by the file's name. The end-to-end suites
// (tests/**/*.e2e.spec.ts) start every service and run serially through jest.e2e.config.js.
// scripts/test-all.sh runs all four.
const shared = require('./jest.shared.js');

const folders = '<rootDir>/{apps,libs,scripts,soak}/**';
const checks = ['apps', 'nats-config', 'openapi', 'redos'];

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: [`${folders}/*.spec.ts`],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$', `^<rootDir>/scripts/(${checks.join('|')})\\.spec\\.ts$`],
    },
    {
      ...shared,
      displayName: 'checks',
      testMatch: checks.map((name) => `<rootDir>/scripts/${name}.spec.ts`),
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
