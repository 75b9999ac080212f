// Pins down the kind registry (every file in kinds/ is a kind; adding one is a one-file change)
// and the mapping of today's integration events to webhook types.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { subjects } from '@corridor/contracts';
import { type IntegrationEventEnvelope, loadKinds, planWebhook } from './webhook-kind';

const kindsDirectory = join(__dirname, 'kinds');
const kinds = loadKinds();

const event = (overrides: Partial<IntegrationEventEnvelope>): IntegrationEventEnvelope => ({
  service: 'accounts',
  aggregate: 'InternalAccount',
  eventId: '0196f1a0-0000-7000-8000-000000000001',
  type: 'AccountCredited',
  streamId: 'InternalAccount:0196f1a0-0000-7000-8000-0000000000cc',
  streamPosition: 3,
  occurredAt: '2026-01-01T00:00:00.000Z',
  platformId: 'Platform:p',
  data: {},
  ...overrides,
});

describe('the kind registry', () => {
  it('loads one kind per file of kinds/', () => {
    const files = readdirSync(kindsDirectory).filter((file) => !file.includes('.spec.'));
    expect(kinds.map((kind) => `${kind.name}.ts`).sort()).toEqual(files.sort());
  });

  it('discovers a new kind file dropped into the folder, with no other change', () => {
    const directory = mkdtempSync(join(tmpdir(), 'kinds-'));
    try {
      for (const file of readdirSync(kindsDirectory)) copyFileSync(join(kindsDirectory, file), join(directory, file));
      writeFileSync(
        join(directory, 'example-dropped-in.js'),
        `exports.kind = { name: 'example-dropped-in', types: ['EXAMPLE.DROPPED_IN'], retried: () => true,
          plan: (e) => e.type === 'ExampleHappened' ? { type: 'EXAMPLE.DROPPED_IN', resourceId: e.streamId, render: { inline: { id: ` +
          `e.streamId } } } : null };`,
      );
      const extended = loadKinds(directory);
      expect(extended).toHaveLength(kinds.length + 1);
      expect(
        planWebhook(extended, event({ service: 'example', aggregate: 'Example', type: 'ExampleHappened', streamId: 'Example:1' })),
      ).toMatchObject({ type: 'EXAMPLE.DROPPED_IN', resourceId: 'Example:1', retried: true });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses two kinds that claim the same webhook type', () => {
    const directory = mkdtempSync(join(tmpdir(), 'kinds-'));
    try {
      const source = `exports.kind = { name: 'x', types: ['TEST'], retried: () => false, plan: () => null };`;
      writeFileSync(join(directory, 'a.js'), source);
      writeFileSync(join(directory, 'b.js'), source);
      expect(() => loadKinds(directory)).toThrow('TEST is claimed by both');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('planWebhook', () => {
  it.each(['AccountCredited', 'AccountDebited', 'FundsHeld', 'HoldSettled', 'HoldReleased'])(
    '%s recorded without the account (before decision 0054) → INTERNAL_ACCOUNT.BALANCE_UPDATED rendered as of its position',
    (type) => {
      expect(planWebhook(kinds, event({ type }))).toEqual({
        type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
        resourceId: 'InternalAccount:0196f1a0-0000-7000-8000-0000000000cc',
        render: {
          subject: subjects.accounts.internalAccount.renderAt,
          request: { accountId: 'InternalAccount:0196f1a0-0000-7000-8000-0000000000cc', streamPosition: 3 },
        },
        retried: true,
      });
    },
  );

  it.each([
    ['FundsHeld', 'INTERNAL_ACCOUNT.BALANCE_UPDATED'],
    ['HoldSettled', 'INTERNAL_ACCOUNT.BALANCE_UPDATED'],
    ['AccountStatusChanged', 'INTERNAL_ACCOUNT.STATUS_UPDATED'],
  ])('%s carrying the account after it (decision 0054) → %s rendered inline, no call to accounts', (type, webhookType) => {
    const account = { id: 'InternalAccount:0196f1a0-0000-7000-8000-0000000000cc', status: 'ACTIVE', balance: { amount: 700 } };
    expect(planWebhook(kinds, event({ type, data: { accountId: account.id, amount: '300', account } }))).toEqual({
      type: webhookType,
      resourceId: account.id,
      render: { inline: account },
      retried: true,
    });
  });

  it('AccountStatusChanged → INTERNAL_ACCOUNT.STATUS_UPDATED; opening an account sends nothing', () => {
    expect(planWebhook(kinds, event({ type: 'AccountStatusChanged' }))?.type).toBe('INTERNAL_ACCOUNT.STATUS_UPDATED');
    expect(planWebhook(kinds, event({ type: 'InternalAccountOpened' }))).toBeNull();
  });

  it('a verification status change → CUSTOMER.KYC_* for individuals and CUSTOMER.KYB_* for businesses', () => {
    const changed = (customerType: string, to: string) =>
      planWebhook(
        kinds,
        event({
          service: 'customers',
          aggregate: 'Customer',
          type: 'CustomerVerificationStatusChanged',
          streamId: 'Customer:c',
          data: { customerType, to },
        }),
      );
    expect(changed('INDIVIDUAL', 'APPROVED')).toMatchObject({
      type: 'CUSTOMER.KYC_APPROVED',
      resourceId: 'Customer:c',
      render: { subject: subjects.customers.customer.renderAt, request: { customerId: 'Customer:c', streamPosition: 3 } },
    });
    expect(changed('BUSINESS', 'REJECTED')?.type).toBe('CUSTOMER.KYB_REJECTED');
    expect(changed('BUSINESS', 'PENDING')?.type).toBe('CUSTOMER.KYB_PENDING');
    expect(changed('INDIVIDUAL', 'UNVERIFIED')).toBeNull();
  });

  it("a new customer's status change carrying the customer (decision 0057) → CUSTOMER.KYC_APPROVED inline, no call to customers", () => {
    const customer = { id: 'Customer:c', customerType: 'INDIVIDUAL', kycStatus: 'APPROVED' };
    const approved = event({
      service: 'customers',
      aggregate: 'Customer',
      type: 'CustomerVerificationStatusChanged',
      streamId: 'Customer:c',
      data: { customerType: 'INDIVIDUAL', to: 'APPROVED', customer },
    });
    expect(planWebhook(kinds, approved)).toEqual({
      type: 'CUSTOMER.KYC_APPROVED',
      resourceId: 'Customer:c',
      render: { inline: customer },
      retried: true,
    });
  });

  it('a configured or changed webhookEndpoint → one TEST, never retried; other config changes → nothing', () => {
    const platformEvent = (type: string, data: Record<string, unknown>) =>
      event({ service: 'platform', aggregate: 'Platform', type, streamId: 'Platform:p', data });
    expect(planWebhook(kinds, platformEvent('PlatformConfigUpdated', { changes: { webhookEndpoint: 'https://x.example/hook' } }))).toEqual({
      type: 'TEST',
      resourceId: 'Platform:p',
      render: { inline: {} },
      retried: false,
    });
    expect(planWebhook(kinds, platformEvent('PlatformCreated', { settings: { webhookEndpoint: 'https://x.example/hook' } }))?.type).toBe(
      'TEST',
    );
    expect(planWebhook(kinds, platformEvent('PlatformCreated', { settings: {} }))).toBeNull();
    expect(planWebhook(kinds, platformEvent('PlatformConfigUpdated', { changes: { umaDomain: 'x' } }))).toBeNull();
  });
});
