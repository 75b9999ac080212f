-- Read model of internal accounts. Written only by the internal-accounts projection; rebuildable
-- from accounts.events. Balances are decimal strings of minor units: no JS number ever holds them.
CREATE TABLE IF NOT EXISTS internal_accounts (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  customer_id text,
  account_type text NOT NULL,
  currency text NOT NULL,
  status text NOT NULL,
  available text NOT NULL,
  held text NOT NULL,
  private_enabled boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Every list is scoped to one platform and pages newest first on (created_at, id).
CREATE INDEX IF NOT EXISTS internal_accounts_platform_page ON internal_accounts (platform_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS internal_accounts_platform_customer ON internal_accounts (platform_id, customer_id);
