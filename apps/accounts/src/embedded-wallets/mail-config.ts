import addressparser from 'nodemailer/lib/addressparser';

// The SMTP relay production OTP mail leaves through, read once at bootstrap. Unset SMTP_HOST means
// no relay: production platforms' OTP challenges then answer 503 EMAIL_DELIVERY_UNAVAILABLE.

export type MailAddress = { name: string; address: string };

export type SmtpConfig = {
  /** SMTP_HOST / SMTP_PORT: the relay (587, or 465 with SMTP_SECURE). */
  host: string;
  port: number;
  /** SMTP_SECURE: TLS from the first byte (port 465); otherwise plain SMTP upgraded with STARTTLS. */
  secure: boolean;
  /** SMTP_REQUIRE_TLS: refuse to send when the relay does not offer STARTTLS (default true). */
  requireTls: boolean;
  /** SMTP_USER / SMTP_PASSWORD: AUTH credentials, both or neither. */
  auth: { user: string; pass: string } | null;
  /** MAIL_FROM: the envelope sender of every mail, and the From of platforms that name no sendFromEmailAddress. */
  from: MailAddress;
  /** SMTP_TIMEOUT_MS: connect, greeting and socket inactivity limit, and the whole send's deadline. */
  timeoutMs: number;
};

const flag = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be true or false, got "${env[name]}".`);
};

const portOf = (env: NodeJS.ProcessEnv, secure: boolean): number => {
  const raw = env['SMTP_PORT'];
  if (raw === undefined || raw === '') return secure ? 465 : 587;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`SMTP_PORT must be a port number (1–65535), got "${raw}".`);
  return port;
};

const timeoutOf = (env: NodeJS.ProcessEnv): number => {
  const raw = env['SMTP_TIMEOUT_MS'];
  if (raw === undefined || raw === '') return 10_000;
  const value = Number(raw);
  // At most 15 s: the gateway waits 20 s for the calls that send mail (MAIL_SENDING_TIMEOUT_MS), and must not give up first.
  if (!Number.isInteger(value) || value < 100 || value > 15_000) {
    throw new Error(`SMTP_TIMEOUT_MS must be a whole number of milliseconds from 100 to 15000, got "${raw}".`);
  }
  return value;
};

/** One mailbox, as `addr@host` or `Name <addr@host>`; throws on anything else (a group, a list, no @). */
export const parseMailAddress = (name: string, raw: string | undefined): MailAddress => {
  const parsed = addressparser(raw ?? '', { flatten: true });
  const [first] = parsed;
  if (parsed.length !== 1 || !first || !/^[^\s@]+@[^\s@]+$/.test(first.address)) {
    throw new Error(`${name} must be one email address, as noreply@example.com or "Example <noreply@example.com>", got "${raw ?? ''}".`);
  }
  return { name: first.name, address: first.address };
};

export const parseSmtpConfig = (env: NodeJS.ProcessEnv): SmtpConfig | null => {
  const host = env['SMTP_HOST']?.trim();
  if (!host) return null;
  const secure = flag(env, 'SMTP_SECURE', false);
  const user = env['SMTP_USER'] ?? '';
  const pass = env['SMTP_PASSWORD'] ?? '';
  if ((user === '') !== (pass === '')) {
    throw new Error('SMTP_USER and SMTP_PASSWORD go together: set both for a relay that asks for AUTH, or neither.');
  }
  if (!env['MAIL_FROM']) {
    throw new Error('MAIL_FROM is required with SMTP_HOST: the address OTP mail is sent from (one the relay accepts as sender).');
  }
  return {
    host,
    port: portOf(env, secure),
    secure,
    requireTls: flag(env, 'SMTP_REQUIRE_TLS', true),
    auth: user ? { user, pass } : null,
    from: parseMailAddress('MAIL_FROM', env['MAIL_FROM']),
    timeoutMs: timeoutOf(env),
  };
};
