// Settings of incoming payments (environment; see the README):
//   INCOMING_APPROVAL_WINDOW_SECONDS  how long the platform has to approve or reject after a 202
//                                     (the reference's 5 s)
//   INCOMING_WEBHOOK_ANSWER_SECONDS   how long the approval webhook's answer may take to be
//                                     reported before the payment fails PAYMENT_APPROVAL_WEBHOOK_ERROR
//                                     (covers a receiver that never answers, or the webhooks service
//                                     being down; a platform with no webhook endpoint is approved at
//                                     once instead, docs/decisions/0023)
//   INCOMING_SETTLE_RETRY_SECONDS     after an approval, when a deposit not yet confirmed is retried
//   INCOMING_SWEEP_MS                 how often the timers are swept

export type IncomingOptions = { approvalWindowSeconds: number; webhookAnswerSeconds: number; settleRetrySeconds: number; sweepMs: number };
export const INCOMING_OPTIONS = 'INCOMING_OPTIONS';

const whole = (name: string, value: string | undefined, fallback: number, max: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max)
    throw new Error(`${name} must be a whole number from 1 to ${max}, got "${value}".`);
  return parsed;
};

export const loadIncomingOptions = (env: NodeJS.ProcessEnv = process.env): IncomingOptions => ({
  approvalWindowSeconds: whole('INCOMING_APPROVAL_WINDOW_SECONDS', env['INCOMING_APPROVAL_WINDOW_SECONDS'], 5, 86_400),
  webhookAnswerSeconds: whole('INCOMING_WEBHOOK_ANSWER_SECONDS', env['INCOMING_WEBHOOK_ANSWER_SECONDS'], 60, 86_400),
  settleRetrySeconds: whole('INCOMING_SETTLE_RETRY_SECONDS', env['INCOMING_SETTLE_RETRY_SECONDS'], 10, 86_400),
  sweepMs: whole('INCOMING_SWEEP_MS', env['INCOMING_SWEEP_MS'], 1_000, 60_000),
});
