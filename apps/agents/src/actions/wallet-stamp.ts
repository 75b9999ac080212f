import type { QuoteWire } from '@corridor/contracts';

// A quote paid from an Embedded Wallet executes only with a stamp (Grid-Wallet-Signature) by one
// of the wallet's active sessions over the payloadToSign in the quote's payment instructions. An
// agent holds no wallet key: it passes on a stamp the customer's device made. Payments checks the
// stamp when the quote executes; the agents service checks it first, before it reserves any usage
// or records any action, so a missing or bad stamp is the platform route's 401 and changes nothing.
// The stamp then travels in the action, because an action held for approval executes later.

/** What the stamp of a wallet-sourced quote must cover. */
export type WalletStampTarget = { accountId: string; payloadToSign: string };

/** The wallet and payload a quote's execution must be stamped over; undefined for a quote from any other internal account. */
export const walletStampTargetOf = (quote: QuoteWire): WalletStampTarget | undefined => {
  if (quote.source.sourceType !== 'ACCOUNT') return undefined;
  const instruction = quote.paymentInstructions?.find((candidate) => candidate.accountOrWalletInfo.accountType === 'EMBEDDED_WALLET');
  const payloadToSign = instruction?.accountOrWalletInfo['payloadToSign'];
  return typeof payloadToSign === 'string' ? { accountId: quote.source.accountId, payloadToSign } : undefined;
};
