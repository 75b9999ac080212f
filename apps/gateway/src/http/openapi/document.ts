import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { createLogger } from '@corridor/messaging';
import { AppModule } from '../../app.module';
import { API_VERSION, loadConfig } from '../../config';
import { GatewayMetrics } from '../gateway-metrics';
import { RouteTable } from '../route-table';
import { EXTENSION_MARK, EXTENSION_TAG, PUBLIC_MARK } from './operation';

// Corridor's OpenAPI document: the routes, operationIds, parameters, statuses and headers come from
// the controllers and DTOs; the request and response bodies of a reference operation are the
// reference's (as the spec amends it), the schemas the conformance and bad-input suites hold the
// gateway to. Nest renders a class-validator DTO without its discriminated unions, which a
// generated client needs (decision 0032); the DTOs still describe the extensions' bodies.

type Json = Record<string, unknown>;
type Operation = Json & { operationId?: string; responses?: Record<string, Json>; parameters?: Json[]; security?: Json[] };
type Located = { path: string; method: string; operation: Operation };

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const SCHEMA_REF = '#/components/schemas/';
const REQUEST_BODY_REF = '#/components/requestBodies/';
const INPUT_SUFFIX = 'Input';
const IDEMPOTENCY_KEY_REF = { $ref: '#/components/parameters/IdempotencyKey' };
const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
/** Nest's names for the security schemes of @ApiBasicAuth/@ApiBearerAuth → the reference's. */
const SECURITY_NAMES: Record<string, string> = { basic: 'BasicAuth', bearer: 'AgentAuth' };

/** The gateway's routes as Nest describes them, from a documentation-only app: no NATS, Redis or blob store is reached. */
export const describeRoutes = async (): Promise<OpenAPIObject> => {
  // preview: Nest resolves the module graph without instantiating providers or running lifecycle hooks.
  const module = AppModule.register(loadConfig({}), {
    routes: new RouteTable(),
    logger: createLogger('gateway-openapi', { level: 'silent' }),
    metrics: new GatewayMetrics(),
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { preview: true, logger: false });
  try {
    return SwaggerModule.createDocument(app, new DocumentBuilder().build(), { ignoreGlobalPrefix: true });
  } finally {
    await app.close();
  }
};

export const operationsOf = (document: Json): Located[] =>
  Object.entries((document.paths ?? {}) as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] as Operation })),
  );

const errorBody: Json = {
  type: 'object',
  description: 'Every error Corridor answers has this body; `code` is a stable SCREAMING_SNAKE identifier.',
  required: ['status', 'code', 'message'],
  properties: {
    status: { type: 'integer', description: 'The HTTP status' },
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
    message: { type: 'string' },
    details: { type: 'object', additionalProperties: true },
  },
};

const sharedComponents = {
  parameters: {
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Any POST may carry one (1 to 255 printable ASCII characters). The first outcome under a key is answered again to every repeat ' +
        'from the same caller for 24 hours; the same key with another request is a 409.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    },
  },
  headers: {
    RequestId: { description: 'The id of this request in Corridor’s logs, on every response.', schema: { type: 'string' } },
  },
};

const withRequestId = (response: Json): Json => ({
  ...response,
  headers: { ...(response.headers as Json | undefined), ...REQUEST_ID_HEADER },
});

