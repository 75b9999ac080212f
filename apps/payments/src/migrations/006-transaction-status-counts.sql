-- Transactions per platform and status (decision 0052): the totalCount of a list filtered on status
-- alone. Written by the transactions projection in the batch that writes the rows (a derived table:
-- rebuilt and shadow-swapped with them). Seeded here from the rows as they stand, so an existing
-- read model needs no rebuild. A count below zero would be a bug: the projection's batch fails on it
-- (transaction-status-counts.ts; a CHECK here would refuse an upsert's negative delta itself).
CREATE TABLE IF NOT EXISTS transaction_status_counts (
  platform_id text NOT NULL,
  status text NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (platform_id, status)
);
INSERT INTO transaction_status_counts (platform_id, status, count)
SELECT platform_id, status, count(*) FROM transactions GROUP BY platform_id, status
ON CONFLICT (platform_id, status) DO NOTHING;
