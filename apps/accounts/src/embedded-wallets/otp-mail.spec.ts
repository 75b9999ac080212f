// The OTP email a platform's embeddedWalletConfig composes (sender, reply-to, subject, bodies, the
// logo only from an http(s) URL, nothing a header or HTML could be broken with), the reason a
// transport failure is given, and the 503 message that says whose move it is.
import { composeOtpMail, deliveryFailureMessage, expiresInWords } from './otp-mail';
import { deliveryFailureOf, senderOf } from './smtp-mailer';

const otp = { otpCode: '48213377', sentAt: new Date('2026-11-27T12:00:00Z'), expiresAt: new Date('2026-11-27T12:05:00Z') };

describe('composeOtpMail', () => {
  it('given the reference’s example config, then the platform’s sender, reply-to and app name, and the code on a line of its own', () => {
    const mail = composeOtpMail(
      {
        appName: 'Acme Wallet',
        sendFromEmailAddress: 'noreply@acme.com',
        sendFromEmailSenderName: 'Acme Notifications',
        replyToEmailAddress: 'support@acme.com',
        logoUrl: 'https://acme.com/logo.png',
      },
      otp,
    );
    expect(mail).toMatchObject({
      from: { name: 'Acme Notifications', address: 'noreply@acme.com' },
      replyTo: 'support@acme.com',
      subject: 'Acme Wallet sign-in code',
    });
    expect(mail.text.split('\n')).toContain('48213377');
    expect(mail.text).toContain('It expires in 5 minutes.');
    expect(mail.html).toContain('<img src="https://acme.com/logo.png" alt="Acme Wallet"');
    expect(mail.html).toContain('>48213377</p>');
  });

  it('given nothing, then the reference’s default sender name, the deployment’s address (null), no reply-to and no logo', () => {
    const mail = composeOtpMail({}, otp);
    expect(mail).toMatchObject({ from: { name: 'Notifications', address: null }, replyTo: null, subject: 'Your wallet sign-in code' });
    expect(mail.html).not.toContain('<img');
  });

  it('given line breaks in the app or sender name, then they become spaces: no header can be added through them', () => {
    const mail = composeOtpMail({ appName: 'Acme\r\nBcc: victim@example.com', sendFromEmailSenderName: 'Acme\nX-Evil: 1' }, otp);
    expect(mail.subject).toBe('Acme Bcc: victim@example.com sign-in code');
    expect(mail.from.name).toBe('Acme X-Evil: 1');
  });

  it('given markup in the app name and a logo URL with a quote, then both are escaped in the HTML', () => {
    const mail = composeOtpMail({ appName: '<script>alert(1)</script>', logoUrl: 'https://acme.com/logo.png?a="><script>' }, otp);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it.each(['javascript:alert(1)', 'data:image/png;base64,AAAA', '/logo.png', 'not a url'])(
    'given the logo %s, then the mail has no image',
    (logoUrl) => {
      expect(composeOtpMail({ logoUrl }, otp).html).not.toContain('<img');
    },
  );

  it.each([
    [60, '60 seconds'],
    [300, '5 minutes'],
    [86_400, '24 hours'],
  ])('given %i seconds of validity, then "%s"', (seconds, words) => expect(expiresInWords(seconds)).toBe(words));
});

describe('senderOf', () => {
  const config = { from: { name: '', address: 'otp@corridor.test' } };
  it('given a platform address, then it', () =>
    expect(senderOf({ from: { name: 'Acme', address: 'noreply@acme.com' } }, config)).toEqual({
      name: 'Acme',
      address: 'noreply@acme.com',
    }));
  it('given none, then MAIL_FROM under the platform’s name', () =>
    expect(senderOf({ from: { name: 'Notifications', address: null } }, config)).toEqual({
      name: 'Notifications',
      address: 'otp@corridor.test',
    }));
});

describe('deliveryFailureOf', () => {
  const error = (fields: Record<string, unknown>) => Object.assign(new Error(String(fields['message'] ?? 'failed')), fields);

  it.each([
    [{ code: 'ECONNECTION', originalCode: 'ECONNREFUSED' }, 'connection'],
    [{ code: 'ESOCKET' }, 'connection'],
    [{ code: 'EDNS' }, 'connection'],
    [{ code: 'ETIMEDOUT' }, 'timeout'],
    [{ code: 'ECONNECTION', originalCode: 'ETIMEDOUT' }, 'timeout'],
    [{ code: 'ETLS' }, 'tls'],
    [{ code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535 }, 'auth'],
    [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 553 }, 'sender'],
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550 }, 'recipient'],
    [{ code: 'EENVELOPE', command: 'API', message: 'Invalid recipient "x"' }, 'recipient'],
    [{ code: 'EENVELOPE', command: 'DATA', responseCode: 554 }, 'refused'],
    [{ code: 'EMESSAGE', command: 'DATA' }, 'refused'],
    [{}, 'other'],
  ])('given nodemailer’s %o, then %s', (fields, reason) => expect(deliveryFailureOf(error(fields)).reason).toBe(reason));

  it('given an error that names addresses, then the detail keeps the code and command and drops the addresses', () => {
    const { detail } = deliveryFailureOf(
      error({
        code: 'EENVELOPE',
        command: 'RCPT TO',
        message: "Can't send mail - all recipients were rejected: 550 <jane.doe@example.com>: mailbox unavailable",
      }),
    );
    expect(detail).toBe("EENVELOPE at RCPT TO: Can't send mail - all recipients were rejected: 550 <address> mailbox unavailable");
  });
});

describe('deliveryFailureMessage', () => {
  it('given a message refused while the platform names its own sender, then it names that sender and the setting to change', () => {
    expect(deliveryFailureMessage('refused', 'noreply@acme.com')).toMatch(/sendFromEmailAddress \(noreply@acme\.com\).*PATCH \/config/);
  });

  it('given a relay that cannot be reached, then it tells the client to ask again and the operator what to check', () => {
    expect(deliveryFailureMessage('connection', null)).toMatch(/could not be reached.*new code.*SMTP_\*/);
  });

  it('given a refused recipient, then it points at the customer’s email', () =>
    expect(deliveryFailureMessage('recipient', null)).toMatch(/customer's email/));
});
