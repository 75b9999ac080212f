import type { ConnectionOptions } from 'nats';

// What the shared end-to-end stack's host tells the suites (decision 0050): plain data, passed from
// the jest global setup to every suite in one environment variable. No imports of @corridor/*: the
// global setup loads this file outside jest's module mapping.

/** The environment variable that carries the descriptor, set by tests/support/e2e-global-setup.ts. */
export const SHARED_STACK_ENV = 'CORRIDOR_E2E_SHARED_STACK';
/** The line prefix under which the host prints the descriptor once every app is healthy. */
export const SHARED_STACK_READY = 'shared-stack-ready ';

export type SharedStackDescriptor = {
  baseUrl: string;
  gatewayUrl: string;
  gatewayMetricsUrl: string;
  database: { name: string; url: string };
  subjectPrefix: string;
  env: Record<string, string>;
  bus: { url: string; harness: ConnectionOptions; users: Record<string, { env: Record<string, string>; options: ConnectionOptions }> };
  healthUrls: Record<string, string>;
  /** The host's control endpoint: POST /ensure restarts what stopped answering and answers once the gateway is healthy. */
  controlUrl: string;
};
