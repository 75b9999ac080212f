import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WebhookType } from '@corridor/contracts';

// A webhook kind maps an integration event to at most one webhook. Each kind is one file in
// ./kinds exporting `kind`; the registry loads every file there, so adding a kind (cards,
// agents, verifications, bulk upload, invitations, payments) is a one-file change.

/** The integration event envelope every service publishes (see integrationEvent in libs/event-store). */
export type IntegrationEventEnvelope = {
  /** From the subject `events.<service>.<Aggregate>.<EventType>`. */
  service: string;
  aggregate: string;
  eventId: string;
  type: string;
  streamId: string;
  streamPosition: number;
  occurredAt: string;
  platformId: string;
  correlationId?: string;
  data: Record<string, unknown>;
};

/**
 * How the webhook's `data` is obtained: asked of the owning service over NATS (the resource as of
 * the event's stream position), or given inline.
 */
export type RenderSource = { subject: string; request: Record<string, unknown> } | { inline: Record<string, unknown> };

export type PlannedWebhook = { type: WebhookType; resourceId: string; render: RenderSource };

export type WebhookKind = {
  /** The reference's webhook key (operationId family), e.g. `internal-account-status`. */
  name: string;
  types: readonly WebhookType[];
  plan(event: IntegrationEventEnvelope): PlannedWebhook | null;
  /** The retry policy: false for webhooks the reference never retries (TEST, in-flow approval). */
  retried(type: WebhookType): boolean;
};

const KIND_FILE = /^[a-z0-9-]+\.(ts|js)$/;

const isKind = (value: unknown): value is WebhookKind => {
  const candidate = value as Partial<WebhookKind> | undefined;
  return (
    typeof candidate?.name === 'string' &&
    Array.isArray(candidate.types) &&
    typeof candidate.plan === 'function' &&
    typeof candidate.retried === 'function'
  );
};

/** Loads every kind file of a folder; a file without a valid `kind` export or two kinds claiming one type is a programmer error. */
export const loadKinds = (directory: string = join(__dirname, 'kinds')): WebhookKind[] => {
  const files = readdirSync(directory)
    .filter((file) => KIND_FILE.test(file) && !file.endsWith('.d.ts'))
    .sort();
  const kinds = files.map((file) => {
    const loaded = (require(join(directory, file)) as { kind?: unknown }).kind;
    if (!isKind(loaded)) throw new Error(`${file} in ${directory} must export \`kind\`: { name, types, plan, retried }.`);
    return loaded;
  });
  const owners = new Map<WebhookType, string>();
  for (const kind of kinds) {
    for (const type of kind.types) {
      const owner = owners.get(type);
      if (owner) throw new Error(`Webhook type ${type} is claimed by both ${owner} and ${kind.name}.`);
      owners.set(type, kind.name);
    }
  }
  return kinds;
};

export type Planned = PlannedWebhook & { retried: boolean };

/** The first kind that claims the event decides its webhook; most events have none. */
export const planWebhook = (kinds: readonly WebhookKind[], event: IntegrationEventEnvelope): Planned | null => {
  for (const kind of kinds) {
    const planned = kind.plan(event);
    if (!planned) continue;
    if (!kind.types.includes(planned.type)) throw new Error(`Kind ${kind.name} planned ${planned.type}, which it does not declare.`);
    return { ...planned, retried: kind.retried(planned.type) };
  }
  return null;
};
