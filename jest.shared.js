// What every jest run shares: the SWC transform, the @corridor/* paths and reflect-metadata.
const swc = JSON.parse(require('fs').readFileSync(__dirname + '/.swcrc', 'utf8'));
delete swc.$schema;

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: {
    '^@corridor/(blob-store|contracts|event-store|messaging|telemetry|testing)$': '<rootDir>/libs/$1/src/index.ts',
  },
  setupFiles: ['reflect-metadata'],
};
