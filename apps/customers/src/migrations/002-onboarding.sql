-- Read models of issue 7 (onboarding). Written only by their projections; rebuildable from customers.events.
ALTER TABLE customers ADD COLUMN IF NOT EXISTS beneficial_owners jsonb NOT NULL DEFAULT '[]';

CREATE TABLE IF NOT EXISTS beneficial_owners (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  platform_id text NOT NULL,
  roles text[] NOT NULL,
  ownership_percentage integer NOT NULL,
  personal_info jsonb NOT NULL,
  kyc_status text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- GET /beneficial-owners always names the business; pages newest first on (created_at, id).
CREATE INDEX IF NOT EXISTS beneficial_owners_customer_page ON beneficial_owners (platform_id, customer_id, created_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS verifications (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  platform_id text NOT NULL,
  verification_status text NOT NULL,
  errors jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS verifications_platform_page ON verifications (platform_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS verifications_customer_page ON verifications (platform_id, customer_id, created_at DESC, id DESC);
