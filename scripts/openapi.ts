import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { buildOpenApiArtifacts } from './openapi-artifacts';

// npm run openapi: writes Corridor's OpenAPI document (JSON and YAML) and the TypeScript types of a
// client generated from it, from the gateway's controllers without starting anything.

const main = async (): Promise<void> => {
  const { files } = await buildOpenApiArtifacts();
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    console.log(`wrote ${relative(process.cwd(), file)} (${Buffer.byteLength(text)} bytes)`);
  }
};

void main().catch((error: unknown) => {
  console.error('The OpenAPI document could not be written:', error);
  process.exit(1);
});
