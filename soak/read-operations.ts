import type { Operation, SoakContext } from './context';
import type { SoakPlatform } from './workload';

// Read traffic: every list and single read a platform makes, on what it created.

const runRead = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, pick, expect } = ctx;
  const customer = pick(platform.customers);
  const transactionId = pick([...platform.transactionIds]);
  const reads: [string, string][] = [
    ['GET /customers', '/customers?limit=20'],
    ['GET /customers/internal-accounts', '/customers/internal-accounts?limit=20'],
    ['GET /platform/internal-accounts', '/platform/internal-accounts'],
    ['GET /customers/external-accounts', '/customers/external-accounts?limit=20'],
    ['GET /transactions', '/transactions?limit=20'],
    ['GET /documents', '/documents?limit=20'],
    ['GET /config', '/config'],
    ['GET /tokens', '/tokens'],
    ['GET /exchange-rates', '/exchange-rates'],
    ['GET /webhooks/deliveries', '/webhooks/deliveries?limit=20'],
  ];
  if (customer)
    reads.push(
      ['GET /customers/{id}', `/customers/${customer.id}`],
      ['GET /verifications', `/verifications?customerId=${encodeURIComponent(customer.id)}`],
    );
  if (transactionId) reads.push(['GET /transactions/{id}', `/transactions/${transactionId}`]);
  const external = pick(platform.externalAccountIds);
  if (external) reads.push(['GET /customers/external-accounts/{id}', `/customers/external-accounts/${external}`]);
  const business = pick(platform.businesses);
  if (business) reads.push(['GET /beneficial-owners', `/beneficial-owners?customerId=${encodeURIComponent(business)}`]);
  const job = pick(platform.bulkJobs);
  if (job) reads.push(['GET /customers/bulk/jobs/{id}', `/customers/bulk/jobs/${job}`]);
  const [operation, path] = pick(reads)!;
  expect(operation, await client.call(operation, platform.auth, 'GET', path), [200]);
};

export const readOperations = (ctx: SoakContext): Record<string, Operation> => ({
  read: { weight: 25, run: (platform) => runRead(ctx, platform) },
});
