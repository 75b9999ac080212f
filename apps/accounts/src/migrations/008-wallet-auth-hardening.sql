-- Wallet authentication hardening (decision 0021).
-- Locks in a row grow longer: the count of locks a key has served is kept with its window.
ALTER TABLE auth_attempts ADD COLUMN IF NOT EXISTS locks integer NOT NULL DEFAULT 0;
-- OTP digests are now an HMAC under a key derived from the key-encryption key, not sha256(salt:code).
-- An OTP lives minutes (expirationSeconds, 300 by default), so the rows written the old way are not
-- carried over: they are used up here, and a customer in the middle of a sign-in asks for a new code.
UPDATE auth_otps SET used_at = now() WHERE used_at IS NULL;
