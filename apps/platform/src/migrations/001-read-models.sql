-- Read models of the platform service. Rows are written only by projections; the event
-- streams in platform.events are the source of truth and can rebuild them.
CREATE TABLE IF NOT EXISTS platforms (
  id text PRIMARY KEY,
  config_id text NOT NULL,
  name text NOT NULL,
  environment text NOT NULL,
  settings jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS api_tokens (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  name text NOT NULL,
  permissions jsonb NOT NULL,
  client_id text NOT NULL UNIQUE,
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS api_tokens_platform_page ON api_tokens (platform_id, created_at DESC, id DESC);
