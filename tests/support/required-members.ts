import { readFileSync } from 'node:fs';
import { REFERENCE_OPENAPI_FILE } from '@corridor/testing';
import { parse as parseYaml } from 'yaml';

// Reads the reference OpenAPI file for the write operations that take a JSON body and, given a
// valid body, lists every member the reference requires in it: top level, and inside every nested
// object the body carries (a oneOf resolved to the variant the body's discriminator names). The
// bad-input suite sends the body without each member in turn.

type Json = Record<string, any>;

export type WriteOperation = { method: string; template: string; schema: Json };
export type RequiredMember = { path: string[]; label: string };

const WRITE_METHODS = ['post', 'put', 'patch'];
const REFERENCE_FILE = REFERENCE_OPENAPI_FILE;
const OUT_OF_SCOPE_PREFIX = '/stablecoin-provider-accounts';
/** Deep enough for personalInfo.address.line1 and supportedCurrencies[].requiredCounterpartyFields[].name. */
const MAX_DEPTH = 4;

let document: Json | undefined;
const loadDocument = (): Json => (document ??= parseYaml(readFileSync(REFERENCE_FILE, 'utf8'), { maxAliasCount: -1 }) as Json);

const deref = (schema: Json | undefined): Json => {
  let current = schema ?? {};
  while (typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: Json, key: string) => node[key], loadDocument());
  }
  return current;
};

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The oneOf/anyOf variant the body is: by the discriminator's mapping, else the one whose const/enum tag matches, else the first whose required members the body has. */
const pickVariant = (schema: Json, body: Json): Json | undefined => {
  const variants: Json[] = schema.oneOf ?? schema.anyOf;
  const discriminator = schema.discriminator as { propertyName: string; mapping?: Record<string, string> } | undefined;
  if (discriminator) {
    const tag = body[discriminator.propertyName];
    const mapped = typeof tag === 'string' ? discriminator.mapping?.[tag] : undefined;
    if (mapped) return deref({ $ref: mapped });
    const byTag = variants.map(deref).find((variant) => {
      const property = deref(flatten(variant).properties[discriminator.propertyName]);
      return property.const === tag || (Array.isArray(property.enum) && property.enum.includes(tag));
    });
    if (byTag) return byTag;
  }
  return variants.map(deref).find((variant) => flatten(variant).required.every((name) => name in body));
};

/** Required names and properties of a schema with its allOf parts merged (a body's variant resolved later). */
const flatten = (raw: Json): { required: string[]; properties: Record<string, Json>; variants?: Json } => {
  const schema = deref(raw);
  const required = new Set<string>(schema.required ?? []);
  const properties: Record<string, Json> = { ...(schema.properties ?? {}) };
  for (const part of schema.allOf ?? []) {
    const merged = flatten(part);
    merged.required.forEach((name) => required.add(name));
    Object.assign(properties, merged.properties);
  }
  return { required: [...required], properties, ...(schema.oneOf || schema.anyOf ? { variants: schema } : {}) };
};

const resolveFor = (raw: Json, body: Json): { required: string[]; properties: Record<string, Json> } => {
  const own = flatten(raw);
  if (!own.variants) return own;
  const variant = pickVariant(own.variants, body);
  if (!variant) return own;
  const chosen = flatten(variant);
  return { required: [...new Set([...own.required, ...chosen.required])], properties: { ...own.properties, ...chosen.properties } };
};

const collect = (raw: Json, body: Json, path: string[], depth: number): RequiredMember[] => {
  const { required, properties } = resolveFor(raw, body);
  const own = required.filter((name) => name in body).map((name) => ({ path: [...path, name], label: [...path, name].join('.') }));
  if (depth >= MAX_DEPTH) return own;
  const nested = Object.entries(body).flatMap(([name, value]) => {
    const property = properties[name];
    if (!property) return [];
    if (isObject(value)) return collect(property, value, [...path, name], depth + 1);
    const items = deref(property).items as Json | undefined;
    if (Array.isArray(value) && items && isObject(value[0])) return collect(items, value[0], [...path, name, '0'], depth + 1);
    return [];
  });
  return [...own, ...nested];
};

/** Every POST/PUT/PATCH of the reference (in scope) whose request body is JSON. */
export const jsonWriteOperations = (): WriteOperation[] =>
  Object.entries(loadDocument().paths as Record<string, Json>)
    .filter(([template]) => !template.startsWith(OUT_OF_SCOPE_PREFIX))
    .flatMap(([template, item]) =>
      WRITE_METHODS.filter((method) => item[method]).flatMap((method) => {
        const schema = deref(item[method].requestBody).content?.['application/json']?.schema as Json | undefined;
        return schema ? [{ method: method.toUpperCase(), template, schema }] : [];
      }),
    );

/** Every operation of the reference (in scope) whose request body is optional: requestBody without required: true. */
export const optionalBodyOperations = (): { method: string; template: string }[] =>
  Object.entries(loadDocument().paths as Record<string, Json>)
    .filter(([template]) => !template.startsWith(OUT_OF_SCOPE_PREFIX))
    .flatMap(([template, item]) =>
      WRITE_METHODS.filter((method) => item[method]?.requestBody && deref(item[method].requestBody).required !== true).map((method) => ({
        method: method.toUpperCase(),
        template,
      })),
    );

/** The members the reference requires in this body, nested ones included, each as a path into it. */
export const requiredMembers = (operation: WriteOperation, body: Json): RequiredMember[] => collect(operation.schema, body, [], 0);

/** A deep copy of the body without the member at path. */
export const without = (body: Json, path: string[]): Json => {
  const copy = structuredClone(body);
  const parent = path.slice(0, -1).reduce((node: any, key) => node[key], copy);
  delete parent[path[path.length - 1]!];
  return copy;
};
