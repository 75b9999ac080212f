-- Read models of the payments service, written only by its projections and rebuildable from
-- payments.events. Amounts stay inside the jsonb documents as decimal strings of minor units.
CREATE TABLE IF NOT EXISTS quotes (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  transaction_id text NOT NULL,
  status text NOT NULL,
  terms jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- The expiry sweeper looks only at quotes still waiting.
CREATE INDEX IF NOT EXISTS quotes_pending_expiry ON quotes (expires_at) WHERE status = 'PENDING';

CREATE TABLE IF NOT EXISTS transactions (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  customer_id text NOT NULL,
  platform_customer_id text NOT NULL,
  type text NOT NULL,
  status text NOT NULL,
  record jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Every list is scoped to one platform and pages on (created_at, id), either way round.
CREATE INDEX IF NOT EXISTS transactions_platform_page ON transactions (platform_id, created_at, id);
CREATE INDEX IF NOT EXISTS transactions_platform_customer ON transactions (platform_id, customer_id, created_at, id);
