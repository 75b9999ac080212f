-- Consents over Embedded Wallet money (decision 0020): a verified stamp of one of the wallet's
-- active sessions leaves one row bound to the wallet and to one operation, and the ledger holds or
-- debits a wallet only on such a row. TRANSACTION rows allow the one hold of that transaction (of
-- at most `amount`) until `expires_at`; CARD rows allow the card's holds and pulls until the card
-- is closed or the wallet unbound (`ended_at`). Plain rows like the rest of the wallet's auth state
-- (decision 0017): a consent is security state, not a movement of money.
CREATE TABLE IF NOT EXISTS wallet_consents (
  account_id text NOT NULL,
  kind text NOT NULL,
  reference text NOT NULL,
  platform_id text NOT NULL,
  consent_id text NOT NULL,
  amount numeric,
  currency text,
  granted_at timestamptz NOT NULL,
  expires_at timestamptz,
  ended_at timestamptz,
  PRIMARY KEY (account_id, kind, reference)
);
-- A card's changes end the consents given for it, found by the card.
CREATE INDEX IF NOT EXISTS wallet_consents_card ON wallet_consents (reference) WHERE kind = 'CARD';
