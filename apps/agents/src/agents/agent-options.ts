export const AGENT_OPTIONS = 'AGENT_OPTIONS';

export type AgentOptions = {
  /** The service's PostgreSQL schema (hand-written SQL names it). */
  schema: string;
  deviceCodeTtlSeconds: number;
  executionSweepSeconds: number;
};