/** The statuses the route declares, with the reference's bodies for them; then the reference's errors, then any other error. */
const completeResponses = (declared: Record<string, Json>, reference: Record<string, Json>): Record<string, Json> => {
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(declared)) {
    const fromReference = reference[status];
    responses[status] = withRequestId(
      fromReference
        ? { ...response, description: fromReference.description ?? response.description, ...pick(fromReference, 'content') }
        : response,
    );
  }
  for (const [status, response] of Object.entries(reference)) {
    if (Number(status) >= 400 && !responses[status]) responses[status] = withRequestId(response);
  }
  responses.default = withRequestId({
    description: 'Any other error',
    content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}Error` } } },
  });
  return responses;
};

const pick = (source: Json, key: string): Json => (source[key] === undefined ? {} : { [key]: source[key] });

/** Header parameters by their canonical spelling: a route's @Headers('idempotency-key') and the shared parameter are one. */
const completeParameters = (method: string, parameters: Json[] = []): Json[] => {
  const seen = new Set<string>();
  const kept = parameters.filter((parameter) => {
    if (parameter.in !== 'header') return true;
    const name = String(parameter.name).toLowerCase();
    if (seen.has(name) || (method === 'post' && name === 'idempotency-key')) return false;
    seen.add(name);
    return true;
  });
  // Nest lists a @Headers() parameter under its lower-case name and the decorator's after it; the described one wins.
  const described = kept.map((parameter) =>
    parameter.in === 'header'
      ? (parameters.find(
          (other) =>
            other.in === 'header' && String(other.name).toLowerCase() === String(parameter.name).toLowerCase() && other.description,
        ) ?? parameter)
      : parameter,
  );
  return method === 'post' ? [...described, IDEMPOTENCY_KEY_REF] : described;
};

/** A reference body named in components.requestBodies is written out in place, so only schemas are shared. */
const requestBodyOf = (body: Json, requestBodies: Record<string, Json>): Json => {
  const ref = typeof body.$ref === 'string' ? body.$ref : undefined;
  if (!ref) return body;
  const named = requestBodies[ref.slice(REQUEST_BODY_REF.length)];
  if (!named) throw new Error(`The reference has no request body ${ref}.`);
  return named;
};

const completeOperation = ({ method, operation }: Located, reference: Operation | undefined, requestBodies: Record<string, Json>): void => {
  // The reference's tags group a generated client's calls (one class per tag), so the reference's are kept.
  if (operation[EXTENSION_MARK] === true) operation.tags = [EXTENSION_TAG];
  else if (reference?.tags) operation.tags = reference.tags;
  operation.security = operation[PUBLIC_MARK] === true ? [] : (operation.security ?? []).map(renameSchemes);
  delete operation[PUBLIC_MARK];
  operation.parameters = completeParameters(method, operation.parameters);
  operation.responses = completeResponses(operation.responses ?? {}, reference?.responses ?? {});
  if (reference?.requestBody) operation.requestBody = requestBodyOf(reference.requestBody as Json, requestBodies);
  if (reference && !operation.summary) operation.summary = reference.summary;
  if (reference && !operation.description && reference.description) operation.description = reference.description;
};

const renameSchemes = (requirement: Json): Json =>
  Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [SECURITY_NAMES[name] ?? name, scopes]));

/** Copies every schema the document names, transitively: a DTO schema only a reference body replaced is left out. */
const copyReachableSchemas = (target: Record<string, Json>, roots: unknown[], source: Record<string, Json>): void => {
  const pending = roots.flatMap(schemaNamesIn);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (target[name]) continue;
    const schema = source[name];
    if (!schema) throw new Error(`The document names a schema ${name} that neither a DTO nor the reference defines.`);
    target[name] = schema;
    pending.push(...schemaNamesIn(schema));
  }
};

/**
 * Most request DTOs carry the name of the reference schema they implement. One still in the document (a body the
 * reference does not define) keeps its own shape under `<name>Input`, and the reference's schema keeps its name.
 */
const renameCollidingSchemas = (document: Json, reference: Record<string, Json>): void => {
  const components = document.components as Json | undefined;
  const own = (components?.schemas ?? {}) as Record<string, Json>;
  const colliding = new Set(Object.keys(own).filter((name) => reference[name]));
  const rename = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const name = node.startsWith(SCHEMA_REF) ? node.slice(SCHEMA_REF.length) : undefined;
      return name !== undefined && colliding.has(name) ? `${SCHEMA_REF}${name}${INPUT_SUFFIX}` : node;
    }
    if (Array.isArray(node)) return node.map(rename);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, rename(value)]));
  };
  document.paths = rename(document.paths);
  const renamed = Object.entries(own).map(([name, schema]) => [
    colliding.has(name) ? `${name}${INPUT_SUFFIX}` : name,
    withoutNullable(rename(schema)),
  ]);
  document.components = { ...components, schemas: Object.fromEntries(renamed) };
};

/** Nest writes OpenAPI 3.0's `nullable: true`; the published document is 3.1, where null is a type. */
const withoutNullable = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutNullable);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withoutNullable(value)])) as Json;
  if (nullable !== true) return rest;
  if (typeof rest.type !== 'string') return { anyOf: [rest, { type: 'null' }] };
  return { ...rest, type: [rest.type, 'null'], ...(Array.isArray(rest.enum) ? { enum: [...(rest.enum as unknown[]), null] } : {}) };
};

const schemaNamesIn = (node: unknown): string[] => {
  if (typeof node === 'string') return node.startsWith(SCHEMA_REF) ? [node.slice(SCHEMA_REF.length)] : [];
  if (typeof node !== 'object' || node === null) return [];
  return Object.values(node).flatMap(schemaNamesIn);
};

const tagsOf = (paths: Located[], reference: Json): Json[] => {
  const used = new Set(paths.flatMap(({ operation }) => (operation.tags as string[] | undefined) ?? []));
  const described = ((reference.tags ?? []) as Json[]).filter((tag) => used.has(String(tag.name)));
  const rest = [...used].filter((name) => !described.some((tag) => tag.name === name)).sort();
  return [
    ...described,
    ...rest.map((name) => (name === EXTENSION_TAG ? { name, description: 'Operations Corridor adds to the reference API.' } : { name })),
  ];
};

/** The published document: Nest's description of the routes, completed with the reference's response bodies and webhooks. */
export const completeWithReference = (routes: OpenAPIObject, reference: Json): Json => {
  const document = structuredClone(routes) as unknown as Json;
  const referenceComponents = reference.components as Json;
  renameCollidingSchemas(document, referenceComponents.schemas as Record<string, Json>);
  const referenceOperations = new Map(operationsOf(reference).map(({ operation }) => [operation.operationId, operation]));
  const located = operationsOf(document);
  const requestBodies = (referenceComponents.requestBodies ?? {}) as Record<string, Json>;
  for (const entry of located) completeOperation(entry, referenceOperations.get(entry.operation.operationId), requestBodies);
  const available = {
    ...(referenceComponents.schemas as Record<string, Json>),
    ...((document.components as Json | undefined)?.schemas as Record<string, Json> | undefined),
    Error: errorBody,
  };
  const schemas: Record<string, Json> = {};
  copyReachableSchemas(schemas, [document.paths, reference.webhooks], available);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Corridor API',
      version: API_VERSION,
      description:
        'Self-hostable payments platform API, wire-compatible with the Grid API reference (same paths and operationIds). ' +
        `Operations tagged "${EXTENSION_TAG}" are Corridor's additions. Authenticate with HTTP Basic (an API token's id and secret), ` +
        'or, on /agents/me routes, with an agent’s bearer token.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: `/${API_VERSION}`, description: 'Relative to the gateway’s address' }],
    security: [{ BasicAuth: [] }, { AgentAuth: [] }],
    tags: tagsOf(located, reference),
    paths: document.paths,
    webhooks: reference.webhooks,
    components: { securitySchemes: referenceComponents.securitySchemes, ...sharedComponents, schemas: sortByKey(schemas) },
  };
};

const sortByKey = (record: Record<string, Json>): Record<string, Json> =>
  Object.fromEntries(Object.entries(record).sort(([left], [right]) => left.localeCompare(right)));
