import { type Command, DomainError, type PayerDataField } from '@corridor/contracts';
import type { CurrencyPreferenceRecord } from './uma-directory';

// A receiver lookup: one small stream per lookup (stream id = the `Lookup:` id), holding what the
// receiver accepted when it was asked, so a quote citing the lookupId is checked against exactly
// that answer (docs/decisions/0010-uma.md). One event; the decider stamps the expiry from the
// command's time.

export type ReceiverLookupRecord = {
  lookupId: string;
  platformId: string;
  kind: 'UMA' | 'EXTERNAL_ACCOUNT';
  receiverUmaAddress?: string;
  accountId?: string;
  senderUmaAddress?: string;
  customerId?: string;
  supportedCurrencies: CurrencyPreferenceRecord[];
  requiredPayerDataFields: PayerDataField[];
  createdAt: string;
  expiresAt: string;
};

export type ReceiverLookedUp = { type: 'ReceiverLookedUp'; data: { lookup: ReceiverLookupRecord } };
export type ReceiverLookupEvent = ReceiverLookedUp;

export type ReceiverLookup = { kind: 'None' } | { kind: 'Recorded'; lookup: ReceiverLookupRecord };

export type RecordLookup = Command<
  'RecordLookup',
  { lookup: Omit<ReceiverLookupRecord, 'createdAt' | 'expiresAt'> },
  { now: Date; ttlSeconds: number }
>;

export const receiverLookupDecider = {
  initialState: (): ReceiverLookup => ({ kind: 'None' }),
  evolve: (_state: ReceiverLookup, event: ReceiverLookupEvent): ReceiverLookup => ({ kind: 'Recorded', lookup: event.data.lookup }),
};

export const recordLookup = (command: RecordLookup, state: ReceiverLookup): ReceiverLookupEvent[] => {
  const { lookup } = command.data;
  if (state.kind !== 'None') throw new DomainError('CONFLICT', 'conflict', `Lookup ${lookup.lookupId} already exists.`);
  if (lookup.supportedCurrencies.length === 0) {
    throw new DomainError('UMA_NOT_FOUND', 'not_found', `The receiver accepts no currency this deployment can send; it cannot be paid.`, {
      lookupId: lookup.lookupId,
    });
  }
  const { now, ttlSeconds } = command.metadata;
  return [
    {
      type: 'ReceiverLookedUp',
      data: { lookup: { ...lookup, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString() } },
    },
  ];
};
