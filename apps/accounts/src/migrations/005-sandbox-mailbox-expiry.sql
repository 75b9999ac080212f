-- A sandbox mail row holds its OTP in plaintext: it carries the OTP's expiry, and a sweep deletes
-- it once that has passed (decision 0017). Rows from before this migration get the longest OTP
-- lifetime a platform can configure (86400 s), so their OTPs have surely expired when they go.
ALTER TABLE wallet_sandbox_mailbox ADD COLUMN IF NOT EXISTS expires_at timestamptz;
UPDATE wallet_sandbox_mailbox SET expires_at = sent_at + interval '86400 seconds' WHERE expires_at IS NULL;
ALTER TABLE wallet_sandbox_mailbox ALTER COLUMN expires_at SET NOT NULL;
CREATE INDEX IF NOT EXISTS wallet_sandbox_mailbox_expiry ON wallet_sandbox_mailbox (expires_at);
