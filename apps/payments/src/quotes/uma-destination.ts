import { DomainError, invalidInput, isSupportedCurrency, parseUmaAddress, SANDBOX_UMA_DOMAIN } from '@corridor/contracts';

// UMA destinations: the address must be `$name@domain`. Without a lookupId only the reference's
// sandbox addresses (…@sandbox.uma.money) can be paid, because their behaviour and currency are
// known without asking the receiver's institution; any other domain needs a receiver lookup first
// (GET /receiver/uma/{address}), and the quote cites its lookupId (docs/decisions/0010-uma.md).

export { SANDBOX_UMA_DOMAIN };
/** success.usd, pending.long.usd, fail.compliance.usd, non.existent.usd … as the reference documents them. */
const SANDBOX_USER = /^(success|pending\.long|fail\.compliance|non\.existent)\.([a-z]{3,5})$/;

export type UmaDestination = { umaAddress: string; currency: string };

/** lookedUp: the quote cites a receiver lookup, which vouches for the receiver; only the address's shape is checked here. */
export const resolveUmaDestination = (
  umaAddress: string,
  requestedCurrency: string | undefined,
  options: { lookedUp?: boolean } = {},
): UmaDestination => {
  const parts = parseUmaAddress(umaAddress);
  if (!parts) {
    throw new DomainError(
      'INVALID_UMA_ADDRESS',
      'validation',
      `destination.umaAddress must look like $name@domain.com, got ${JSON.stringify(umaAddress.slice(0, 80))}.`,
      {
        field: 'destination.umaAddress',
      },
    );
  }
  const { user, domain } = parts;
  if (options.lookedUp) return { umaAddress, currency: requestedCurrency ?? '' };
  if (domain.toLowerCase() !== SANDBOX_UMA_DOMAIN) {
    throw invalidInput(
      `Paying ${umaAddress} needs a receiver lookup: call GET /receiver/uma/{receiverUmaAddress} and pass its lookupId with the quote. ` +
        `Only sandbox addresses such as $success.eur@${SANDBOX_UMA_DOMAIN} can be quoted without one.`,
      {
        field: 'destination.umaAddress',
      },
    );
  }
  const sandbox = SANDBOX_USER.exec(user.toLowerCase());
  const currency = sandbox?.[2]?.toUpperCase();
  if (!sandbox || !currency || !isSupportedCurrency(currency) || sandbox[1] === 'non.existent') {
    throw new DomainError('INVALID_RECEIVER', 'validation', `No receiver answers at ${umaAddress}.`, { field: 'destination.umaAddress' });
  }
  if (requestedCurrency !== undefined && requestedCurrency !== currency) {
    throw invalidInput(
      `${umaAddress} receives ${currency}, not ${requestedCurrency}. Leave destination.currency out or set it to ${currency}.`,
      { field: 'destination.currency' },
    );
  }
  return { umaAddress, currency };
};
