import { DomainError, isSupportedCurrency } from '@corridor/contracts';
import { SANDBOX_UMA_DOMAIN } from '../quotes/uma-destination';
import type { SenderRecord } from './incoming-payment';

// The sandbox's UMA senders, as the reference documents them (…@sandbox.uma.money):
// $success.<cur> pays, $pending.long.<cur> pays too (the simulator has no slow network), while
// $fail.compliance.<cur> is refused by compliance and $non.existent.<cur> does not exist. The
// sender's currency is the address's suffix. A sandbox sender's institution knows a fixed set of
// facts about its customer: the first three travel with every payment (counterpartyInformation),
// the rest are given when the platform's approval hook asks for them with a 422.

export const UMA_ADDRESS = /^\$([A-Za-z0-9._+-]{1,64})@([A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+)$/;
const SANDBOX_USER = /^(success|pending\.long|fail\.compliance|non\.existent)\.([a-z]{3,5})$/;

/** Sent with every payment. */
const SHARED_FIELDS = ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY'];

const profileOf = (umaAddress: string): Record<string, string> => ({
  FULL_NAME: 'Sandbox Sender',
  BIRTH_DATE: '1985-06-15',
  NATIONALITY: 'US',
  COUNTRY_OF_RESIDENCE: 'US',
  EMAIL: 'sender@sandbox.uma.money',
  PHONE_NUMBER: '+14155550100',
  POSTAL_ADDRESS: '1 Market St, San Francisco, CA 94105, US',
  TAX_ID: '123-45-6789',
  USER_TYPE: 'INDIVIDUAL',
  ACCOUNT_IDENTIFIER: umaAddress,
  ID_TYPE: 'PASSPORT',
  ID_NUMBER: 'X1234567',
  PURPOSE_OF_PAYMENT: 'GIFT',
  ULTIMATE_INSTITUTION_COUNTRY: 'US',
  FI_LEGAL_ENTITY_NAME: 'Sandbox UMA Institution',
  IDENTIFIER: umaAddress,
});

export const invalidUmaAddress = (field: string, value: string) =>
  new DomainError(
    'INVALID_UMA_ADDRESS',
    'validation',
    `${field} must be an UMA address like $alice@example.com, got ${JSON.stringify(value.slice(0, 80))}.`,
    { field },
  );

/** Parses and checks a sandbox sender; refuses anything the simulator cannot pay from. */
export const resolveSandboxSender = (umaAddress: string): SenderRecord => {
  const match = UMA_ADDRESS.exec(umaAddress);
  if (!match) throw invalidUmaAddress('senderUmaAddress', umaAddress);
  const [, user = '', domain = ''] = match;
  if (domain.toLowerCase() !== SANDBOX_UMA_DOMAIN) {
    throw new DomainError(
      'SENDER_NOT_ACCEPTED',
      'validation',
      `senderUmaAddress must be a sandbox sender such as $success.usd@${SANDBOX_UMA_DOMAIN}; ${umaAddress} is not one.`,
      {
        field: 'senderUmaAddress',
      },
    );
  }
  const sandbox = SANDBOX_USER.exec(user.toLowerCase());
  const currency = sandbox?.[2]?.toUpperCase();
  if (!sandbox || !currency || !isSupportedCurrency(currency) || sandbox[1] === 'non.existent') {
    throw new DomainError(
      'SENDER_NOT_ACCEPTED',
      'validation',
      `No sandbox sender answers at ${umaAddress}; use $success.<currency>@${SANDBOX_UMA_DOMAIN}.`,
      { field: 'senderUmaAddress' },
    );
  }
  if (sandbox[1] === 'fail.compliance') {
    throw new DomainError(
      'SENDER_NOT_ACCEPTED',
      'validation',
      `${umaAddress} fails the sender compliance check, so no payment is made from it.`,
      { field: 'senderUmaAddress' },
    );
  }
  return { umaAddress, currency, profile: profileOf(umaAddress) };
};

/** What travels with every payment. */
export const sharedCounterpartyInformation = (sender: SenderRecord): Record<string, string> =>
  Object.fromEntries(
    SHARED_FIELDS.filter((name) => sender.profile[name] !== undefined).map((name) => [name, sender.profile[name] as string]),
  );
