-- Read models of receiver lookups and UMA invitations (docs/decisions/0010-uma.md), written only
-- by their projections and rebuildable from payments.events.
CREATE TABLE IF NOT EXISTS receiver_lookups (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  record jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Keyed by the invitation code; EXPIRED is computed on read from expires_at.
CREATE TABLE IF NOT EXISTS invitations (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  status text NOT NULL,
  invitation jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
