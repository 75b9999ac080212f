import { lookup } from 'node:dns/promises';
import { DomainError, ipLiteralOf, refusedWebhookAddressOf, webhookTargetRefusalMessage } from '@corridor/contracts';

/** Every address a host name resolves to (IPv4 and IPv6); rejects when it resolves to none. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const WEBHOOK_TARGETS = 'WEBHOOK_TARGETS';

/**
 * What the platform service needs to check a webhookEndpoint: the deployment's opt-in to private
 * targets and a resolver (a stub in tests).
 */
export type WebhookTargets = { allowPrivate: boolean; resolve: ResolveHost };

/** How long a PATCH /config waits for DNS before refusing the endpoint as unresolvable. */
const RESOLVE_TIMEOUT_MS = 3_000;

export const resolveWithDns: ResolveHost = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${RESOLVE_TIMEOUT_MS} ms`)), RESOLVE_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
    return addresses.map((entry) => entry.address);
  } finally {
    clearTimeout(timer);
  }
};

const refuse = (message: string): DomainError => new DomainError('INVALID_INPUT', 'validation', message, { field: 'webhookEndpoint' });

/**
 * Refuses a webhookEndpoint (of any platform, sandbox or production) whose host is, or resolves
 * to, a private, loopback, link-local, metadata or other special-use address (see
 * specialUseRangeOf), and one whose name does not resolve. The webhooks service checks again at
 * every delivery (the name may later resolve elsewhere); this check tells the platform at once.
 */
export const checkWebhookEndpoint = async (endpoint: string, resolve: ResolveHost): Promise<void> => {
  // The gateway has already checked that this is an http(s) URL.
  const hostname = new URL(endpoint).hostname;
  const literal = ipLiteralOf(hostname);
  let addresses: string[];
  if (literal !== undefined) addresses = [literal];
  else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      throw refuse(
        `webhookEndpoint host ${hostname} does not resolve (${error instanceof Error ? error.message : String(error)}), so Corridor ` +
          `cannot tell whether it is a public address. ` +
          'Configure a host name that resolves in public DNS, then set webhookEndpoint again.',
      );
    }
    if (addresses.length === 0)
      throw refuse(`webhookEndpoint host ${hostname} resolves to no address. Configure a host name that resolves in public DNS.`);
  }
  const refused = refusedWebhookAddressOf(addresses);
  if (refused) throw refuse(webhookTargetRefusalMessage(hostname, refused));
};
