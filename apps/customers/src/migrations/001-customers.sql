-- Read model of customers. Written only by the customers projection; rebuildable from customers.events.
CREATE TABLE IF NOT EXISTS customers (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  platform_customer_id text NOT NULL,
  customer_type text NOT NULL,
  uma_address text NOT NULL,
  region text,
  currencies text[] NOT NULL,
  verification_status text NOT NULL,
  profile jsonb NOT NULL,
  is_deleted boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Every list query is scoped to one platform and pages newest first on (created_at, id).
CREATE INDEX IF NOT EXISTS customers_platform_page ON customers (platform_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS customers_platform_customer_id ON customers (platform_id, platform_customer_id);
CREATE INDEX IF NOT EXISTS customers_uma_address ON customers (uma_address);
