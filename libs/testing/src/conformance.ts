import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { EXTENSION_MARK, extensionPaths } from './conformance-extensions';
import { applySpecOverrides } from './conformance-overrides';
import { trimTrailing } from '@corridor/contracts';

// Checks real responses against the reference OpenAPI document (with the spec's overrides), so a
// wire-format drift fails a test instead of a client. It also counts which operations were exercised.

type Json = Record<string, unknown>;

export type ObservedResponse = { method: string; path: string; status: number; body: unknown };
export type ConformanceReport = { exercised: string[]; inScopeTotal: number };
export type Conformance = {
  check(response: ObservedResponse): void;
  /** Validates a webhook body against the reference schema of its `type` (the `webhooks:` section). */
  checkWebhook(body: unknown): void;
  report(): ConformanceReport;
  printReport(): void;
};

type Operation = { operationId: string; method: string; template: string; pattern: RegExp; literals: number; extension: boolean };

const API_BASE = '/2025-10-13';
const DOCUMENT_ID = 'grid';
const OUT_OF_SCOPE_PREFIX = '/stablecoin-provider-accounts';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const MAX_LISTED_VIOLATIONS = 25;
const REPO_ROOT = resolve(__dirname, '..', '..', '..');
/** The reference wire contract, vendored in the repository under its Apache-2.0 licence (reference/README.md). */
export const REFERENCE_OPENAPI_FILE = process.env.REFERENCE_OPENAPI ?? resolve(REPO_ROOT, 'reference', 'grid-openapi.yaml');

/** Statuses the reference never declares (413, 415, 503 …) still must carry the error body. */
const genericError = (status: number): Json => ({
  type: 'object',
  required: ['status', 'code', 'message'],
  properties: {
    status: { const: status },
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
    message: { type: 'string' },
    details: { type: 'object' },
  },
});

type Loaded = { document: Json; ajv: Ajv2020; operations: Operation[]; validators: Map<string, ValidateFunction> };
let loaded: Loaded | undefined;

const escapePointer = (segment: string): string => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

const toOperations = (paths: Record<string, Json>): Operation[] =>
  Object.entries(paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const segments = template.split('/').filter(Boolean);
      const source = segments.map((segment) => (segment.startsWith('{') ? '[^/]+' : escapeRegex(segment))).join('/');
      return {
        operationId: String((item[method] as Json).operationId ?? `${method} ${template}`),
        method,
        template,
        pattern: new RegExp(`^/${source}$`),
        literals: segments.filter((segment) => !segment.startsWith('{')).length,
        extension: (item[method] as Json)[EXTENSION_MARK] === true,
      };
    }),
  );

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Loads and compiles once per jest worker: parsing the 750 KB document dominates the cost. */
const load = (): Loaded => {
  if (loaded) return loaded;
  const document = applySpecOverrides(parseYaml(readFileSync(REFERENCE_OPENAPI_FILE, 'utf8'), { maxAliasCount: -1 }) as Json);
  Object.assign(document.paths as Json, extensionPaths);
  // strict:false lets OpenAPI-only keywords (discriminator, example, xml …) pass as annotations.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'float', 'double', 'binary', 'password']) ajv.addFormat(format, true);
  ajv.addSchema(document, DOCUMENT_ID);
  loaded = { document, ajv, operations: toOperations(document.paths as Record<string, Json>), validators: new Map() };
  return loaded;
};

const normalizePath = (path: string): string => {
  const withoutQuery = path.split('?')[0] ?? '';
  const withoutBase = withoutQuery.startsWith(`${API_BASE}/`) ? withoutQuery.slice(API_BASE.length) : withoutQuery;
  return withoutBase.length > 1 ? trimTrailing(withoutBase, '/') : withoutBase;
};

/** The most literal template wins, so /customers/internal-accounts beats /customers/{customerId}. */
const findOperations = (operations: Operation[], path: string): Operation[] =>
  operations
    .filter((operation) => operation.pattern.test(path))
    .sort((left, right) => right.literals - left.literals)
    .filter((operation, _index, sorted) => {
      const best = sorted[0];
      return best !== undefined && operation.template === best.template;
    });

const validatorFor = (state: Loaded, key: string, schema: Json): ValidateFunction => {
  let validate = state.validators.get(key);
  if (!validate) {
    validate = state.ajv.compile(schema);
    state.validators.set(key, validate);
  }
  return validate;
};

const componentRef = (name: string): Json => ({ $ref: `${DOCUMENT_ID}#/components/schemas/${name}` });

const hasComponent = (state: Loaded, name: string): boolean => Boolean(((state.document.components as Json).schemas as Json)[name]);

/** The schema for an error status that is not (or not on this path) declared by the reference. */
const errorValidator = (state: Loaded, status: number): ValidateFunction => {
  const name = `Error${status}`;
  return hasComponent(state, name)
    ? validatorFor(state, `component:${name}`, componentRef(name))
    : validatorFor(state, `generic:${status}`, genericError(status));
};

const describeViolation = (error: ErrorObject): string => {
  const where = error.instancePath || '(body)';
  const params = error.keyword === 'enum' ? ` ${JSON.stringify(error.params.allowedValues)}` : '';
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : params;
  return `  ${where} ${error.message ?? error.keyword}${extra}`;
};

const fail = (title: string, body: unknown, errors: ErrorObject[]): never => {
  const lines = errors.slice(0, MAX_LISTED_VIOLATIONS).map(describeViolation);
  const more = errors.length > MAX_LISTED_VIOLATIONS ? [`  … and ${errors.length - MAX_LISTED_VIOLATIONS} more`] : [];
  throw new Error([title, ...lines, ...more, `body: ${JSON.stringify(body)?.slice(0, 2000)}`].join('\n'));
};

