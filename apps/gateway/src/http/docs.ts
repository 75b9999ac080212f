import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { API_VERSION } from '../config';
import { OPENAPI_JSON_FILE, OPENAPI_YAML_FILE } from './openapi/files';

// The OpenAPI document is the one `npm run openapi` writes from the controllers and DTOs (completed
// with the reference's response bodies, which the gateway does not read at run time); a test fails
// when the committed file no longer matches the code (scripts/openapi.spec.ts). Swagger UI's files are served
// here from swagger-ui-dist (a dependency of @nestjs/swagger) by a fixed list of names, instead of
// through @fastify/static: that plugin pulls in an ESM-only module jest cannot load, and a fixed
// list cannot be walked out of the directory.
const UI_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Corridor API ${API_VERSION}</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/docs/json', dom_id: '#swagger-ui' });</script>
</body></html>`;

export function setupDocs(app: NestFastifyApplication): void {
  // Read once at start: a missing file is a broken build, not something to answer per request.
  const json = readFileSync(OPENAPI_JSON_FILE, 'utf8');
  const yaml = readFileSync(OPENAPI_YAML_FILE, 'utf8');
  const assets = dirname(require.resolve('swagger-ui-dist/package.json', { paths: [dirname(require.resolve('@nestjs/swagger'))] }));
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  fastify.get('/docs/json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(json));
  fastify.get('/docs/yaml', async (_request, reply) => reply.type('text/yaml; charset=utf-8').send(yaml));
  fastify.get<{ Params: { asset: string } }>('/docs/:asset', async (request, reply) => {
    const type = Object.prototype.hasOwnProperty.call(UI_ASSETS, request.params.asset) ? UI_ASSETS[request.params.asset] : undefined;
    if (!type)
      return reply
        .status(404)
        .send({ status: 404, code: 'REFERENCE_NOT_FOUND', message: `There is no documentation asset ${request.params.asset}.` });
    return reply.type(type).send(await readFile(join(assets, request.params.asset)));
  });
}
