-- The story each webhook belongs to (decision 0029, amendment): the correlation of the event it
-- delivers, its cause (that event, or the request that sent a TEST), and the trace context of the
-- work that planned it. The attempts run later, from BullMQ jobs that batch deliveries, so each
-- attempt restores these to log and trace in the event's story. Rows from before stay NULL.
ALTER TABLE deliveries
  ADD COLUMN IF NOT EXISTS correlation_id text,
  ADD COLUMN IF NOT EXISTS causation_id text,
  ADD COLUMN IF NOT EXISTS traceparent text,
  ADD COLUMN IF NOT EXISTS tracestate text;
