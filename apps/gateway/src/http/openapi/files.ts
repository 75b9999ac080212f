import { resolve } from 'node:path';

/** Where `npm run openapi` writes the document and /docs serves it from: the repository's openapi/ folder. */
const OPENAPI_DIRECTORY = resolve(__dirname, '..', '..', '..', '..', '..', 'openapi');
export const OPENAPI_JSON_FILE = resolve(OPENAPI_DIRECTORY, 'corridor-openapi.json');
export const OPENAPI_YAML_FILE = resolve(OPENAPI_DIRECTORY, 'corridor-openapi.yaml');
