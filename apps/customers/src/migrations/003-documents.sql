-- Read models of issue 7, parts 3-4 (documents, hosted KYC links). Written only by their
-- projections; rebuildable from customers.events. File contents are in the blob store, not here.
CREATE TABLE IF NOT EXISTS documents (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  platform_id text NOT NULL,
  document_holder text NOT NULL,
  document_type text NOT NULL,
  side text,
  country text NOT NULL,
  document_number text,
  issuing_authority text,
  file_name text NOT NULL,
  blob_key text NOT NULL,
  size_bytes integer NOT NULL,
  sha256 text NOT NULL,
  content_type text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Pages newest first on (created_at, id), for the platform or for one holder.
CREATE INDEX IF NOT EXISTS documents_platform_page ON documents (platform_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS documents_holder_page ON documents (platform_id, document_holder, created_at DESC, id DESC);

-- Hosted KYC links, found by the SHA-256 of their token (the token itself is never stored).
CREATE TABLE IF NOT EXISTS kyc_links (
  id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  customer_id text NOT NULL,
  customer_type text NOT NULL,
  platform_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  redirect_uri text,
  used_at timestamptz,
  decision text
);
