-- The card-transaction read model (apps/cards/src/card-transactions/card-transaction-view.projection.ts).
-- Written only by its projection and rebuildable from cards.events.

-- One row per card transaction: the decider's state after the last event (state, bigints as
-- strings), the columns tenancy and lookups use, and due_at, the persisted timer of the sandbox's
-- delayed pull (descriptor suffix 005): set while the pull is PENDING, null otherwise. The
-- CardPullTimer sweeps the due rows on the service clock, so a pull pending when the service
-- stopped is confirmed by the first sweep after the restart.
CREATE TABLE IF NOT EXISTS card_transactions (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  card_id text NOT NULL,
  status text NOT NULL,
  due_at timestamptz,
  state jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS card_transactions_card ON card_transactions (platform_id, card_id, created_at, id);
CREATE INDEX IF NOT EXISTS card_transactions_due ON card_transactions (due_at) WHERE due_at IS NOT NULL;
