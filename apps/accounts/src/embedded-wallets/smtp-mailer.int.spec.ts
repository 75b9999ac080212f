// The SMTP adapter of the OTP mail port against a real SMTP server on loopback (smtp-server): what
// the relay receives (envelope, sender, reply-to, subject, the code in the text), the AUTH it is
// given, and each way a send fails named by its reason, with /health degraded until a send succeeds.
import { createServer, type Server } from 'node:net';
import { startTestSmtpServer, type TestSmtpServer } from '@corridor/testing';
import type { SmtpConfig } from './mail-config';
import { composeOtpMail, MailDeliveryError, type OtpMail } from './otp-mail';
import { SmtpMailer } from './smtp-mailer';

const credentials = { user: 'corridor', pass: 'relay-secret' };
const refusedRecipient = 'bounce@example.com';
const refusedSender = 'not-ours@elsewhere.test';
const unverifiedPlatformSender = 'noreply@unverified.test';
let relay: TestSmtpServer;
const mailers: SmtpMailer[] = [];

beforeAll(async () => {
  relay = await startTestSmtpServer({
    credentials,
    refuseRecipient: (address) => address === refusedRecipient,
    refuseSender: (address) => address === refusedSender,
    refuseFromHeader: (from) => from.includes(unverifiedPlatformSender),
  });
});

afterAll(async () => {
  for (const mailer of mailers) mailer.onApplicationShutdown();
  await relay?.close();
});

const mailerWith = (overrides: Partial<SmtpConfig> = {}): SmtpMailer => {
  const mailer = new SmtpMailer({
    host: '127.0.0.1',
    port: relay.port,
    secure: false,
    requireTls: false,
    auth: credentials,
    from: { name: '', address: 'otp@corridor.test' },
    timeoutMs: 5_000,
    ...overrides,
  });
  mailers.push(mailer);
  return mailer;
};

let mails = 0;
const otpMail = (branding: Parameters<typeof composeOtpMail>[0], to = `customer.${(mails += 1)}@example.com`): OtpMail => {
  const otp = { otpCode: `${100000 + mails}`, sentAt: new Date('2026-11-27T12:00:00Z'), expiresAt: new Date('2026-11-27T12:05:00Z') };
  return { platformId: 'Platform:1', accountId: 'InternalAccount:1', to, ...otp, ...composeOtpMail(branding, otp) };
};

const failureOf = async (mailer: SmtpMailer, mail: OtpMail): Promise<MailDeliveryError> => {
  const error = await mailer.send(mail).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MailDeliveryError);
  return error as MailDeliveryError;
};

describe('a mail the relay takes', () => {
  it(
    'given a platform’s sender and branding, then the relay receives it from that sender, the envelope from MAIL_FROM, with the code ' +
      'in the text',
    async () => {
      const mail = otpMail({
        appName: 'Acme Wallet',
        sendFromEmailAddress: 'noreply@acme.test',
        sendFromEmailSenderName: 'Acme Notifications',
        replyToEmailAddress: 'support@acme.test',
      });
      await mailerWith().send(mail);
      const received = await relay.mailTo(mail.to);
      expect(received.envelope).toEqual({ from: 'otp@corridor.test', to: [mail.to] });
      expect(received.headers).toMatchObject({
        from: 'Acme Notifications <noreply@acme.test>',
        'reply-to': 'support@acme.test',
        to: mail.to,
        subject: 'Acme Wallet sign-in code',
        'auto-submitted': 'auto-generated',
      });
      expect(received.text.split('\n')).toContain(mail.otpCode);
      expect(relay.logins).toContain('corridor');
    },
  );

  it('given a platform without a sender, then the mail is from MAIL_FROM under the reference’s default name', async () => {
    const mail = otpMail({});
    await mailerWith().send(mail);
    const received = await relay.mailTo(mail.to);
    expect(received.headers['from']).toBe('Notifications <otp@corridor.test>');
    expect(received.headers['reply-to']).toBeUndefined();
    expect(received.headers['subject']).toBe('Your wallet sign-in code');
  });
});

describe('a mail that does not leave', () => {
  it('given a recipient the relay refuses, then the reason is recipient, and the address is not in the detail', async () => {
    const failure = await failureOf(mailerWith(), otpMail({}, refusedRecipient));
    expect(failure.reason).toBe('recipient');
    expect(failure.detail).toMatch(/550/);
    expect(failure.detail).not.toContain(refusedRecipient);
  });

  it('given a MAIL_FROM the relay refuses at MAIL FROM, then the reason is sender', async () => {
    const failure = await failureOf(mailerWith({ from: { name: '', address: refusedSender } }), otpMail({}));
    expect([failure.reason, failure.detail]).toEqual(['sender', expect.stringMatching(/553/)]);
  });

  it(
    'given a platform sender the relay refuses after DATA (as relays that check From identities do), ' + 'then the reason is refused',
    async () => {
      const mail = otpMail({ sendFromEmailAddress: unverifiedPlatformSender });
      const failure = await failureOf(mailerWith(), mail);
      expect([failure.reason, failure.detail]).toEqual(['refused', expect.stringMatching(/554/)]);
      expect(relay.received.some((received) => received.envelope.to.includes(mail.to))).toBe(false);
    },
  );

  it('given a wrong password, then the reason is auth, and the password is not in the detail', async () => {
    const failure = await failureOf(mailerWith({ auth: { user: 'corridor', pass: 'wrong-password' } }), otpMail({}));
    expect(failure.reason).toBe('auth');
    expect(failure.detail).not.toContain('wrong-password');
  });

  it('given SMTP_REQUIRE_TLS and a relay without STARTTLS, then the reason is tls and nothing is sent in the clear', async () => {
    const mail = otpMail({});
    const failure = await failureOf(mailerWith({ requireTls: true }), mail);
    expect(failure.reason).toBe('tls');
    expect(relay.received.some((received) => received.envelope.to.includes(mail.to))).toBe(false);
  });

  it('given nothing listening, then the reason is connection', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    expect((await failureOf(mailerWith({ port: closed }), otpMail({}))).reason).toBe('connection');
  });

  it('given a relay that never greets, then the send ends at SMTP_TIMEOUT_MS with the reason timeout', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const failure = await failureOf(mailerWith({ port: (silent.address() as { port: number }).port, timeoutMs: 300 }), otpMail({}));
      expect(failure.reason).toBe('timeout');
    } finally {
      silent.close();
    }
  });

  it('keeps /health degraded with the reason while the last send failed, and ok again after a success', async () => {
    const mailer = mailerWith();
    expect(mailer.health()).toMatchObject({ status: 'ok', transport: 'smtp' });
    await failureOf(mailer, otpMail({}, refusedRecipient));
    expect(mailer.health()).toMatchObject({ status: 'degraded', reason: 'recipient', error: expect.stringMatching(/550/) });
    await mailer.send(otpMail({}));
    expect(mailer.health()).toMatchObject({ status: 'ok', lastSentAt: expect.any(String) });
    expect(mailer.health()['reason']).toBeUndefined();
  });
});
