import nx from '@nx/eslint-plugin';

// Module boundaries are enforced, not decorative: each tag may depend only on the tags listed
// here, and libs/testing is reachable from spec files alone.

const tsFiles = ['**/*.ts'];
const specFiles = ['**/*.spec.ts', 'tests/**/*.ts'];

const serviceScopes = ['gateway', 'platform', 'customers', 'accounts', 'payments', 'cards', 'agents', 'webhooks'];

/** Production code: testing helpers are not allowed. */
const productionConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:data-access', 'type:telemetry'] },
  { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:contracts', 'type:telemetry'] },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
  // The request context and tracing every process shares (libs/telemetry): below the data-access libs.
  { sourceTag: 'type:telemetry', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:data-access', 'type:telemetry'] },
  // A service reaches another only over NATS, so no scope may import another service's scope.
  ...serviceScopes.map((scope) => ({
    sourceTag: `scope:${scope}`,
    onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'],
  })),
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  // tests/, soak/, bench/ and scripts/ drive the whole platform from outside: they may use every lib,
  // testing included, and reach into apps only through the paths each folder's allow list names.
  {
    sourceTag: 'type:tooling',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:data-access', 'type:telemetry', 'type:testing', 'type:tooling'],
  },
  { sourceTag: 'scope:tooling', onlyDependOnLibsWithTags: ['scope:shared', 'scope:tooling'] },
];

/** Spec files may additionally use libs/testing (contracts stays dependency-free even in specs). */
const specConstraints = productionConstraints.map((constraint) =>
  constraint.sourceTag === 'type:app' || constraint.sourceTag === 'type:data-access'
    ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing'] }
    : constraint,
);

const boundaries = (depConstraints, allow = []) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow,
    depConstraints,
  },
];

/**
 * The operators' console (decision 0038) shows what the operator scripts read: it reuses the trace
 * reader (scripts/trace) and the registry of stores and deciders (scripts/services.ts) by path, as
 * those are not a library. Only the console may, and only those.
 */
const consoleFiles = ['apps/console/**/*.ts'];
const consoleAllow = ['../../../scripts/trace/*', '../../../scripts/services'];

/**
 * Where the tooling folders reach past the libs, by path. scripts/ holds the operators' registry of
 * deciders and projections (services.ts) and renders the gateway's OpenAPI document; bench/ drives
 * the ledger's own writer to measure it without NATS; soak/ starts the gateway with its production
 * limits; soak/ and bench/ start the stack the e2e suites start (tests/support), and bench/ shows the
 * scripts' progress bar. The e2e suites rebuild read models with the scripts' registry and type a
 * client with the generated OpenAPI types. Nothing else is reached by path.
 */
const toolingAllow = {
  tests: ['../scripts/services', '../openapi/corridor-api'],
  soak: ['../tests/support/*', '../apps/gateway/src/config'],
  bench: ['../tests/support/*', '../scripts/progress', '../apps/accounts/src/**'],
  // scripts/trace-demo.ts starts a throwaway stack the way the end-to-end suites do.
  scripts: ['../apps/**', '../tests/support/*'],
};

const ioModules = ['pg', 'nats', 'ioredis', 'fs', 'net', 'http', 'node:fs', 'node:net', 'node:http'];

export default [
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**', 'tmp/**', 'var/**', '.nx/**', '**/*.js', '**/*.mjs'],
  },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: tsFiles,
    languageOptions: {
      // Nest resolves constructor injection from decorator metadata, so an import used only as a
      // constructor parameter type is a runtime value; with these flags the type-import rule knows that.
      parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true },
    },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(productionConstraints),
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: specFiles,
    rules: { '@nx/enforce-module-boundaries': boundaries(specConstraints) },
  },
  { files: consoleFiles, rules: { '@nx/enforce-module-boundaries': boundaries(productionConstraints, consoleAllow) } },
  {
    files: consoleFiles.map((pattern) => pattern.replace(/\.ts$/, '.spec.ts')),
    rules: { '@nx/enforce-module-boundaries': boundaries(specConstraints, consoleAllow) },
  },
  ...Object.entries(toolingAllow).map(([folder, allow]) => ({
    files: [`${folder}/**/*.ts`],
    rules: { '@nx/enforce-module-boundaries': boundaries(specConstraints, allow) },
  })),
  {
    // Lines within 140 characters (STYLE; Prettier's printWidth). Prettier cannot split comments, SQL inside template
    // literals, long messages or test names; this keeps apps/ and libs/ at 0 lines over 140. Generated files are exempt.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.generated.ts'],
    rules: { 'max-len': ['error', { code: 140, ignoreUrls: true, ignorePattern: '^import ' }] },
  },
  {
    // Contracts are plain data and pure functions shared by every process: no I/O, no framework.
    files: ['libs/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ioModules.map((name) => ({ name, message: 'libs/contracts must not do I/O.' })),
          patterns: [
            { group: ['@nestjs/*'], message: 'libs/contracts must not depend on Nest.' },
            { group: ['@mikro-orm/*'], message: 'libs/contracts must not depend on the ORM.' },
          ],
        },
      ],
    },
  },
];
