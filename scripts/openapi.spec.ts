import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { REFERENCE_OPENAPI_FILE, loadConformanceDocument } from '@corridor/testing';
import { EXTENSION_MARK, EXTENSION_TAG } from '../apps/gateway/src/http/openapi/operation';
import { operationsOf } from '../apps/gateway/src/http/openapi/document';
import { buildOpenApiArtifacts, type OpenApiArtifacts } from './openapi-artifacts';

// Pins down that Corridor's published OpenAPI is the reference's API for every in-scope operation
// (operationId, method, path, success statuses, the headers it reads), that every response has a
// body schema, that Corridor's additions are marked, and that the committed files are current.

type Json = Record<string, unknown>;
type Row = {
  operationId: string;
  route: string;
  reference: string;
  corridor: string;
  result: 'matched' | 'departure' | 'differs' | 'missing';
};

const OUT_OF_SCOPE_PREFIX = '/stablecoin-provider-accounts';
const HEADERS_OF_NOTE = ['idempotency-key', 'grid-wallet-signature', 'request-id'];

const successStatuses = (operation: Json | undefined): string =>
  Object.keys((operation?.responses ?? {}) as Json)
    .filter((status) => status.startsWith('2'))
    .sort()
    .join(',');

const headerNames = (document: Json, operation: Json): string[] =>
  ((operation.parameters ?? []) as Json[])
    .map((parameter) => (parameter.$ref ? resolvePointer(document, String(parameter.$ref)) : parameter))
    .filter((parameter) => parameter.in === 'header')
    .map((parameter) => String(parameter.name).toLowerCase());

const resolvePointer = (document: Json, ref: string): Json =>
  ref
    .slice(2)
    .split('/')
    .reduce<Json>((node, segment) => node[segment] as Json, document);

let artifacts: OpenApiArtifacts;
let rows: Row[];

beforeAll(async () => {
  artifacts = await buildOpenApiArtifacts();
  const reference = parseYaml(readFileSync(REFERENCE_OPENAPI_FILE, 'utf8'), { maxAliasCount: -1 }) as Json;
  // The spec's recorded departures (conformance-overrides: a 202 signed retry on POST /cards and the transfer-outs).
  const amended = new Map(operationsOf(loadConformanceDocument()).map(({ operation }) => [operation.operationId, operation]));
  const published = new Map(operationsOf(artifacts.document).map((entry) => [entry.operation.operationId, entry]));
  rows = operationsOf(reference)
    .filter(({ path }) => !path.startsWith(OUT_OF_SCOPE_PREFIX))
    .map(({ path, method, operation }) => {
      const ours = published.get(operation.operationId);
      const row = {
        operationId: String(operation.operationId),
        route: `${method.toUpperCase()} ${path}`,
        reference: successStatuses(operation),
        corridor: successStatuses(ours?.operation),
      };
      if (!ours || ours.path !== path || ours.method !== method) return { ...row, result: 'missing' as const };
      if (row.corridor === row.reference) return { ...row, result: 'matched' as const };
      return {
        ...row,
        result: row.corridor === successStatuses(amended.get(operation.operationId)) ? ('departure' as const) : ('differs' as const),
      };
    });
  const counts = ['matched', 'departure', 'differs', 'missing'].map(
    (result) => `${result} ${rows.filter((row) => row.result === result).length}`,
  );
  const table = rows.map(
    (row) => `${row.result.padEnd(9)} ${row.operationId.padEnd(36)} ${row.route.padEnd(58)} ${row.reference.padEnd(8)} ${row.corridor}`,
  );
  console.log(
    [
      `reference operations in scope: ${rows.length} (${counts.join(', ')})`,
      `${'result'.padEnd(9)} ${'operationId'.padEnd(36)} ${'route'.padEnd(58)} ${'ref 2xx'.padEnd(8)} corridor 2xx`,
      ...table,
    ].join('\n'),
  );
});

describe('the published OpenAPI against the reference', () => {
  it('has every in-scope reference operation, with its operationId, method, path and success statuses', () => {
    expect(rows.filter((row) => row.result === 'missing' || row.result === 'differs')).toEqual([]);
    // The only departures are the recorded ones (decision 0020).
    expect(
      rows
        .filter((row) => row.result === 'departure')
        .map((row) => row.operationId)
        .sort(),
    ).toEqual(['agentCreateTransferOut', 'createCard', 'createTransferOut']);
  });

  it('declares the Idempotency-Key, Grid-Wallet-Signature and Request-Id headers wherever the reference does', () => {
    const reference = parseYaml(readFileSync(REFERENCE_OPENAPI_FILE, 'utf8'), { maxAliasCount: -1 }) as Json;
    const published = new Map(operationsOf(artifacts.document).map(({ operation }) => [operation.operationId, operation]));
    const missing = operationsOf(reference)
      .filter(({ path }) => !path.startsWith(OUT_OF_SCOPE_PREFIX))
      .flatMap(({ operation }) => {
        const ours = published.get(operation.operationId);
        const has = ours ? headerNames(artifacts.document, ours) : [];
        return headerNames(reference, operation)
          .filter((name) => HEADERS_OF_NOTE.includes(name) && !has.includes(name))
          .map((name) => `${String(operation.operationId)}: ${name}`);
      });
    expect(missing).toEqual([]);
  });

  it('gives every response with a body a schema, every POST an Idempotency-Key, and every operation the error body', () => {
    const gaps = operationsOf(artifacts.document).flatMap(({ method, path, operation }) => {
      const responses = operation.responses as Record<string, { content?: Record<string, { schema?: Json }> }>;
      const withoutSchema = Object.entries(responses)
        .filter(([status, response]) => status !== '204' && !response.content?.['application/json']?.schema)
        .map(([status]) => `${method} ${path} ${status}: no body schema`);
      const idempotency =
        method === 'post' && !headerNames(artifacts.document, operation).includes('idempotency-key')
          ? [`${method} ${path}: no Idempotency-Key`]
          : [];
      const errors = Object.keys(responses).some((status) => status === 'default') ? [] : [`${method} ${path}: no error body`];
      return [...withoutSchema, ...idempotency, ...errors];
    });
    expect(gaps).toEqual([]);
  });

  it('lists every operation the reference lacks under the extension tag, marked', () => {
    const referenceIds = new Set(rows.map((row) => row.operationId));
    const unmarked = operationsOf(artifacts.document)
      .filter(({ operation }) => !referenceIds.has(String(operation.operationId)))
      .filter(({ operation }) => operation[EXTENSION_MARK] !== true || JSON.stringify(operation.tags) !== JSON.stringify([EXTENSION_TAG]))
      .map(({ method, path }) => `${method} ${path}`);
    expect(unmarked).toEqual([]);
  });

  it('is the document and client types committed in openapi/ (run npm run openapi after changing a route or DTO)', () => {
    const stale = Object.entries(artifacts.files)
      .filter(([file, text]) => readFileSync(file, 'utf8') !== text)
      .map(([file]) => relative(process.cwd(), file));
    expect(stale).toEqual([]);
  });
});