const runValidator = (validate: ValidateFunction, title: string, body: unknown): void => {
  if (!validate(body)) fail(title, body, validate.errors ?? []);
};

const isEmptyBody = (body: unknown): boolean => body === undefined || body === null || body === '';

type Declared = { content?: Record<string, { schema?: Json }> };

const checkDeclared = (state: Loaded, operation: Operation, response: ObservedResponse, declared: Declared): void => {
  const title = `${operation.operationId} ${response.status} does not conform to the reference:`;
  const content = declared.content;
  if (!content) {
    if (!isEmptyBody(response.body)) fail(title, response.body, [emptyBodyError()]);
    return;
  }
  const mediaType = content['application/json'] ? 'application/json' : Object.keys(content)[0];
  if (!mediaType || !content[mediaType]?.schema) return;
  const pointer = ['paths', operation.template, operation.method, 'responses', String(response.status), 'content', mediaType, 'schema']
    .map(escapePointer)
    .join('/');
  const key = `${operation.operationId}:${response.status}`;
  runValidator(validatorFor(state, key, { $ref: `${DOCUMENT_ID}#/${pointer}` }), title, response.body);
};

const emptyBodyError = (): ErrorObject => ({
  instancePath: '',
  schemaPath: '',
  keyword: 'empty',
  params: {},
  message: 'must be empty: the reference declares no body for this status',
});

const checkOperation = (state: Loaded, operation: Operation, response: ObservedResponse): void => {
  const responses = ((state.document.paths as Record<string, Json>)[operation.template]?.[operation.method] as Json).responses as Record<
    string,
    Declared
  >;
  const declared = responses[String(response.status)];
  if (declared) return checkDeclared(state, operation, response, declared);
  if (response.status >= 400) {
    const title = `${operation.operationId} ${response.status} (not declared by the reference) is not an error body:`;
    return runValidator(errorValidator(state, response.status), title, response.body);
  }
  throw new Error(
    `${operation.operationId} answered ${response.status}, which the reference does not declare ` +
      `(declared: ${Object.keys(responses).join(', ')}).`,
  );
};

/** Responses on unknown routes or with an unsupported method are judged as plain error bodies. */
const checkUnmatched = (state: Loaded, matches: Operation[], response: ObservedResponse, path: string): void => {
  const expected = matches.length === 0 ? 404 : 405;
  const method = response.method.toUpperCase();
  if (response.status !== expected) {
    throw new Error(
      matches.length === 0
        ? `No reference operation matches ${method} ${path}, yet it answered ${response.status} (expected 404).`
        : `${method} is not an operation on ${matches[0]?.template}, yet it answered ${response.status} (expected 405).`,
    );
  }
  runValidator(errorValidator(state, expected), `${method} ${path} ${expected} is not a reference error body:`, response.body);
};

/**
 * The reference as the spec amends it, with Corridor's extensions: what responses are judged by here, and where
 * Corridor's published OpenAPI (npm run openapi) takes its response bodies from. A copy, so callers may edit it.
 */
export const loadConformanceDocument = (): Json => structuredClone(load().document);

export const createConformance = (): Conformance => {
  const state = load();
  const exercised = new Set<string>();
  const inScope = state.operations.filter((operation) => !operation.template.startsWith(OUT_OF_SCOPE_PREFIX) && !operation.extension);
  const report = (): ConformanceReport => ({ exercised: [...exercised].sort(), inScopeTotal: inScope.length });
  return {
    check: (response) => {
      const path = normalizePath(response.path);
      const matches = findOperations(state.operations, path);
      const operation = matches.find((candidate) => candidate.method === response.method.toLowerCase());
      if (!operation) return checkUnmatched(state, matches, response, path);
      checkOperation(state, operation, response);
      if (inScope.includes(operation)) exercised.add(operation.operationId);
    },
    checkWebhook: (body) => {
      const type = (body as { type?: unknown } | null)?.type;
      const pointer = typeof type === 'string' ? webhookSchemaPointers(state).get(type) : undefined;
      if (!pointer) throw new Error(`Webhook type ${JSON.stringify(type)} is not one the reference's webhooks declare.`);
      runValidator(
        validatorFor(state, `webhook:${pointer}`, { $ref: `${DOCUMENT_ID}#${pointer}` }),
        `${String(type)} webhook does not conform to the reference:`,
        body,
      );
    },
    report,
    printReport: () => {
      const { exercised: ids, inScopeTotal } = report();
      console.log(`conformance: ${ids.length} of ${inScopeTotal} in-scope operations exercised: ${ids.join(', ')}`);
    },
  };
};

let webhookPointers: Map<string, string> | undefined;

/** WebhookType → JSON pointer of the request-body schema of the reference webhook that carries it. */
const webhookSchemaPointers = (state: Loaded): Map<string, string> => {
  if (webhookPointers) return webhookPointers;
  const schemas = (state.document.components as Json).schemas as Record<string, Json>;
  const pointers = new Map<string, string>();
  for (const [key, item] of Object.entries((state.document.webhooks ?? {}) as Record<string, Json>)) {
    const schema = (((item.post as Json).requestBody as Json).content as Record<string, { schema: { $ref: string } }>)['application/json']!
      .schema;
    const name = schema.$ref.slice('#/components/schemas/'.length);
    for (const part of (schemas[name]?.allOf ?? []) as Json[]) {
      const typeSchema = (part.properties as Record<string, { enum?: string[] }> | undefined)?.['type'];
      for (const type of typeSchema?.enum ?? []) {
        pointers.set(
          type,
          ['', 'webhooks', key, 'post', 'requestBody', 'content', 'application/json', 'schema'].map(escapePointer).join('/'),
        );
      }
    }
  }
  webhookPointers = pointers;
  return pointers;
};
