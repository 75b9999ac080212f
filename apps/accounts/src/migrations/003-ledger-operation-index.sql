-- The compact index behind the ledger's bounded operation window (docs/decisions/0018): an
-- account's state remembers only its last LEDGER_OPERATION_WINDOW operation ids and closed holds,
-- and a command naming an older id is answered from the account's own events, found through these
-- indexes. They are written by the append's own statement, so there is no moment at which an
-- event is committed but not yet findable (no crash window, nothing to catch up).
-- The events table exists already: EventSourcing creates the store's tables before migrating.
CREATE INDEX IF NOT EXISTS events_operation_id ON events (stream_id, (data->>'operationId')) WHERE data ? 'operationId';
CREATE INDEX IF NOT EXISTS events_hold_id ON events (stream_id, (data->>'holdId')) WHERE data ? 'holdId';
