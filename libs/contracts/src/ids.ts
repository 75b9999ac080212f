import { v5 as uuidv5, v7 as uuidv7, validate as isUuid } from 'uuid';

// Resource ids are `<Type>:<uuid v7>`; v7 sorts by creation time, which keyset paging relies on.
export const newId = (type: string): string => `${type}:${uuidv7()}`;

/** Namespace of ids derived from Idempotency-Keys (uuid v5). */
const REQUEST_ID_NAMESPACE = '4f0c8b6e-6c1d-4c52-9a43-2f0a4d7c9e11';

/**
 * The id of the resource a create makes: derived from (platform, operation, Idempotency-Key) when
 * the request has a key, so every retry of it names the same resource; a fresh v7 otherwise. Lists
 * page by (createdAt, id), so a derived id sorts as well as a v7 one.
 */
export const idForRequest = (type: string, platformId: string, operation: string, idempotencyKey: string | undefined): string =>
  idempotencyKey === undefined || idempotencyKey === '' ? newId(type) : `${type}:${uuidv5(`${platformId}\n${operation}\n${idempotencyKey}`, REQUEST_ID_NAMESPACE)}`;

export const isIdOf = (type: string, value: unknown): value is string =>
  typeof value === 'string' &&
  value.startsWith(`${type}:`) &&
  isUuid(value.slice(type.length + 1));

export const newUuid = (): string => uuidv7();
