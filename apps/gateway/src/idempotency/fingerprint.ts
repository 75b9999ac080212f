import { createHash } from 'node:crypto';

// Two requests are "the same" when method, path and body agree; key order in the JSON must not
// matter, so the body is serialized with sorted keys first.
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonical(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256').update(`${method}\n${path}\n${canonical(body)}`).digest('hex');
