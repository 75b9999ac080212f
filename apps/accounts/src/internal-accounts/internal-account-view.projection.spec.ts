import { renderInternalAccount, type InternalAccountRow } from './internal-account-view.projection';

const row = (overrides: Partial<InternalAccountRow> = {}): InternalAccountRow => ({
  id: 'InternalAccount:0196f1a0-0000-7000-8000-000000000001',
  platformId: 'Platform:p',
  customerId: 'Customer:c',
  accountType: 'INTERNAL_FIAT',
  currency: 'USD',
  status: 'ACTIVE',
  available: '120',
  held: '30',
  privateEnabled: false,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  updatedAt: new Date('2026-01-02T00:00:00.000Z'),
  ...overrides,
});

describe('renderInternalAccount', () => {
  it('shows available as balance and available plus held as totalBalance', () => {
    const wire = renderInternalAccount(row());
    expect([wire.balance.amount, wire.totalBalance.amount, wire.balance.currency.code]).toEqual([120, 150, 'USD']);
    expect(wire.customerId).toBe('Customer:c');
    expect('privateEnabled' in wire).toBe(false);
  });

  it('omits customerId for platform accounts and shows privateEnabled only on embedded wallets', () => {
    expect('customerId' in renderInternalAccount(row({ customerId: null }))).toBe(false);
    expect(renderInternalAccount(row({ accountType: 'EMBEDDED_WALLET', currency: 'USDB', privateEnabled: true })).privateEnabled).toBe(
      true,
    );
  });
});
