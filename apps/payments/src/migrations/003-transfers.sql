-- Same-currency transfers (decision 0009) and the remaining GET /transactions filters.

-- The transfers' persisted timer: one row per transfer, due_at = when the rail is next looked at.
-- Written only by the transfer-timers projection; the sweep reads the rows still under way.
CREATE TABLE IF NOT EXISTS transfers (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  direction text NOT NULL,
  status text NOT NULL,
  due_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS transfers_due ON transfers (due_at) WHERE status IN ('PENDING', 'PROCESSING');

-- Account identifiers and the reference, as columns the list filters on (the projection fills
-- them; its version was raised so existing rows are rebuilt with them).
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS source_account text;
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS destination_account text;
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS reference text;
CREATE INDEX IF NOT EXISTS transactions_platform_source ON transactions (platform_id, source_account, created_at, id);
CREATE INDEX IF NOT EXISTS transactions_platform_destination ON transactions (platform_id, destination_account, created_at, id);
CREATE INDEX IF NOT EXISTS transactions_platform_reference ON transactions (platform_id, reference) WHERE reference IS NOT NULL;
-- status and type filters: their pages and their exact counts read the index alone.
CREATE INDEX IF NOT EXISTS transactions_platform_status ON transactions (platform_id, status, created_at, id);
CREATE INDEX IF NOT EXISTS transactions_platform_type ON transactions (platform_id, type, created_at, id);

-- Transactions per platform (projection transaction-counts): an unfiltered list's totalCount.
CREATE TABLE IF NOT EXISTS transaction_counts (
  platform_id text PRIMARY KEY,
  count bigint NOT NULL
);
