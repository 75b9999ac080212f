-- The agents service's tables (docs/decisions/0016-agents.md). The read models (agents,
-- agent_device_codes, agent_actions, agent_quotes) are written only by their projections and
-- rebuildable from agents.events. The usage tables are not a read model: they are the agents'
-- spending counters, reserved and released under a row lock (decision 0016 says why).

CREATE TABLE IF NOT EXISTS agents (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  customer_id text NOT NULL,
  is_paused boolean NOT NULL,
  is_connected boolean NOT NULL,
  deleted boolean NOT NULL,
  -- Hex SHA-256 of the access token once the device code is redeemed; never the token itself.
  token_hash text,
  agent jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agents_platform_page ON agents (platform_id, created_at, id) WHERE NOT deleted;
CREATE UNIQUE INDEX IF NOT EXISTS agents_token_hash ON agents (token_hash) WHERE token_hash IS NOT NULL;

-- Every device code ever issued, pointing at its agent; the agent's stream says which one is current.
CREATE TABLE IF NOT EXISTS agent_device_codes (
  code text PRIMARY KEY,
  agent_id text NOT NULL,
  platform_id text NOT NULL
);

CREATE TABLE IF NOT EXISTS agent_actions (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  agent_id text NOT NULL,
  customer_id text NOT NULL,
  status text NOT NULL,
  -- APPROVED without its transaction yet: the executor's sweep picks these up (a persisted step).
  execution_due boolean NOT NULL,
  action jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_actions_agent_page ON agent_actions (platform_id, agent_id, created_at, id);
CREATE INDEX IF NOT EXISTS agent_actions_pending ON agent_actions (platform_id, created_at, id) WHERE status = 'PENDING_APPROVAL';
CREATE INDEX IF NOT EXISTS agent_actions_due ON agent_actions (updated_at) WHERE execution_due;

-- Which agent created which quote (an agent may read only its own quotes).
CREATE TABLE IF NOT EXISTS agent_quotes (
  quote_id text PRIMARY KEY,
  agent_id text NOT NULL,
  platform_id text NOT NULL
);

-- Spending counters per agent and UTC day / month, in minor units of the policy currency as it
-- was when each amount was reserved.
CREATE TABLE IF NOT EXISTS agent_usage_daily (
  agent_id text NOT NULL,
  day date NOT NULL,
  transaction_count integer NOT NULL DEFAULT 0,
  spend bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (agent_id, day)
);
CREATE TABLE IF NOT EXISTS agent_usage_monthly (
  agent_id text NOT NULL,
  month text NOT NULL,
  spend bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (agent_id, month)
);
-- One row per reserved action, so a release is applied once and knows what to give back.
CREATE TABLE IF NOT EXISTS agent_usage_reservations (
  action_id text PRIMARY KEY,
  agent_id text NOT NULL,
  day date NOT NULL,
  month text NOT NULL,
  amount bigint NOT NULL,
  released boolean NOT NULL DEFAULT false,
  reserved_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_usage_reservations_open ON agent_usage_reservations (reserved_at) WHERE NOT released;
