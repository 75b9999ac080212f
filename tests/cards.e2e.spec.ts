// Cards end to end with every app running: issue (KYC and funding-source refusals, the sandbox
// issuer's 001/002/other suffixes), PATCH through every move and every 409, lists with each
// filter and paging, tenancy 404s, and CARD.* webhooks received, signed and conformant. Every
// response is checked against the reference by the api helper. The 005 delay is tested with a
// controllable clock in apps/cards (card-provisioning.int.spec.ts), not by waiting 30 s here.
import { createApi, type Credentials } from './support/api';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';
import { type Receiver, startReceiver, verifyGridSignature } from './support/webhook-receiver';
import { randomUUID } from 'node:crypto';
import { createPostgresEventStore } from '@corridor/event-store';
import { createConformance, eventually } from '@corridor/testing';

type Card = {
  id: string;
  state: string;
  stateReason: string | null;
  fundingSources: string[];
  platformCardId: string;
  last4: string;
  currency: string;
  cardholderId: string;
};

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformAId: string;
let platformB: Credentials;
let receiver: Receiver;
let publicKey: string;
let holder: { customerId: string; usd: string; eur: string };
let customerCount = 0;

type Account = { id: string; balance: { currency: { code: string } } };

const newCustomer = async (auth: Credentials, currencies: string[]): Promise<{ customerId: string; accounts: Account[] }> => {
  customerCount += 1;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Cara ${customerCount}`, currencies },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body.data as Account[],
    (list) => list.length >= currencies.length,
  );
  return { customerId, accounts };
};

const issue = (auth: Credentials, body: Record<string, unknown>) => api.call('POST', '/cards', { auth, body });
const getCard = async (auth: Credentials, id: string): Promise<Card> => (await api.call('GET', `/cards/${id}`, { auth })).body as Card;
const patch = (auth: Credentials, id: string, body: Record<string, unknown>) => api.call('PATCH', `/cards/${id}`, { auth, body });
const activeCard = async (platformCardId: string, fundingSources = [holder.usd]): Promise<Card> => {
  const created = await issue(platformA, { cardholderId: holder.customerId, platformCardId, form: 'VIRTUAL', fundingSources });
  expect(created.status).toBe(201);
  return eventually(
    () => getCard(platformA, created.body.id),
    (card) => card.state === 'ACTIVE',
  );
};

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'cards');
  const createdA = await stack.createPlatform();
  platformA = createdA.token as Credentials;
  platformAId = createdA.platformId;
  platformB = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  expect((await api.call('PATCH', '/config', { auth: platformA, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
  publicKey = (await api.call('GET', '/webhooks/signing-key', { auth: platformA })).body.publicKey;
  const { customerId, accounts } = await newCustomer(platformA, ['USD', 'EUR']);
  holder = {
    customerId,
    usd: accounts.find((a) => a.balance.currency.code === 'USD')!.id,
    eur: accounts.find((a) => a.balance.currency.code === 'EUR')!.id,
  };
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

describe('issuing', () => {
  it('issues a PENDING_ISSUE card that the sandbox issuer activates at once, with the reference fields', async () => {
    const created = await issue(platformA, {
      cardholderId: holder.customerId,
      platformCardId: 'emp-0042',
      form: 'VIRTUAL',
      fundingSources: [holder.usd],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: 'PENDING_ISSUE',
      stateReason: null,
      form: 'VIRTUAL',
      brand: 'VISA',
      last4: '4042',
      currency: 'USD',
      fundingSources: [holder.usd],
      platformCardId: 'emp-0042',
    });
    const card = await eventually(
      () => getCard(platformA, created.body.id),
      (current) => current.state === 'ACTIVE',
    );
    expect(card.stateReason).toBeNull();
  });

  it('001 stays PENDING_ISSUE; 002 is CLOSED ISSUER_REJECTED', async () => {
    const pending = await issue(platformA, {
      cardholderId: holder.customerId,
      platformCardId: 'x-001',
      form: 'VIRTUAL',
      fundingSources: [holder.usd],
    });
    const rejected = await issue(platformA, {
      cardholderId: holder.customerId,
      platformCardId: 'x-002',
      form: 'VIRTUAL',
      fundingSources: [holder.usd],
    });
    expect([pending.status, rejected.status]).toEqual([201, 201]);
    const closed = await eventually(
      () => getCard(platformA, rejected.body.id),
      (card) => card.state === 'CLOSED',
    );
    expect(closed.stateReason).toBe('ISSUER_REJECTED');
    expect((await getCard(platformA, pending.body.id)).state).toBe('PENDING_ISSUE');
    expect((await patch(platformA, pending.body.id, { state: 'FROZEN' })).body.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('refuses a cardholder whose KYC is not APPROVED (400), and an unknown or other platform’s cardholder (404)', async () => {
    const business = await api.call('POST', '/customers', {
      auth: platformA,
      body: { customerType: 'BUSINESS', businessInfo: { legalName: 'Cardless Inc', taxId: '12-3456789', incorporatedOn: '2015-06-01' } },
    });
    const refused = await issue(platformA, { cardholderId: business.body.id, form: 'VIRTUAL', fundingSources: [holder.usd] });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('CARDHOLDER_KYC_NOT_APPROVED');
    const other = await issue(platformB, { cardholderId: holder.customerId, form: 'VIRTUAL', fundingSources: [holder.usd] });
    expect(other.status).toBe(404);
    expect(
      (
        await issue(platformA, {
          cardholderId: 'Customer:0196f1a0-0000-7000-8000-000000000001',
          form: 'VIRTUAL',
          fundingSources: [holder.usd],
        })
      ).status,
    ).toBe(404);
  });

  it('refuses ineligible funding sources with FUNDING_SOURCE_INELIGIBLE naming the source', async () => {
    const someoneElse = await newCustomer(platformA, ['USD']);
    const cases: [string[], string][] = [
      [[holder.eur], 'CURRENCY_NOT_CARD_ELIGIBLE'],
      [[someoneElse.accounts[0]!.id], 'NOT_OWNED_BY_CARDHOLDER'],
      [['InternalAccount:0196f1a0-0000-7000-8000-000000000001'], 'NOT_FOUND'],
      [[holder.usd, holder.usd], 'DUPLICATE'],
    ];
    for (const [fundingSources, reason] of cases) {
      const reply = await issue(platformA, { cardholderId: holder.customerId, form: 'VIRTUAL', fundingSources });
      expect({ status: reply.status, code: reply.body.code, reason: reply.body.details?.reason }).toEqual({
        status: 400,
        code: 'FUNDING_SOURCE_INELIGIBLE',
        reason,
      });
    }
  });

  it('refuses a platformCardId used before on the platform (409), but not on another platform', async () => {
    await activeCard('dup-card-1');
    const again = await issue(platformA, {
      cardholderId: holder.customerId,
      platformCardId: 'dup-card-1',
      form: 'VIRTUAL',
      fundingSources: [holder.usd],
    });
    expect(again.status).toBe(409);
  });
});

describe('PATCH /cards/{id}', () => {
  it('freezes, unfreezes and closes, with every 409', async () => {
    const card = await activeCard('moves-1');
    expect((await patch(platformA, card.id, { state: 'FROZEN' })).body.state).toBe('FROZEN');
    expect((await patch(platformA, card.id, { state: 'ACTIVE' })).body.state).toBe('ACTIVE');
    const closed = await patch(platformA, card.id, { state: 'CLOSED' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ state: 'CLOSED', stateReason: 'CLOSED_BY_PLATFORM', fundingSources: [] });
    expect((await patch(platformA, card.id, { state: 'CLOSED' })).body).toMatchObject({ status: 409, code: 'CARD_ALREADY_CLOSED' });
    expect((await patch(platformA, card.id, { state: 'ACTIVE' })).body).toMatchObject({ status: 409, code: 'CARD_NOT_MUTABLE' });
    expect((await patch(platformA, card.id, { fundingSources: [holder.usd] })).body).toMatchObject({
      status: 409,
      code: 'CARD_NOT_MUTABLE',
    });
  });

  it('replaces the funding sources; refuses an empty body, CLOSED with sources, and ineligible sources', async () => {
    const card = await activeCard('sources-1');
    const replaced = await patch(platformA, card.id, { fundingSources: [holder.usd] });
    expect(replaced.status).toBe(200);
    expect((await patch(platformA, card.id, {})).status).toBe(400);
    expect((await patch(platformA, card.id, { state: 'CLOSED', fundingSources: [holder.usd] })).status).toBe(400);
    expect((await patch(platformA, card.id, { fundingSources: [] })).status).toBe(400);
    expect((await patch(platformA, card.id, { fundingSources: [holder.eur] })).body.code).toBe('FUNDING_SOURCE_INELIGIBLE');
  });
});

describe('lists and tenancy', () => {
  it('filters by cardholder, account, platformCardId and state, and pages both ways', async () => {
    const other = await newCustomer(platformA, ['USD']);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const created = await issue(platformA, {
        cardholderId: other.customerId,
        platformCardId: `list-${index}-x`,
        form: 'VIRTUAL',
        fundingSources: [other.accounts[0]!.id],
      });
      ids.push(created.body.id);
    }
    const walk = async (query: string): Promise<string[]> => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const reply = await api.call('GET', `/cards?limit=2&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          auth: platformA,
        });
        expect(reply.status).toBe(200);
        seen.push(...reply.body.data.map((card: Card) => card.id));
        cursor = reply.body.nextCursor;
      } while (cursor);
      return seen;
    };
    expect(await walk(`cardholderId=${encodeURIComponent(other.customerId)}&sortOrder=asc`)).toEqual(ids);
    expect(await walk(`cardholderId=${encodeURIComponent(other.customerId)}`)).toEqual([...ids].reverse());
    expect(await walk(`accountId=${encodeURIComponent(other.accounts[0]!.id)}`)).toEqual([...ids].reverse());
    expect(await walk('platformCardId=list-1-x')).toEqual([ids[1]]);
    await eventually(
      () => walk(`cardholderId=${encodeURIComponent(other.customerId)}&state=ACTIVE`),
      (list) => list.length === 3,
    );
    expect(await walk(`cardholderId=${encodeURIComponent(other.customerId)}&state=FROZEN`)).toEqual([]);
    expect((await api.call('GET', '/cards?state=MAYBE', { auth: platformA })).status).toBe(400);
    expect((await api.call('GET', '/cards', { auth: platformB })).body.data).toEqual([]);
  });

  it('answers 404 for another platform’s card everywhere', async () => {
    const card = await activeCard('tenancy-1');
    expect((await api.call('GET', `/cards/${card.id}`, { auth: platformB })).status).toBe(404);
    expect((await patch(platformB, card.id, { state: 'FROZEN' })).status).toBe(404);
    expect((await api.call('GET', '/cards/not-a-card', { auth: platformA })).status).toBe(404);
  });
});

