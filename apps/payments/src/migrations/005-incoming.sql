-- Incoming payments (docs/decisions/0013-incoming-payments.md): the persisted timer of each
-- payment, written only by the incoming_payment_timers projection and rebuildable from
-- payments.events. Their transactions live in the transactions read model like outgoing ones.
CREATE TABLE IF NOT EXISTS incoming_payment_timers (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  phase text NOT NULL,
  due_at timestamptz,
  updated_at timestamptz NOT NULL
);
-- The sweep looks only at payments still waiting for something.
CREATE INDEX IF NOT EXISTS incoming_payment_timers_due ON incoming_payment_timers (due_at) WHERE phase <> 'DONE';
