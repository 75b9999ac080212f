// The code-health figures of issue 26, measured the same way before and after a change:
//   npm run metrics            (a table)
//   npm run metrics -- --json  (one object)
// Production code is apps/ and libs/ without specs; tooling is tests/, scripts/, soak/ and bench/.
// Generated files (openapi/) are left out.
// Shared test suites (libs' *.contract.ts and *-contract.ts: one describe block of its, shipped in a lib
// so that every adapter runs them) are test code, not production functions: their functions over 70
// lines are counted and listed on their own line, beside the production count, never dropped.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as ts from 'typescript';

const LONG_LINE = 140;
const LONG_FUNCTION = 70;

type FunctionSize = { file: string; name: string; lines: number };

const trackedTypeScript = (): string[] =>
  execFileSync('git', ['ls-files', 'apps', 'libs', 'tests', 'scripts', 'soak', 'bench'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => file.endsWith('.ts'));

const isSpec = (file: string): boolean => /\.spec\.ts$/.test(file);
const isProduction = (file: string): boolean => /^(apps|libs)\//.test(file) && !isSpec(file);
const isSharedSuite = (file: string): boolean => /[.-]contract\.ts$/.test(file);

const functionName = (node: ts.Node): string => {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText();
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
};

const isFunctionLike = (node: ts.Node): boolean =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node);

const functionSizes = (file: string, text: string): FunctionSize[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sizes: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push({ file, name: functionName(node), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
};

const MONEY_PATTERNS = [/\\d\{1,16\}/, /\bMINOR_UNITS\s*=/, /\bfunction parseAmount\b|\bconst parseAmount\b/];

const measure = () => {
  const files = trackedTypeScript();
  let longLines = 0;
  let moneyParsers = 0;
  let asNeverInSpecs = 0;
  let bareBigIntInApps = 0;
  const longFunctions: FunctionSize[] = [];
  const longSuiteFunctions: FunctionSize[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    longLines += lines.filter((line) => line.length > LONG_LINE).length;
    if (isSpec(file)) asNeverInSpecs += (text.match(/\bas never\b/g) ?? []).length;
    if (!isProduction(file)) continue;
    moneyParsers += lines.filter((line) => MONEY_PATTERNS.some((pattern) => pattern.test(line))).length;
    if (file.startsWith('apps/')) bareBigIntInApps += (text.match(/\bBigInt\(/g) ?? []).length;
    const long = functionSizes(file, text).filter((size) => size.lines > LONG_FUNCTION);
    (isSharedSuite(file) ? longSuiteFunctions : longFunctions).push(...long);
  }
  return { files: files.length, longLines, longFunctions, longSuiteFunctions, moneyParsers, asNeverInSpecs, bareBigIntInApps };
};

const printSizes = (sizes: FunctionSize[]): void => {
  for (const size of [...sizes].sort((a, b) => b.lines - a.lines)) {
    console.log(`  ${String(size.lines).padStart(4)}  ${size.file}  ${size.name}`);
  }
};

const main = (): void => {
  const figures = measure();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(figures));
    return;
  }
  console.log(`TypeScript files read:                      ${figures.files}`);
  console.log(`lines over ${LONG_LINE} characters:               ${figures.longLines}`);
  console.log(`production functions over ${LONG_FUNCTION} lines:      ${figures.longFunctions.length}`);
  printSizes(figures.longFunctions);
  console.log(`shared test suite functions over ${LONG_FUNCTION} lines: ${figures.longSuiteFunctions.length}`);
  printSizes(figures.longSuiteFunctions);
  console.log(`money regex/parser copies in production:    ${figures.moneyParsers}`);
  console.log(`bare BigInt( in apps/:                      ${figures.bareBigIntInApps}`);
  console.log(`'as never' in specs:                        ${figures.asNeverInSpecs}`);
};

main();
