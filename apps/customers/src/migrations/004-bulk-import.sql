-- Read model of bulk customer import jobs (issue 7, part 5). Written only by its projection;
-- rebuildable from customers.events (the Job:* streams).
CREATE TABLE IF NOT EXISTS bulk_import_jobs (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  status text NOT NULL,
  total integer NOT NULL,
  processed integer NOT NULL,
  successful integer NOT NULL,
  failed integer NOT NULL,
  errors jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz
);
-- Jobs a restarted service must put back on the queue.
CREATE INDEX IF NOT EXISTS bulk_import_jobs_unfinished ON bulk_import_jobs (status) WHERE status IN ('PENDING', 'PROCESSING');
