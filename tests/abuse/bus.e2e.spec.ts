// Attacks on the internal bus (issue 21 item 3, decision 0025), against the stack's own
// nats-server running the configuration a deployment runs: a client without credentials or with a
// wrong password, a service's credentials used to send a ledger command it has no business
// sending, to read another service's requests or replies, to forge another service's integration
// events, or to read its events through JetStream. Each is written to fail on a bus without
// permissions (the machine's server on 4222, where every one of them succeeds); the legitimate
// flows (the operator creating a platform, a customer's accounts opened from events, payments
// sending a ledger command) run alongside.
import { connect, type ConnectionOptions, ErrorCode, JSONCodec, type NatsConnection, NatsError } from 'nats';
import { eventsStreamName, subjects } from '@corridor/contracts';
import { createApi, type Credentials } from '../support/api';
import { eventually, waitUntil } from '@corridor/testing';
import { type Stack, startStack } from '../support/stack';

let stack: Stack;
let api: ReturnType<typeof createApi>;
const connections: NatsConnection[] = [];
const codec = JSONCodec();

type Violation = { operation: string; subject: string };

/** A connection whose permission violations (the server's -ERR, reported asynchronously) are kept. */
const open = async (options: ConnectionOptions): Promise<{ nc: NatsConnection; violations: Violation[] }> => {
  const nc = await connect({ ...options, reconnect: false });
  connections.push(nc);
  const violations: Violation[] = [];
  void (async () => {
    for await (const status of nc.status()) {
      const context = (status as { permissionContext?: Violation }).permissionContext;
      if (context) violations.push({ operation: context.operation, subject: context.subject });
    }
  })();
  return { nc, violations };
};

const refused = async (violations: Violation[], operation: 'publish' | 'subscription', subject: string): Promise<void> =>
  waitUntil(
    `a ${operation} violation on ${subject}`,
    () => violations.some((v) => v.operation === operation && v.subject === subject),
    10_000,
    () => ` Seen: ${JSON.stringify(violations)}`,
  );

const request = (nc: NatsConnection, subject: string, data: unknown) =>
  nc.request(
    subject,
    codec.encode({
      pattern: subject,
      id: 'abuse',
      data: { context: { platformId: 'p', actor: { kind: 'system', name: 'abuse' }, requestId: 'r', correlationId: 'r' }, data },
    }),
    { timeout: 3_000 },
  );

const prefixed = (subject: string) => `${stack.subjectPrefix}.${subject}`;

beforeAll(async () => {
  stack = await startStack({ env: { DATABASE_POOL_SIZE: '4' } });
  api = createApi(stack, 'abuse-bus');
}, 120_000);

afterAll(async () => {
  // Teardown: the server may already have closed a refused client's connection; nothing is asserted here.
  await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
  await stack?.close();
});

describe('who may connect', () => {
  it('refuses a client without credentials', async () => {
    const attempt = connect({ servers: stack.bus.url, reconnect: false });
    await expect(attempt).rejects.toMatchObject({ code: ErrorCode.AuthorizationViolation });
  });

  it("refuses a service's user name with a wrong password", async () => {
    const attempt = connect({ servers: stack.bus.url, user: 'payments', pass: 'not-the-password', reconnect: false });
    await expect(attempt).rejects.toMatchObject({ code: ErrorCode.AuthorizationViolation });
  });
});

describe('ledger commands', () => {
  const credit = subjects.accounts.ledger.credit;

  it.each(['webhooks', 'gateway', 'customers', 'agents'] as const)(
    "refuses a ledger credit sent with the %s service's credentials",
    async (user) => {
      const { nc, violations } = await open(stack.bus.as(user));
      await expect(
        request(nc, prefixed(credit), { accountId: 'InternalAccount:x', amount: '100', currency: 'USD' }),
      ).rejects.toBeInstanceOf(NatsError);
      await refused(violations, 'publish', prefixed(credit));
    },
  );

  it('lets the payments service send one (the accounts service answers it)', async () => {
    const { nc, violations } = await open(stack.bus.as('payments'));
    // A command the ledger refuses on its merits: what counts is that it reached the ledger.
    const reply = codec.decode((await request(nc, prefixed(credit), {})).data) as { err?: { code?: string } };
    expect(reply.err?.code).toBeDefined();
    expect(violations).toEqual([]);
  });
});

describe("another service's subjects", () => {
  it.each([
    ['webhooks', 'accounts.>'],
    ['gateway', 'accounts.ledger.credit'],
    ['customers', 'payments.>'],
  ] as const)('refuses the %s service a subscription to %s', async (user, subject) => {
    const { nc, violations } = await open(stack.bus.as(user));
    nc.subscribe(prefixed(subject), { callback: () => undefined });
    await refused(violations, 'subscription', prefixed(subject));
  });

  it("refuses a subscription to another user's replies (its inbox)", async () => {
    const { nc, violations } = await open(stack.bus.as('webhooks'));
    nc.subscribe('_INBOX_gateway.>', { callback: () => undefined });
    nc.subscribe('_INBOX.>', { callback: () => undefined });
    await refused(violations, 'subscription', '_INBOX_gateway.>');
    await refused(violations, 'subscription', '_INBOX.>');
  });

  it("refuses a forged integration event of another service, and a consumer on another service's events", async () => {
    const { nc, violations } = await open(stack.bus.as('webhooks'));
    const forged = prefixed('events.accounts.InternalAccount.InternalAccountCredited');
    nc.publish(forged, codec.encode({ eventId: 'forged' }));
    await refused(violations, 'publish', forged);
    const stream = eventsStreamName(stack.subjectPrefix);
    const create = `$JS.API.CONSUMER.CREATE.${stream}.snoop.${prefixed('events.customers.>')}`;
    nc.publish(
      create,
      codec.encode({ stream_name: stream, config: { durable_name: 'snoop', filter_subject: prefixed('events.customers.>') } }),
    );
    await refused(violations, 'publish', create);
    const read = `$JS.API.STREAM.MSG.GET.${stream}`;
    nc.publish(read, codec.encode({ seq: 1 }));
    await refused(violations, 'publish', read);
  });
});

describe('legitimate flows under the same permissions', () => {
  it("opens a new customer's accounts from the customers service's events (JetStream consumers of accounts)", async () => {
    const auth = (await stack.createPlatform()).token as Credentials;
    const created = await api.call('POST', '/customers', {
      auth,
      body: { customerType: 'INDIVIDUAL', fullName: 'Bus Test', currencies: ['USD'] },
    });
    expect(created.status).toBe(201);
    const customerId = created.body.id as string;
    const accounts = await eventually(
      async () =>
        ((await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body.data ??
          []) as unknown[],
      (list) => list.length >= 1,
    );
    expect(accounts.length).toBeGreaterThanOrEqual(1);
  });
});
