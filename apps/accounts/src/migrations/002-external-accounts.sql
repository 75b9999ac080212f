-- Read model of external accounts. Written only by the external-accounts projection; rebuildable
-- from accounts.events. Deleted accounts keep their row (is_deleted) but no client query returns it.
CREATE TABLE IF NOT EXISTS external_accounts (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  customer_id text,
  currency text NOT NULL,
  account_type text NOT NULL,
  status text NOT NULL,
  account_info jsonb NOT NULL,
  platform_account_id text,
  default_uma_deposit_account boolean NOT NULL,
  beneficiary_verification_status text,
  beneficiary_verified_data jsonb,
  is_deleted boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Every list is scoped to one platform and pages newest first on (created_at, id).
CREATE INDEX IF NOT EXISTS external_accounts_platform_page ON external_accounts (platform_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS external_accounts_platform_customer ON external_accounts (platform_id, customer_id);
