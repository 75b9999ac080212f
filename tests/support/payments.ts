import { Client } from 'pg';
import type { Credentials, createApi } from './api';
import { eventually } from '@corridor/testing';
import type { StackView } from './stack';

// What the payment-execution suites share: customers with accounts, EUR bank accounts whose IBAN
// ends in a chosen sandbox suffix, funding, balances, quotes and waiting for a terminal state.

type Api = ReturnType<typeof createApi>;
export type Account = { id: string; balance: { amount: number; currency: { code: string } }; totalBalance: { amount: number } };
export type Customer = { customerId: string; platformCustomerId: string; accounts: Account[] };

export const paymentHelpers = (stack: StackView, api: Api) => {
  let customers = 0;
  let ibans = 0;

  const newCustomer = async (auth: Credentials, currencies: string[]): Promise<Customer> => {
    customers += 1;
    const created = await api.call('POST', '/customers', {
      auth,
      body: { customerType: 'INDIVIDUAL', fullName: `Payer ${customers}`, currencies },
    });
    if (created.status !== 201) throw new Error(`POST /customers answered ${created.status}: ${created.text}`);
    const customerId = created.body.id as string;
    const accounts = await eventually(
      async () =>
        (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body
          .data as Account[],
      (list) => list.length >= currencies.length,
    );
    return { customerId, platformCustomerId: created.body.platformCustomerId, accounts };
  };

  const accountIn = (customer: Customer, currency: string): string => {
    const account = customer.accounts.find((candidate) => candidate.balance.currency.code === currency);
    if (!account) throw new Error(`The customer has no ${currency} account.`);
    return account.id;
  };

  /** A EUR bank account of the customer whose IBAN ends in `suffix` (the sandbox rail's outcome). */
  const euroAccount = async (auth: Credentials, customerId: string, suffix = '000'): Promise<string> => {
    ibans += 1;
    const bban = `370400440${String(ibans).padStart(6, '0')}${suffix}`;
    const numeric = [...`${bban}DE00`].map((character) => parseInt(character, 36).toString()).join('');
    const check = String(98 - Number(BigInt(numeric) % 97n)).padStart(2, '0');
    const created = await api.call('POST', '/customers/external-accounts', {
      auth,
      body: {
        customerId,
        currency: 'EUR',
        accountInfo: {
          accountType: 'EUR_ACCOUNT',
          iban: `DE${check}${bban}`,
          swiftCode: 'COBADEFFXXX',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Eva Empfänger', countryOfResidence: 'DE' },
        },
      },
    });
    if (created.status !== 201) throw new Error(`POST /customers/external-accounts answered ${created.status}: ${created.text}`);
    return created.body.id as string;
  };

  const fund = async (auth: Credentials, accountId: string, amount: number): Promise<void> => {
    const reply = await api.call('POST', `/sandbox/internal-accounts/${accountId}/fund`, { auth, body: { amount } });
    if (reply.status !== 200) throw new Error(`fund answered ${reply.status}: ${reply.text}`);
  };

  /** [available, total] of one of the customer's accounts. */
  const balances = async (auth: Credentials, customer: Customer, currency: string): Promise<[number, number]> => {
    const list = (
      await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.customerId)}&currency=${currency}`, {
        auth,
      })
    ).body.data as Account[];
    const account = list[0];
    if (!account) throw new Error(`No ${currency} account for ${customer.customerId}.`);
    return [account.balance.amount, account.totalBalance.amount];
  };

  const quote = (
    auth: Credentials,
    sourceAccountId: string,
    destinationAccountId: string,
    amount: number,
    extra: Record<string, unknown> = {},
  ) =>
    api.call('POST', '/quotes', {
      auth,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
        destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: amount,
        ...extra,
      },
    });

  const execute = (auth: Credentials, quoteId: string, headers: Record<string, string> = {}) =>
    api.call('POST', `/quotes/${quoteId}/execute`, { auth, headers });

  const transaction = async (auth: Credentials, transactionId: string): Promise<any> =>
    (await api.call('GET', `/transactions/${transactionId}`, { auth })).body;

  /** Polls until the transaction is in a terminal state: EXPIRED or FAILED with its refund settled either way, or COMPLETED with nothing pending. */
  const settled = (auth: Credentials, transactionId: string, timeoutMs = 30_000): Promise<any> =>
    eventually(() => transaction(auth, transactionId), isTerminal, timeoutMs);

  return { newCustomer, accountIn, euroAccount, fund, balances, quote, execute, transaction, settled };
};

export const isTerminal = (transaction: { status: string; refund?: { status: string } }): boolean =>
  ['COMPLETED', 'FAILED', 'EXPIRED'].includes(transaction.status) && transaction.refund?.status !== 'PENDING';

/**
 * Replays one internal account's ledger events and returns the lowest available balance it ever
 * had, so a test can show a balance never went below zero, not only that it ends above.
 */
export const lowestAvailable = async (stack: StackView, accountId: string): Promise<bigint> => {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ type: string; data: Record<string, string> }>(
      'SELECT type, data FROM accounts.events WHERE stream_id = $1 ORDER BY stream_position',
      [accountId],
    );
    let available = 0n;
    let lowest = 0n;
    for (const { type, data } of rows) {
      if (type === 'AccountCredited') available += BigInt(data['amount']!);
      else if (type === 'AccountDebited' || type === 'FundsHeld') available -= BigInt(data['amount']!);
      else if (type === 'HoldSettled') available += BigInt(data['releasedAmount'] ?? '0');
      else if (type === 'HoldReleased') available += BigInt(data['amount']!);
      if (available < lowest) lowest = available;
    }
    return lowest;
  } finally {
    await client.end();
  }
};

/** How many holds the ledger recorded for one transaction (a payment executed twice would show two, or a refused second). */
export const holdsFor = async (stack: StackView, transactionId: string): Promise<number> => {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      "SELECT count(*) FROM accounts.events WHERE type IN ('FundsHeld', 'AccountDebited') AND data->'cause'->>'id' = $1",
      [transactionId],
    );
    return Number(rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
};
