import type { OpenAPIObject } from '@nestjs/swagger';
import { completeWithReference } from './document';

// Pins down how Nest's description of the routes is completed with the reference: bodies by
// operationId, the gateway-wide headers, the extension tag, public routes, DTO names the reference
// also uses, and OpenAPI 3.1 nulls.

// The assertions walk an OpenAPI document, whose nodes are whatever the document says.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const reference: Json = {
  tags: [{ name: 'Widgets', description: 'The reference’s widgets' }],
  paths: {
    '/widgets': {
      post: {
        operationId: 'createWidget',
        tags: ['Widgets'],
        summary: 'Create a widget',
        requestBody: { $ref: '#/components/requestBodies/WidgetCreate' },
        responses: {
          '201': { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Widget' } } } },
          '400': { description: 'Bad request', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error400' } } } },
        },
      },
    },
  },
  webhooks: {},
  components: {
    securitySchemes: { BasicAuth: { type: 'http', scheme: 'basic' } },
    requestBodies: {
      WidgetCreate: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WidgetCreateRequest' } } } },
    },
    schemas: {
      Widget: { type: 'object', properties: { part: { $ref: '#/components/schemas/Part' } } },
      Part: { type: 'string' },
      WidgetCreateRequest: { type: 'object', properties: { name: { type: 'string' } } },
      Error400: { type: 'object' },
    },
  },
};

const routes = (): OpenAPIObject =>
  ({
    openapi: '3.0.0',
    info: { title: '', version: '' },
    paths: {
      '/widgets': {
        post: {
          operationId: 'createWidget',
          tags: ['WidgetsController'],
          security: [{ basic: [] }],
          parameters: [{ name: 'idempotency-key', in: 'header', required: false, schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/WidgetCreateRequest' } } },
          },
          responses: { '201': { description: 'Success' } },
        },
      },
      '/widgets/count': {
        get: {
          operationId: 'countWidgets',
          'x-corridor-extension': true,
          'x-corridor-public': true,
          tags: ['Widgets'],
          parameters: [],
          responses: {
            '200': { description: 'Success', content: { 'application/json': { schema: { $ref: '#/components/schemas/WidgetCount' } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        WidgetCreateRequest: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } },
        WidgetCount: {
          type: 'object',
          properties: { count: { type: 'integer', nullable: true }, kind: { $ref: '#/components/schemas/WidgetCreateRequest' } },
        },
      },
    },
  }) as unknown as OpenAPIObject;

describe('completeWithReference', () => {
  const document = completeWithReference(routes(), reference) as Json;
  const create = document.paths['/widgets'].post;
  const count = document.paths['/widgets/count'].get;

  it('gives a reference operation the reference’s bodies, errors, summary and tags, and the generic error for the rest', () => {
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Widget' });
    expect(create.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error400' });
    expect(create.responses.default.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WidgetCreateRequest' });
    expect([create.summary, create.tags]).toEqual(['Create a widget', ['Widgets']]);
  });

  it('keeps the statuses the route declares: a status the reference lacks gets no body from it', () => {
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', 'default']);
    expect(count.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WidgetCount' });
  });

  it('puts one Idempotency-Key on a POST, replacing a route’s own header of that name, and X-Request-Id on every response', () => {
    expect(create.parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }]);
    expect(count.parameters).toEqual([]);
    expect(create.responses['201'].headers).toEqual({ 'X-Request-Id': { $ref: '#/components/headers/RequestId' } });
  });

  it('lists an extension under its own tag, a public route without security, and the reference’s scheme names', () => {
    expect([count.tags, count.security, count['x-corridor-public']]).toEqual([['Corridor Extensions'], [], undefined]);
    expect(create.security).toEqual([{ BasicAuth: [] }]);
    expect(document.tags.map((tag: Json) => tag.name)).toEqual(['Widgets', 'Corridor Extensions']);
  });

  it('keeps a DTO the reference also names under <name>Input, with 3.1 nulls, and only the schemas the document names', () => {
    const { schemas } = document.components;
    expect(schemas.WidgetCreateRequest).toEqual(reference.components.schemas.WidgetCreateRequest);
    expect(schemas.WidgetCreateRequestInput.properties.name.maxLength).toBe(10);
    expect(schemas.WidgetCount.properties).toEqual({
      count: { type: ['integer', 'null'] },
      kind: { $ref: '#/components/schemas/WidgetCreateRequestInput' },
    });
    expect(Object.keys(schemas).sort()).toEqual([
      'Error',
      'Error400',
      'Part',
      'Widget',
      'WidgetCount',
      'WidgetCreateRequest',
      'WidgetCreateRequestInput',
    ]);
  });

  it('publishes 3.1 with the version as the server', () => {
    expect([document.openapi, document.servers[0].url]).toEqual(['3.1.0', '/2025-10-13']);
  });
});
