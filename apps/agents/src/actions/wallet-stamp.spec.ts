// Given a quote, which wallet and payload its execution must be stamped over: a quote from an
// Embedded Wallet names its payloadToSign; any other source needs no stamp.
import type { QuoteWire } from '@corridor/contracts';
import { walletStampTargetOf } from './wallet-stamp';

const quote = (overrides: Partial<QuoteWire>): QuoteWire =>
  ({ id: 'Quote:q', source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:w' }, ...overrides }) as QuoteWire;

describe('walletStampTargetOf', () => {
  it('a quote from an Embedded Wallet is stamped over its payloadToSign, for its source wallet', () => {
    const paymentInstructions = [{ accountOrWalletInfo: { accountType: 'EMBEDDED_WALLET', payloadToSign: '{"quote":"q"}' } }];
    expect(walletStampTargetOf(quote({ paymentInstructions }))).toEqual({ accountId: 'InternalAccount:w', payloadToSign: '{"quote":"q"}' });
  });
  it('a quote from any other internal account needs no stamp', () => {
    expect(walletStampTargetOf(quote({}))).toBeUndefined();
    expect(
      walletStampTargetOf(quote({ paymentInstructions: [{ accountOrWalletInfo: { accountType: 'USD_ACCOUNT', accountNumber: '1' } }] })),
    ).toBeUndefined();
  });
  it('a real-time funded quote needs no stamp', () => {
    const paymentInstructions = [{ accountOrWalletInfo: { accountType: 'EMBEDDED_WALLET', payloadToSign: 'p' } }];
    expect(
      walletStampTargetOf(quote({ source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' }, paymentInstructions })),
    ).toBeUndefined();
  });
});
