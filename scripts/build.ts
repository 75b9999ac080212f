// Compiles what the production image runs into dist/: the apps, the libraries they import and the
// operator scripts (tsc with tsconfig.build.json: decorator metadata as Nest needs it, source maps
// for stack traces), then the files read at run time (SQL migrations), then one package.json per
// @corridor/* library under dist/node_modules so that Node's own resolution finds them from the
// compiled apps: no path-rewriting step and no require hook at run time (decision 0035).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..');
const dist = join(root, process.argv[2] ?? 'dist');
const RUNTIME_FILE = /\.sql$/;

const walk = (directory: string): string[] =>
  readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

const compile = (): void => {
  rmSync(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', dist], {
    stdio: 'inherit',
  });
};

// The OpenAPI document the gateway serves at /docs; dist/openapi is where its compiled files.js looks.
const OPENAPI_FILES = ['openapi/corridor-openapi.json', 'openapi/corridor-openapi.yaml'].map((file) => join(root, file));

const copyRuntimeFiles = (): number => {
  const files = [...walk(join(root, 'apps')).filter((file) => RUNTIME_FILE.test(file)), ...OPENAPI_FILES];
  for (const file of files) {
    const target = join(dist, relative(root, file));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(file, target);
  }
  return files.length;
};

/** tsconfig's `paths` (@corridor/x → libs/x/src/index.ts) as packages whose main is the compiled index. */
const linkLibraries = (): string[] => {
  const paths = (
    JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } }
  ).compilerOptions.paths;
  const linked: string[] = [];
  for (const [name, sources] of Object.entries(paths)) {
    const main = join(dist, (sources[0] ?? '').replace(/\.ts$/, '.js'));
    if (!statSync(main, { throwIfNoEntry: false })) continue; // a test-only library (@corridor/testing) is not built
    const packageDirectory = join(dist, 'node_modules', name);
    mkdirSync(packageDirectory, { recursive: true });
    writeFileSync(
      join(packageDirectory, 'package.json'),
      `${JSON.stringify({ name, private: true, main: relative(packageDirectory, main) }, null, 2)}\n`,
    );
    linked.push(name);
  }
  return linked;
};

const started = Date.now();
compile();
const copied = copyRuntimeFiles();
const linked = linkLibraries();
console.log(
  `build: ${relative(root, dist)}/ in ${((Date.now() - started) / 1000).toFixed(1)} s; ${copied} SQL and OpenAPI files; ` +
    `libraries ${linked.join(', ')}`,
);
