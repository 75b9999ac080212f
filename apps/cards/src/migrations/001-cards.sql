-- Read models of the cards service (docs/decisions/0015-cards.md). Written only by their
-- projections and rebuildable from cards.events.

-- One row per card: the card as the API shows it (card), and the columns the list filters on.
CREATE TABLE IF NOT EXISTS cards (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  cardholder_id text NOT NULL,
  platform_card_id text NOT NULL,
  state text NOT NULL,
  funding_sources jsonb NOT NULL,
  card jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Every list is scoped to one platform and pages on (created_at, id) in either direction.
CREATE INDEX IF NOT EXISTS cards_platform_page ON cards (platform_id, created_at, id);
CREATE INDEX IF NOT EXISTS cards_platform_cardholder ON cards (platform_id, cardholder_id, created_at, id);
CREATE INDEX IF NOT EXISTS cards_platform_state ON cards (platform_id, state, created_at, id);
CREATE INDEX IF NOT EXISTS cards_platform_card_id ON cards (platform_id, platform_card_id);
-- accountId filter: cards whose funding_sources array contains the account.
CREATE INDEX IF NOT EXISTS cards_funding_sources ON cards USING gin (funding_sources jsonb_path_ops);

-- The provisioning timer: when the issuer is next asked about a PENDING_ISSUE card (due_at null:
-- not until something else happens). The provisioning processor sweeps the due rows, so a card
-- whose provisioning was under way when the service stopped is resumed at start.
CREATE TABLE IF NOT EXISTS card_provisioning (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  state text NOT NULL,
  due_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS card_provisioning_due ON card_provisioning (due_at) WHERE state = 'PENDING_ISSUE' AND due_at IS NOT NULL;
