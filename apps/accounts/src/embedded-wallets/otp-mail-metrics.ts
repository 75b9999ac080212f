import { Counter, Registry } from 'prom-client';

/** The OTP mail counter of this process, served by GET /metrics of the common health server. */
export class OtpMailMetrics {
  readonly registry = new Registry();

  readonly mails = new Counter({
    name: 'corridor_embedded_wallet_otp_mails_total',
    help:
      'Embedded Wallet OTP emails by platform environment and outcome: sent, failed (reason connection, timeout, tls, auth, ' +
      'sender, recipient, refused or other; answered 503 EMAIL_DELIVERY_FAILED), unavailable (no mail transport for the environment; 503).',
    labelNames: ['environment', 'outcome', 'reason'],
    registers: [this.registry],
  });
}
