import { EntitySchema } from '@mikro-orm/core';
import { fundingInstructionsOf, type InternalAccountWire, toWireAmount } from '@corridor/contracts';
import type { Projection, ProjectionRows, RecordedEvent } from '@corridor/event-store';
import type { InternalAccountEvent, InternalAccountStatus, InternalAccountType } from './internal-account';

/**
 * The internal account as GET and list return it. available and held are decimal strings of
 * minor units: a JS number would round balances beyond 2^53, and the ledger must be exact.
 */
export type InternalAccountRow = {
  id: string;
  platformId: string;
  customerId: string | null;
  accountType: InternalAccountType;
  currency: string;
  status: InternalAccountStatus;
  available: string;
  held: string;
  privateEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
};

export const InternalAccountEntity = new EntitySchema<InternalAccountRow>({
  name: 'InternalAccountRow',
  tableName: 'internal_accounts',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    customerId: { type: 'string', nullable: true },
    accountType: { type: 'string' },
    currency: { type: 'string' },
    status: { type: 'string' },
    available: { type: 'string' },
    held: { type: 'string' },
    privateEnabled: { type: 'boolean' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

/** The ledger replies read one row by id with plain SQL (see EventSourcing.read). */
export const INTERNAL_ACCOUNT_BY_ID = `SELECT id, platform_id, customer_id, account_type, currency, status, available, held,
  private_enabled, created_at, updated_at FROM accounts.internal_accounts WHERE id = $1 AND platform_id = $2`;

export type InternalAccountRowColumns = {
  id: string;
  platform_id: string;
  customer_id: string | null;
  account_type: InternalAccountType;
  currency: string;
  status: InternalAccountStatus;
  available: string;
  held: string;
  private_enabled: boolean;
  created_at: Date;
  updated_at: Date;
};

export const fromColumns = (row: InternalAccountRowColumns): InternalAccountRow => ({
  id: row.id,
  platformId: row.platform_id,
  customerId: row.customer_id,
  accountType: row.account_type,
  currency: row.currency,
  status: row.status,
  available: row.available,
  held: row.held,
  privateEnabled: row.private_enabled,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const plus = (value: string, delta: bigint): string => (BigInt(value) + delta).toString();

/** Applies one balance or status event to an existing row; mirrors evolveInternalAccount's arithmetic. */
const evolveExisting = (
  row: InternalAccountRow,
  event: Exclude<InternalAccountEvent, { type: 'InternalAccountOpened' }>,
): InternalAccountRow => {
  switch (event.type) {
    case 'AccountCredited':
      return { ...row, available: plus(row.available, BigInt(event.data.amount)) };
    case 'AccountDebited':
      return { ...row, available: plus(row.available, -BigInt(event.data.amount)) };
    case 'FundsHeld': {
      const amount = BigInt(event.data.amount);
      return { ...row, available: plus(row.available, -amount), held: plus(row.held, amount) };
    }
    case 'HoldSettled': {
      const settled = BigInt(event.data.amount);
      const released = BigInt(event.data.releasedAmount);
      return { ...row, available: plus(row.available, released), held: plus(row.held, -settled - released) };
    }
    case 'HoldReleased': {
      const released = BigInt(event.data.amount);
      return { ...row, available: plus(row.available, released), held: plus(row.held, -released) };
    }
    case 'AccountStatusChanged':
      return { ...row, status: event.data.to };
    case 'AccountPrivacyChanged':
      return { ...row, privateEnabled: event.data.privateEnabled };
    default:
      return row;
  }
};

export const evolveInternalAccountView = (row: InternalAccountRow | null, recorded: RecordedEvent): InternalAccountRow | null => {
  const event = recorded as unknown as InternalAccountEvent;
  if (event.type === 'InternalAccountOpened') {
    const { accountId, platformId, customerId, accountType, currency, status } = event.data;
    // Dated by the event, as every later change is: the decision's clock (openedAt) can be a
    // moment before the append that records it, and a webhook rendered at this event says when.
    const at = new Date(recorded.metadata.occurredAt);
    return {
      id: accountId,
      platformId,
      customerId,
      accountType,
      currency,
      status,
      available: '0',
      held: '0',
      privateEnabled: false,
      createdAt: at,
      updatedAt: at,
    };
  }
  // An event before the opening cannot occur within one stream; skip rather than stall the view.
  if (!row) return row;
  return { ...evolveExisting(row, event), updatedAt: new Date(recorded.metadata.occurredAt) };
};

/**
 * The ledger's hot path: a batch's rows are read with one SELECT and written with one set-based
 * upsert (arrays of each column, unnested), not through MikroORM's unit of work. Balances stay
 * decimal strings all the way to the text columns.
 */
const internalAccountRows: ProjectionRows<InternalAccountRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<InternalAccountRowColumns>(
      `SELECT id, platform_id, customer_id, account_type, currency, status, available, held, private_enabled, created_at, updated_at
         FROM ${sql.schema}.internal_accounts WHERE id = ANY($1::text[])`,
      [keys],
    );
    return new Map(rows.map((row) => [row.id, fromColumns(row)]));
  },
  save: async (sql, { upserts, deletes }) => {
    if (upserts.length > 0) {
      const column = <K extends keyof InternalAccountRow>(key: K) => upserts.map((row) => row[key]);
      await sql.query(
        `INSERT INTO ${sql.schema}.internal_accounts
           (id, platform_id, customer_id, account_type, currency, status, available, held, private_enabled, created_at, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                              $9::boolean[], $10::timestamptz[], $11::timestamptz[])
         ON CONFLICT (id) DO UPDATE SET platform_id = EXCLUDED.platform_id, customer_id = EXCLUDED.customer_id,
           account_type = EXCLUDED.account_type, currency = EXCLUDED.currency, status = EXCLUDED.status,
           available = EXCLUDED.available, held = EXCLUDED.held, private_enabled = EXCLUDED.private_enabled,
           created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at`,
        [
          column('id'),
          column('platformId'),
          column('customerId'),
          column('accountType'),
          column('currency'),
          column('status'),
          column('available'),
          column('held'),
          column('privateEnabled'),
          upserts.map((row) => row.createdAt.toISOString()),
          upserts.map((row) => row.updatedAt.toISOString()),
        ],
      );
    }
    if (deletes.length > 0) await sql.query(`DELETE FROM ${sql.schema}.internal_accounts WHERE id = ANY($1::text[])`, [deletes]);
  },
};

export const internalAccountViewProjection: Projection<InternalAccountRow> = {
  name: 'internal-accounts',
  version: 2,
  canHandle: [
    'InternalAccountOpened',
    'AccountCredited',
    'AccountDebited',
    'FundsHeld',
    'HoldSettled',
    'HoldReleased',
    'AccountStatusChanged',
    'AccountPrivacyChanged',
  ],
  entity: InternalAccountEntity,
  keyOf: (event) => String(event.data['accountId']),
  evolve: evolveInternalAccountView,
  rows: internalAccountRows,
};

export const renderInternalAccount = (row: InternalAccountRow): InternalAccountWire => {
  const available = BigInt(row.available);
  return {
    id: row.id,
    ...(row.customerId ? { customerId: row.customerId } : {}),
    type: row.accountType,
    status: row.status,
    balance: toWireAmount({ value: available, currency: row.currency }),
    totalBalance: toWireAmount({ value: available + BigInt(row.held), currency: row.currency }),
    fundingPaymentInstructions: fundingInstructionsOf({ accountId: row.id, customerId: row.customerId, currency: row.currency }),
    ...(row.accountType === 'EMBEDDED_WALLET' ? { privateEnabled: row.privateEnabled } : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
};
