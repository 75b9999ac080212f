import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConformance } from '@corridor/testing';
import type { StackView } from './stack';

// Every response an end-to-end suite receives is validated against the reference OpenAPI file;
// a body that drifts from the wire contract fails the test that received it.

export type Credentials = { clientId: string; clientSecret: string };
export type Reply<T = any> = { status: number; headers: Headers; body: T; text: string };
export type CallOptions = {
  auth?: Credentials | string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  /** The Content-Type of body or rawBody (default application/json); null sends none. */
  contentType?: string | null;
  headers?: Record<string, string>;
  /** Skips the reference check, for replies the reference cannot describe (e.g. our /health). */
  unchecked?: boolean;
};

export type FilePart = { content: Buffer; name: string; field?: string };
export type FormOptions = { auth: Credentials; fields: Record<string, string>; file?: FilePart; headers?: Record<string, string> };

export const basic = ({ clientId, clientSecret }: Credentials): string =>
  `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;

export const createApi = (stack: StackView, suiteName: string) => {
  const conformance = createConformance();

  const call = async <T = any>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth) headers['authorization'] = typeof options.auth === 'string' ? options.auth : basic(options.auth);
    let payload: string | Buffer | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined && options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await response.text();
    let body: any = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw new Error(`${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (!options.unchecked) conformance.check({ method, path: path.split('?')[0]!, status: response.status, body });
    return { status: response.status, headers: response.headers, body, text };
  };

  /** A multipart/form-data request (an upload), its JSON reply checked against the reference like call's. */
  const form = async <T = any>(method: 'POST' | 'PUT', path: string, options: FormOptions): Promise<Reply<T>> => {
    const body = new FormData();
    for (const [name, value] of Object.entries(options.fields)) body.append(name, value);
    if (options.file) body.append(options.file.field ?? 'file', new Blob([options.file.content]), options.file.name);
    const headers: Record<string, string> = { authorization: basic(options.auth), ...options.headers };
    const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    conformance.check({ method, path: path.split('?')[0]!, status: response.status, body: parsed });
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  /** Saved per suite; the e2e global teardown prints the union over all suites. */
  const saveReport = (): void => {
    const directory = join(__dirname, '../../tmp/conformance');
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `${suiteName}.json`), JSON.stringify(conformance.report()));
  };

  return { call, form, conformance, saveReport };
};

export const withoutVolatile = (customer: Record<string, unknown>) => {
  const { updatedAt: _updatedAt, ...rest } = customer;
  return rest;
};
