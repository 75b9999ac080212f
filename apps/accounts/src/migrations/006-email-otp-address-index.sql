-- A wallet customer's email change is refused (409 EMAIL_OTP_EMAIL_ALREADY_EXISTS) when another
-- wallet's EMAIL_OTP credential of the platform has the address; this finds it without a scan.
CREATE INDEX IF NOT EXISTS auth_credentials_email_otp_address ON auth_credentials (platform_id, lower(nickname)) WHERE type = 'EMAIL_OTP' AND revoked_at IS NULL;
