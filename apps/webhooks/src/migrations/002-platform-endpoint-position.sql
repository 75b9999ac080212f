-- Two replicas of the webhooks service take the platform events in parallel batches, so an older
-- event (PlatformCreated, no endpoint) can be written after a newer one (the PATCH /config that set
-- it). The platform stream position of the event that last set the endpoint keeps it from going back.
ALTER TABLE platforms ADD COLUMN IF NOT EXISTS endpoint_position integer NOT NULL DEFAULT 0;
