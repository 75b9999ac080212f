// NATS message data of quote execution (POST /quotes/{id}/execute, POST /sandbox/send).

/** walletSignature: the Grid-Wallet-Signature header, required when the quote's source is an Embedded Wallet. */
export type ExecuteQuoteData = { quoteId: string; walletSignature?: string };

/** POST /sandbox/send: the funds a REALTIME_FUNDING quote asked for arrive. */
export type SandboxSendData = {
  quoteId: string;
  currencyCode: string;
  /** Minor units as a decimal string; the quote's totalSendingAmount when absent. */
  currencyAmount?: string;
};
