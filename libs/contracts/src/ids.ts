import { v5 as uuidv5, v7 as uuidv7, validate as isUuid } from 'uuid';
import type { IdempotencyScope } from './idempotency';

// Resource ids are `<Type>:<uuid v7>`; v7 sorts by creation time, which keyset paging relies on.
export const newId = (type: string): string => `${type}:${uuidv7()}`;

/** Namespace of ids derived from Idempotency-Keys (uuid v5). */
const REQUEST_ID_NAMESPACE = '4f0c8b6e-6c1d-4c52-9a43-2f0a4d7c9e11';

/**
 * The id of the resource a create makes: derived from (scope, operation, Idempotency-Key) when the
 * request has a key, so every retry of it names the same resource; a fresh v7 otherwise. The scope
 * is the actor's (idempotency.ts): a platform's derivation is the one it always was, (platform,
 * operation, key); an agent's adds the agent, so two actors never derive the same id from one key
 * (decision 0028). Lists page by (createdAt, id), so a derived id sorts as well as a v7 one.
 */
export const idForRequest = (type: string, scope: IdempotencyScope, operation: string, idempotencyKey: string | undefined): string => {
  if (idempotencyKey === undefined || idempotencyKey === '') return newId(type);
  // Keys are printable ASCII without line breaks, so the agent's line cannot be forged by a key.
  const actor = scope.agentId === undefined ? '' : `agent:${scope.agentId}\n`;
  return `${type}:${uuidv5(`${scope.platformId}\n${actor}${operation}\n${idempotencyKey}`, REQUEST_ID_NAMESPACE)}`;
};

export const isIdOf = (type: string, value: unknown): value is string =>
  typeof value === 'string' && value.startsWith(`${type}:`) && isUuid(value.slice(type.length + 1));

export const newUuid = (): string => uuidv7();
