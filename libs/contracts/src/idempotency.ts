import { createHash } from 'node:crypto';
import { DomainError } from './errors';
import type { Actor } from './messages';

// What an Idempotency-Key means, in one place for the gateway and every service (decision 0028).
//
// Scope: a key belongs to the actor that sent it. Every API token of a platform is one actor (the
// platform); each agent is an actor of its own. The gateway's record of a key and every id a
// service derives from it are per scope, so an agent's key can never name the platform's resource
// (or another agent's, of another customer), whatever the two chose as keys.
//
// Same request: a create whose key names a resource that already exists answers that resource when
// the request is the same one again (a retry after a lost answer), and a 409 when it is not. "The
// same" is the gateway's request fingerprint, which the resource keeps from the request that made it.

/** The namespace an Idempotency-Key lives in: the platform's own, or one agent's of that platform. */
export type IdempotencyScope = { platformId: string; agentId?: string };

/** The scope of a request's key: an agent acts in its own; a platform token (or the system) in the platform's. */
export const idempotencyScopeOf = (context: { platformId: string; actor: Actor }): IdempotencyScope =>
  context.actor.kind === 'agent' ? { platformId: context.platformId, agentId: context.actor.agentId } : { platformId: context.platformId };

/** The scope as one string, for keys of stores (the gateway's Redis record). Never equal for two scopes. */
export const idempotencyScopeKey = (scope: IdempotencyScope): string =>
  scope.agentId === undefined ? `${scope.platformId}:platform` : `${scope.platformId}:agent:${scope.agentId}`;

// Key order in the JSON must not matter, so objects are serialized with sorted keys; members whose
// value is undefined are left out, as JSON.stringify leaves them out.
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

/** Two requests are "the same" when method, path and body agree (headers, such as a wallet stamp, are not part of it). */
export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method}\n${path}\n${canonical(body)}`)
    .digest('hex');

export const idempotencyConflict = (resourceId: string): DomainError =>
  new DomainError(
    'CONFLICT',
    'conflict',
    `This Idempotency-Key was already used with a different request: it created ${resourceId}. Use a new key for a new request, or send ` +
      `the first request again unchanged.`,
    { field: 'Idempotency-Key', resourceId },
  );

/**
 * For a create whose id names a resource that already exists: returns when the request is the one
 * that made it (a retry: decide nothing, answer what exists), throws a 409 when it is another.
 * A request without a fingerprint carried no Idempotency-Key, so its id was fresh and cannot name an
 * existing resource: that is a 409 too. A resource made before fingerprints were kept (none stored)
 * is answered as a retry, as it was then; its id is reachable only from its own actor's scope.
 */
export const requireSameRequest = (stored: string | undefined, incoming: string | undefined, resourceId: string): void => {
  if (incoming === undefined || (stored !== undefined && stored !== incoming)) throw idempotencyConflict(resourceId);
};
