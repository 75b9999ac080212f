import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// Every regular expression the code of apps/ and libs/ can run, read from the source with the
// TypeScript parser (not grepped), so that a ReDoS checker can judge each one:
// - regular expression literals;
// - `new RegExp(…)` / `RegExp(…)` whose source folds to a constant (string literals, templates and
//   `+` over constants of the same file);
// - string members named `pattern` (JSON-schema patterns of the reference, run with new RegExp).
// A RegExp built from something that does not fold is listed as dynamic: the caller must account
// for each one (say where its sources come from and why they are linear).

export type FoundRegex = { file: string; line: number; source: string; flags: string; kind: 'literal' | 'constructor' | 'pattern-member' };
export type DynamicRegex = { file: string; line: number; text: string };
export type RegexInventory = { found: FoundRegex[]; dynamic: DynamicRegex[] };

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'migrations', 'var']);

const sourceFiles = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? [] : sourceFiles(path);
    // Specs build hostile inputs and their own matchers; only code a service runs is inventoried.
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

/** The string constants of a file (`const NAME = 'text'` or a template of other constants), by name. */
const constantsOf = (file: ts.SourceFile): Map<string, string> => {
  const constants = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.isVariableDeclarationList(node.parent)) {
      if (node.parent.flags & ts.NodeFlags.Const) {
        const value = fold(node.initializer, constants);
        if (value !== undefined) constants.set(node.name.text, value);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return constants;
};

/** The constant text of an expression, or undefined when it depends on anything but constants. */
const fold = (node: ts.Expression, constants: ReadonlyMap<string, string>): string | undefined => {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return fold(node.expression, constants);
  if (ts.isIdentifier(node)) return constants.get(node.text);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [left, right] = [fold(node.left, constants), fold(node.right, constants)];
    return left === undefined || right === undefined ? undefined : left + right;
  }
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const value = fold(span.expression, constants);
      if (value === undefined) return undefined;
      text += value + span.literal.text;
    }
    return text;
  }
  return undefined;
};

const inventoryOfFile = (path: string, root: string, inventory: RegexInventory): void => {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const constants = constantsOf(file);
  const at = (node: ts.Node) => ({ file: relative(root, path), line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1 });
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const text = node.getText(file);
      const end = text.lastIndexOf('/');
      inventory.found.push({ ...at(node), source: text.slice(1, end), flags: text.slice(end + 1), kind: 'literal' });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp'
    ) {
      const [sourceArgument, flagsArgument] = node.arguments ?? [];
      const source = sourceArgument ? fold(sourceArgument, constants) : '';
      const flags = flagsArgument ? fold(flagsArgument, constants) : '';
      if (source === undefined || flags === undefined) inventory.dynamic.push({ ...at(node), text: node.getText(file) });
      else inventory.found.push({ ...at(node), source, flags, kind: 'constructor' });
    } else if (
      ts.isPropertyAssignment(node) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
      node.name.text === 'pattern'
    ) {
      const source = fold(node.initializer, constants);
      if (source !== undefined) inventory.found.push({ ...at(node), source, flags: '', kind: 'pattern-member' });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
};

/** The regular expressions of every non-spec TypeScript file under the given directories of root. */
export const regexInventory = (root: string, directories: readonly string[]): RegexInventory => {
  const inventory: RegexInventory = { found: [], dynamic: [] };
  for (const directory of directories) for (const path of sourceFiles(join(root, directory))) inventoryOfFile(path, root, inventory);
  return inventory;
};
