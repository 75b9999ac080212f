import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

// A real SMTP server on loopback (the maintained npm `smtp-server`), for the tests of the SMTP
// adapter of the Embedded Wallet mail port: it speaks the protocol a relay does (EHLO, AUTH, MAIL
// FROM, RCPT TO, DATA), keeps what it received and refuses what a test asks it to.

export type ReceivedMail = {
  envelope: { from: string; to: string[] };
  /** Header names in lower case, folded lines joined. */
  headers: Record<string, string>;
  /** The text/plain part, quoted-printable or base64 decoded. */
  text: string;
  raw: string;
};

export type TestSmtpServer = {
  port: number;
  received: ReceivedMail[];
  /** Logins the server accepted, as `user`. */
  logins: string[];
  /** Resolves with the first mail (already received or still to come) to this address. */
  mailTo(address: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
};

export type TestSmtpOptions = {
  /** AUTH the server requires (PLAIN/LOGIN without TLS, as `allowInsecureAuth`); none when omitted. */
  credentials?: { user: string; pass: string };
  /** Recipients refused at RCPT TO with 550, and senders refused at MAIL FROM with 553. */
  refuseRecipient?: (address: string) => boolean;
  refuseSender?: (address: string) => boolean;
  /** Messages refused after DATA with 554 by their From header, as relays that check sender identities do. */
  refuseFromHeader?: (from: string) => boolean;
};

const parseHeaders = (block: string): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
};

/** The part's text with line breaks as \n, whatever its transfer encoding. */
const decodeBody = (body: string, encoding: string | undefined): string => {
  const decoded = (): string => {
    if (encoding?.toLowerCase() === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    if (encoding?.toLowerCase() !== 'quoted-printable') return body;
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  };
  return decoded().replace(/\r\n/g, '\n');
};

/** The headers and text/plain part of a message, enough for a test to read what a person would. */
export const parseMail = (raw: string): Pick<ReceivedMail, 'headers' | 'text'> => {
  const split = raw.indexOf('\r\n\r\n');
  const headers = parseHeaders(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (!boundary) return { headers, text: decodeBody(body, headers['content-transfer-encoding']) };
  for (const part of body.split(`--${boundary}`)) {
    const partSplit = part.indexOf('\r\n\r\n');
    if (partSplit < 0) continue;
    const partHeaders = parseHeaders(part.slice(0, partSplit).replace(/^\r\n/, ''));
    if ((partHeaders['content-type'] ?? '').toLowerCase().startsWith('text/plain')) {
      return { headers, text: decodeBody(part.slice(partSplit + 4).replace(/\r\n$/, ''), partHeaders['content-transfer-encoding']) };
    }
  }
  return { headers, text: '' };
};

const smtpError = (message: string, responseCode: number): Error => Object.assign(new Error(message), { responseCode });

/** What the server received so far, and the tests still waiting for a mail to an address. */
type Mailbox = {
  received: ReceivedMail[];
  logins: string[];
  waiting: { address: string; resolve: (mail: ReceivedMail) => void }[];
};

export const startTestSmtpServer = async (options: TestSmtpOptions = {}): Promise<TestSmtpServer> => {
  const mailbox: Mailbox = { received: [], logins: [], waiting: [] };
  const server = new SMTPServer(smtpServerOptions(options, mailbox));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received: mailbox.received,
    logins: mailbox.logins,
    mailTo: (address, timeoutMs = 10_000) => mailTo(mailbox, address, timeoutMs),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const smtpServerOptions = (options: TestSmtpOptions, mailbox: Mailbox): SMTPServerOptions => ({
  // No TLS on loopback: the adapter's test runs with SMTP_REQUIRE_TLS=false, as it would behind a trusted sidecar.
  disabledCommands: options.credentials ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
  allowInsecureAuth: true,
  authOptional: !options.credentials,
  logger: false,
  onAuth(auth, _session, callback) {
    const { credentials } = options;
    if (!credentials || auth.username !== credentials.user || auth.password !== credentials.pass)
      return callback(smtpError('Invalid username or password', 535));
    mailbox.logins.push(auth.username ?? '');
    return callback(null, { user: auth.username });
  },
  onMailFrom(address, _session, callback) {
    if (options.refuseSender?.(address.address)) return callback(smtpError('Sender address rejected: not owned by user', 553));
    return callback();
  },
  onRcptTo(address, _session, callback) {
    if (options.refuseRecipient?.(address.address)) return callback(smtpError('Recipient address rejected: mailbox unavailable', 550));
    return callback();
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const mailFrom = session.envelope.mailFrom;
      const mail: ReceivedMail = {
        envelope: { from: mailFrom ? mailFrom.address : '', to: session.envelope.rcptTo.map((to) => to.address) },
        raw,
        ...parseMail(raw),
      };
      if (options.refuseFromHeader?.(mail.headers['from'] ?? ''))
        return callback(smtpError('Message rejected: Email address is not verified', 554));
      deliver(mailbox, mail);
      callback();
    });
  },
});

/** Keeps the mail and answers the tests waiting for one of its recipients. */
const deliver = (mailbox: Mailbox, mail: ReceivedMail): void => {
  mailbox.received.push(mail);
  for (const waiter of mailbox.waiting.filter((item) => mail.envelope.to.includes(item.address))) {
    mailbox.waiting.splice(mailbox.waiting.indexOf(waiter), 1);
    waiter.resolve(mail);
  }
};

const mailTo = (mailbox: Mailbox, address: string, timeoutMs: number): Promise<ReceivedMail> => {
  const already = mailbox.received.find((mail) => mail.envelope.to.includes(address));
  if (already) return Promise.resolve(already);
  return new Promise<ReceivedMail>((resolve, reject) => {
    const timer = setTimeout(() => {
      const recipients = mailbox.received.flatMap((mail) => mail.envelope.to).join(', ') || 'nobody';
      reject(new Error(`No mail to ${address} within ${timeoutMs} ms; received mail to ${recipients}.`));
    }, timeoutMs);
    mailbox.waiting.push({ address, resolve: (mail) => (clearTimeout(timer), resolve(mail)) });
  });
};
