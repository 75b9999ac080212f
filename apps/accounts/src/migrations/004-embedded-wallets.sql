-- Embedded Wallet auth state (decision 0017): credentials, OTPs, sessions and pending signed
-- requests are short-lived security state, kept in plain tables of the accounts schema rather than
-- in the event store, so no secret (OTP, key, mnemonic) ever enters an event. Secrets that must be
-- kept (the wallet mnemonic, an OTP target's private key) are sealed with AES-256-GCM under the
-- key-encryption key; an OTP is stored only as a salted digest.

-- What the wallet policy knows of platforms and customers, from their integration events.
CREATE TABLE IF NOT EXISTS wallet_platforms (
  platform_id text PRIMARY KEY,
  environment text NOT NULL,
  enabled boolean NOT NULL,
  config jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS wallet_customers (
  customer_id text PRIMARY KEY,
  platform_id text NOT NULL,
  email text
);
CREATE INDEX IF NOT EXISTS wallet_customers_platform ON wallet_customers (platform_id);

CREATE TABLE IF NOT EXISTS wallet_keys (
  account_id text PRIMARY KEY,
  platform_id text NOT NULL,
  customer_id text NOT NULL,
  sealed_mnemonic text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS auth_credentials (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  account_id text NOT NULL,
  type text NOT NULL,
  nickname text NOT NULL,
  credential_id text,
  identity jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX IF NOT EXISTS auth_credentials_account ON auth_credentials (account_id, created_at);
CREATE UNIQUE INDEX IF NOT EXISTS auth_credentials_one_email_otp ON auth_credentials (account_id) WHERE type = 'EMAIL_OTP' AND revoked_at IS NULL;
-- A platform-issued passkey registration challenge is single-use.
CREATE UNIQUE INDEX IF NOT EXISTS auth_credentials_registration_challenge ON auth_credentials ((identity->>'registrationChallenge')) WHERE type = 'PASSKEY';

-- The OTP of a credential's latest challenge (a new challenge replaces it).
CREATE TABLE IF NOT EXISTS auth_otps (
  credential_id text PRIMARY KEY,
  target_public text NOT NULL,
  sealed_target_private text NOT NULL,
  otp_digest text NOT NULL,
  otp_salt text NOT NULL,
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE IF NOT EXISTS auth_sessions (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  account_id text NOT NULL,
  credential_id text NOT NULL,
  public_key text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX IF NOT EXISTS auth_sessions_account ON auth_sessions (account_id, expires_at);

CREATE TABLE IF NOT EXISTS wallet_pending_requests (
  request_id text PRIMARY KEY,
  platform_id text NOT NULL,
  account_id text NOT NULL,
  operation text NOT NULL,
  target_id text NOT NULL,
  body_digest text NOT NULL,
  payload_to_sign text NOT NULL,
  bound jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE IF NOT EXISTS auth_attempts (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  window_start timestamptz NOT NULL,
  locked_until timestamptz
);

-- The sandbox's outgoing mail: what a developer or a test reads instead of an inbox. Sandbox platforms only.
CREATE TABLE IF NOT EXISTS wallet_sandbox_mailbox (
  id bigserial PRIMARY KEY,
  platform_id text NOT NULL,
  account_id text NOT NULL,
  to_address text NOT NULL,
  subject text NOT NULL,
  otp_code text NOT NULL,
  sent_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS wallet_sandbox_mailbox_account ON wallet_sandbox_mailbox (account_id, id DESC);
