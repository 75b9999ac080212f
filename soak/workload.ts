import { createAgentOperations, type SoakAgent } from './agents';
import { cardOperations } from './card-operations';
import type { SoakClient, Credentials } from './client';
import { emptyReadAfterCreate, type ReadAfterCreate } from './consistency';
import { createSoakContext, type Operation } from './context';
import { bankAccount, createCustomer, onboardingOperations } from './onboarding';
import { fund, paymentOperations } from './payment-operations';
import { readOperations } from './read-operations';
import type { SoakReceiver } from './receiver';
import type { SoakStats } from './stats';
import { createWalletOperations } from './wallets';

// What the virtual users do: every part of the API at once, on every platform, each operation
// picked by weight (one file per traffic kind: onboarding, payment, card, read, wallet and agent
// operations). The state each platform builds up (customers, accounts, transactions) is what
// later operations act on and what the end checks compare with the store.

export type SoakCustomer = { id: string; umaAddress: string; usd?: string; eur?: string; banks: string[]; funded: boolean };
export type SoakPlatform = {
  name: string;
  platformId: string;
  auth: Credentials;
  receiver: SoakReceiver;
  customers: SoakCustomer[];
  businesses: string[];
  /** Every customer id a create answered (individuals, businesses). */
  customerIds: Set<string>;
  /** Rows the bulk jobs reported imported. */
  bulkJobs: string[];
  transactionIds: Set<string>;
  /** Transactions of quotes the users never executed: PENDING until they expire, by design. */
  quotesNotExecuted: Set<string>;
  externalAccountIds: string[];
  invitationCodes: string[];
  hot?: { customerId: string; usd: string; bank: string };
  customersWithoutAccounts: number;
  /** Every card an issue answered (or a retried issue's 409 found by its platformCardId), with the state last seen. */
  cards: SoakCard[];
  /** Card transactions the authorization simulator answered, by id. */
  cardTransactions: Map<string, SoakCardTransaction>;
  /** Every agent a create answered, with what its users saw (soak/agents.ts). */
  agents: SoakAgent[];
  /** Agent actions the platform sent an approve or reject for (answered or not). */
  decidedActions: Set<string>;
  /** POST /agents whose answer never came (5xx after every retry): each may have made an agent. */
  agentCreatesLost: number;
  /** What the reads and payments right after each POST /customers saw (soak/consistency.ts judges it). */
  readAfterCreate: ReadAfterCreate;
};

export const newSoakPlatformState = () => ({
  customers: [],
  businesses: [],
  customerIds: new Set<string>(),
  bulkJobs: [],
  transactionIds: new Set<string>(),
  quotesNotExecuted: new Set<string>(),
  externalAccountIds: [],
  invitationCodes: [],
  customersWithoutAccounts: 0,
  cards: [],
  cardTransactions: new Map<string, SoakCardTransaction>(),
  agents: [],
  decidedActions: new Set<string>(),
  agentCreatesLost: 0,
  readAfterCreate: emptyReadAfterCreate(),
});

export type SoakCard = { id: string; customerId: string; account: string; platformCardId: string; state: string };
/** What the users did to a card transaction; `busy` while a simulator call on it is in flight. */
export type SoakCardTransaction = {
  id: string;
  cardId: string;
  account: string;
  authorized: number;
  settled: number;
  returned: number;
  status: string;
  busy: boolean;
};

export type Random = () => number;
export type Workload = ReturnType<typeof createWorkload>;

export const createWorkload = (client: SoakClient, stats: SoakStats, platforms: SoakPlatform[], random: Random, runTag: string) => {
  const ctx = createSoakContext(client, stats, platforms, random, runTag);
  const operations: Record<string, Operation> = {
    customer: { weight: 8, run: async (platform) => void (await createCustomer(ctx, platform)) },
    ...onboardingOperations(ctx),
    ...paymentOperations(ctx),
    ...cardOperations(ctx),
    ...readOperations(ctx),
    ...createWalletOperations(ctx),
    ...createAgentOperations(ctx),
  };
  const totalWeight = Object.values(operations).reduce((sum, operation) => sum + operation.weight, 0);

  /** One operation picked by weight on a random platform. */
  const runOne = async (): Promise<void> => {
    const platform = ctx.pick(platforms)!;
    let roll = random() * totalWeight;
    for (const [name, operation] of Object.entries(operations)) {
      roll -= operation.weight;
      if (roll <= 0) {
        try {
          await operation.run(platform);
        } catch (error) {
          stats.surprise(`${name} threw`, (error as Error).stack ?? String(error));
        }
        return;
      }
    }
  };

  /** Each platform starts with a few customers and a funded hot account with a bank account to pay out to. */
  const seed = async (platform: SoakPlatform): Promise<void> => {
    const hotOwner = await createCustomer(ctx, platform);
    if (hotOwner?.usd) {
      const bank = await bankAccount(ctx, platform, hotOwner, '001');
      if (bank && (await fund(ctx, platform, hotOwner.usd, 50_000_000)))
        platform.hot = { customerId: hotOwner.id, usd: hotOwner.usd, bank };
      hotOwner.funded = true;
    }
    for (let n = 0; n < 3; n += 1) {
      const customer = await createCustomer(ctx, platform);
      if (customer?.usd && (await fund(ctx, platform, customer.usd, 500_000))) customer.funded = true;
      if (customer) await bankAccount(ctx, platform, customer, '001');
      if (customer?.usd) await operations['issueCard']!.run(platform);
    }
  };

  /** A deferred approval (the receiver answered 202 to INCOMING_PAYMENT.PENDING). 409 when the window had run out. */
  const approve = (platform: SoakPlatform, transactionId: string): Promise<void> =>
    client
      .call('POST /transactions/{id}/approve', platform.auth, 'POST', `/transactions/${transactionId}/approve`)
      .then((reply) => void ctx.expect('POST /transactions/{id}/approve', reply, [200, 409]));

  return { runOne, seed, approve };
};