describe('webhooks', () => {
  it('sends CARD.STATE_CHANGE on every state change (activation, freeze, close), signed and conformant; an unchanged source list sends nothing', async () => {
    const card = await activeCard('hooks-1');
    await patch(platformA, card.id, { state: 'FROZEN' });
    await patch(platformA, card.id, { fundingSources: [holder.usd] });
    await patch(platformA, card.id, { state: 'CLOSED' });
    const forCard = () => receiver.received.filter((item) => item.body.data?.id === card.id);
    await receiver.waitFor(() => forCard().filter((item) => item.body.type === 'CARD.STATE_CHANGE').length >= 3, 'three CARD.STATE_CHANGE');
    const states = forCard()
      .filter((item) => item.body.type === 'CARD.STATE_CHANGE')
      .map((item) => item.body.data.state);
    expect(states).toEqual(['ACTIVE', 'FROZEN', 'CLOSED']);
    expect(forCard().filter((item) => item.body.type === 'CARD.FUNDING_SOURCE_CHANGE')).toEqual([]);
    const conformance = createConformance();
    for (const item of forCard()) {
      expect(verifyGridSignature(item.rawBody, item.signature, publicKey)).toBe(true);
      conformance.checkWebhook(item.body);
    }
  });
});

describe('CARD.FUNDING_SOURCE_CHANGE', () => {
  // Every source of a card is an ACTIVE account of the cardholder in the card's currency, and
  // accounts opens exactly one account per owner and currency (its id is derived from both), so
  // through the API alone a USD card's only possible source list is [the holder's USD account]:
  // a PATCH can never change it and this webhook cannot be caused. A second account in the same
  // currency is what a later account kind (an Embedded Wallet beside the internal account) brings.
  // Here it is opened the way the accounts service records one — an InternalAccountOpened event
  // written into its store, as poison-projection.e2e.spec.ts writes one — and everything after is
  // the real path: accounts projects it, PATCH /cards asks accounts about it over NATS, cards
  // records the replacement, and the webhook is delivered signed.
  it('replaces the sources with a second USD account of the holder and delivers the full card after the change, signed and conformant', async () => {
    const secondUsd = `InternalAccount:${randomUUID()}`;
    const store = createPostgresEventStore({ connectionString: stack.database.url, schema: 'accounts' });
    const requestId = randomUUID();
    try {
      await store.appendToStream(
        secondUsd,
        [
          {
            type: 'InternalAccountOpened',
            data: {
              accountId: secondUsd,
              platformId: platformAId,
              customerId: holder.customerId,
              accountType: 'INTERNAL_FIAT',
              currency: 'USD',
              status: 'ACTIVE',
              operationId: `open-${requestId}`,
              openedAt: new Date().toISOString(),
            },
          },
        ],
        {
          expectedVersion: 0,
          metadata: { platformId: platformAId, requestId, correlationId: requestId, actor: { kind: 'system', name: 'cards-e2e' } },
        },
      );
    } finally {
      await store.close();
    }
    await eventually(
      async () =>
        (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(holder.customerId)}`, { auth: platformA }))
          .body.data as Account[],
      (list) => list.some((account) => account.id === secondUsd),
    );
    const card = await activeCard('sources-hook-1');
    const replaced = await patch(platformA, card.id, { fundingSources: [secondUsd, holder.usd] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ state: 'ACTIVE', currency: 'USD', fundingSources: [secondUsd, holder.usd] });
    const reordered = await patch(platformA, card.id, { fundingSources: [holder.usd, secondUsd] });
    expect(reordered.body.fundingSources).toEqual([holder.usd, secondUsd]);
    // The same list again is a no-op: no third webhook.
    expect((await patch(platformA, card.id, { fundingSources: [holder.usd, secondUsd] })).status).toBe(200);

    const changes = () =>
      receiver.received.filter((item) => item.body.type === 'CARD.FUNDING_SOURCE_CHANGE' && item.body.data?.id === card.id);
    await receiver.waitFor(() => changes().length >= 2, 'two CARD.FUNDING_SOURCE_CHANGE');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(changes().map((item) => item.body.data.fundingSources)).toEqual([
      [secondUsd, holder.usd],
      [holder.usd, secondUsd],
    ]);
    const conformance = createConformance();
    for (const item of changes()) {
      expect(verifyGridSignature(item.rawBody, item.signature, publicKey)).toBe(true);
      expect(item.body.data).toMatchObject({
        id: card.id,
        cardholderId: holder.customerId,
        state: 'ACTIVE',
        currency: 'USD',
        platformCardId: 'sources-hook-1',
      });
      conformance.checkWebhook(item.body);
    }
    // Lists by either account find the card.
    expect(
      (await api.call('GET', `/cards?accountId=${encodeURIComponent(secondUsd)}`, { auth: platformA })).body.data.map(
        (listed: Card) => listed.id,
      ),
    ).toEqual([card.id]);
  });
});

describe('concurrent issues', () => {
  it('two issues at once with the same platformCardId: exactly one 201, one 409, one card stored', async () => {
    const body = { cardholderId: holder.customerId, platformCardId: 'race-card-1', form: 'VIRTUAL', fundingSources: [holder.usd] };
    const replies = await Promise.all([issue(platformA, body), issue(platformA, body)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
    const conflict = replies.find((reply) => reply.status === 409)!;
    expect(conflict.body).toMatchObject({ status: 409, code: expect.any(String) });
    const listed = await eventually(
      async () => (await api.call('GET', '/cards?platformCardId=race-card-1', { auth: platformA })).body.data as Card[],
      (cards) => cards.length > 0,
    );
    expect(listed.map((card) => card.id)).toEqual([replies.find((reply) => reply.status === 201)!.body.id]);
    const all = await api.call('GET', `/cards?cardholderId=${encodeURIComponent(holder.customerId)}&limit=100`, { auth: platformA });
    expect(all.body.data.filter((card: Card) => card.platformCardId === 'race-card-1')).toHaveLength(1);
  });
});
