// Settings of incoming payments, read from the environment in ../config.ts (see the README):
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
