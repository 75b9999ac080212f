-- The execution process manager's persisted timer: one row per executed payment with the step it
-- waits for and when that step is due. Written only by the payment-executions projection (from the
-- Transaction stream) and rebuildable from payments.events.
CREATE TABLE IF NOT EXISTS payment_executions (
  transaction_id text PRIMARY KEY,
  platform_id text NOT NULL,
  step text NOT NULL,
  due_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- The sweep reads only payments with something left to do, oldest due first.
CREATE INDEX IF NOT EXISTS payment_executions_due ON payment_executions (due_at) WHERE step <> 'DONE';
