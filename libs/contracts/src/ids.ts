import { v7 as uuidv7, validate as isUuid } from 'uuid';

// Resource ids are `<Type>:<uuid v7>`; v7 sorts by creation time, which keyset paging relies on.
export const newId = (type: string): string => `${type}:${uuidv7()}`;

export const isIdOf = (type: string, value: unknown): value is string =>
  typeof value === 'string' &&
  value.startsWith(`${type}:`) &&
  isUuid(value.slice(type.length + 1));

export const newUuid = (): string => uuidv7();
