// Every regular expression that apps/ and libs/ can run is linear: recheck (a maintained ReDoS
// checker that proves a pattern safe by automaton analysis, or finds an attack string) judges each
// one the TypeScript parser finds, and a RegExp built at run time must be accounted for below.
import { join } from 'node:path';
import { checkSync } from 'recheck';
import { regexInventory } from './regex-inventory';

const root = join(__dirname, '..');
const inventory = regexInventory(root, ['apps', 'libs']);

/**
 * RegExps whose source is not a constant, by file: where their sources come from, and a pattern of
 * each shape they build (checked like the others). A new dynamic RegExp fails the test until it is
 * listed here.
 */
const accountedDynamic: Record<string, { why: string; shapes: string[] }> = {
  'apps/accounts/src/external-accounts/fields.ts': {
    why: "the reference's JSON-schema patterns of account-types.generated.ts, each inventoried as a `pattern` member",
    shapes: [],
  },
  'apps/gateway/src/http/route-table.ts': {
    why: 'a route template: escaped literal segments, [^/]+ for each parameter, .* for a final wildcard',
    shapes: ['^/customers/[^/]+/kyc-link/?$', '^/sandbox/cards/[^/]+/simulate/[^/]+/?$', '^/docs/.*/?$'],
  },
  'libs/testing/src/conformance.ts': {
    why: 'a reference path template (test support only): escaped literal segments and [^/]+ for each parameter',
    shapes: ['^/customers/[^/]+/kyc-link$', '^/agents/[^/]+/actions/[^/]+/reject$'],
  },
};

describe('regular expressions of apps/ and libs/', () => {
  it('finds the patterns to check (the inventory works)', () => {
    expect(inventory.found.length).toBeGreaterThan(100);
    expect(inventory.found).toEqual(
      expect.arrayContaining([expect.objectContaining({ file: 'libs/contracts/src/text-patterns.ts', kind: 'literal' })]),
    );
    expect(inventory.found).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'pattern-member' }), expect.objectContaining({ kind: 'constructor' })]),
    );
  });

  it('builds no RegExp from a run-time value that is not accounted for', () => {
    const unaccounted = inventory.dynamic.filter((site) => !(site.file in accountedDynamic));
    expect(unaccounted).toEqual([]);
  });

  it('has no pattern recheck finds vulnerable (or cannot prove safe)', () => {
    const shapes = Object.entries(accountedDynamic).flatMap(([file, { shapes: sources }]) =>
      sources.map((source) => ({ file, line: 0, source, flags: '' })),
    );
    const judged = [...inventory.found, ...shapes].map((regex) => ({
      regex,
      // Bounded repeats ({1,64}) are judged by recheck's fuzzer; a fixed seed makes its verdict the
      // same on every run (a random one once flagged an unchanged pattern on a loaded machine).
      diagnostics: checkSync(regex.source, regex.flags, { timeout: 30_000, randomSeed: 20_251_013 }),
    }));
    const unsafe = judged
      .filter(({ diagnostics }) => diagnostics.status !== 'safe')
      .map(({ regex, diagnostics }) => ({
        at: `${regex.file}:${regex.line}`,
        pattern: `/${regex.source}/${regex.flags}`,
        status: diagnostics.status,
        ...(diagnostics.status === 'vulnerable' ? { complexity: diagnostics.complexity.summary, attack: diagnostics.attack.pattern } : {}),
        ...(diagnostics.status === 'unknown' ? { error: diagnostics.error.kind } : {}),
      }));
    expect(unsafe).toEqual([]);
  }, 120_000);
});
