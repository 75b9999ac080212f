-- The webhooks service's own state: what it knows of each platform (endpoint), the platforms'
-- signing keys, and the delivery log. Nothing here is event-sourced; the log is the record.

CREATE TABLE platforms (
  platform_id text PRIMARY KEY,
  environment text,
  webhook_endpoint text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One ACTIVE key per platform; rotated keys stay as RETIRED so a receiver mid-rotation can be helped.
CREATE TABLE signing_keys (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  public_key_pem text NOT NULL,
  -- AES-256-GCM: base64(iv || tag || ciphertext) of the PKCS#8 PEM.
  private_key_encrypted text NOT NULL,
  status text NOT NULL CHECK (status IN ('ACTIVE', 'RETIRED')),
  created_at timestamptz NOT NULL,
  retired_at timestamptz
);
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys (platform_id) WHERE status = 'ACTIVE';

-- One row per (event, platform): the UNIQUE constraint is what keeps a redelivered event from
-- ever being enqueued twice, even after BullMQ has removed the finished job.
CREATE TABLE deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL,
  platform_id text NOT NULL,
  type text NOT NULL,
  resource_id text NOT NULL,
  stream_position bigint NOT NULL,
  body text NOT NULL,
  retried boolean NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until timestamptz,
  last_status_code integer,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  first_attempt_at timestamptz,
  delivered_at timestamptz,
  failed_at timestamptz,
  UNIQUE (event_id, platform_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX deliveries_pending_resource ON deliveries (platform_id, resource_id, stream_position) WHERE status = 'PENDING';
CREATE INDEX deliveries_resource ON deliveries (platform_id, resource_id, created_at, id);
CREATE INDEX deliveries_platform_created ON deliveries (platform_id, created_at, id);

CREATE TABLE delivery_attempts (
  delivery_id text NOT NULL REFERENCES deliveries (id),
  attempt integer NOT NULL,
  at timestamptz NOT NULL,
  url text NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);

-- Same shape as @corridor/messaging's processed store, so the consumer marks an event handled in
-- the same transaction as the delivery rows it produced.
CREATE TABLE IF NOT EXISTS processed_messages (
  consumer text NOT NULL,
  msg_id text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, msg_id)
);
