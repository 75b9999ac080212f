// Schema names end up inside SQL text (identifiers cannot be bound as parameters), so only plain
// lower-case identifiers are accepted.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

export const assertSchemaName = (schema: string): string => {
  if (!SCHEMA_NAME.test(schema) || schema.length > 63) {
    throw new Error(`Invalid schema name "${schema}": it must match ${SCHEMA_NAME} and be at most 63 characters.`);
  }
  return schema;
};

/** A table name a projection declares (derived tables), held to the same plain-identifier rule. */
export const assertTableName = (table: string): string => {
  if (!SCHEMA_NAME.test(table) || table.length > 63) {
    throw new Error(`Invalid table name "${table}": it must match ${SCHEMA_NAME} and be at most 63 characters.`);
  }
  return table;
};

/** A stable 31-bit key for pg_advisory_lock, derived from a text name. */
export const advisoryKey = (name: string): number => {
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash & 0x7fffffff;
};
