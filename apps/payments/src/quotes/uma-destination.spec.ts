// Which UMA destinations a quote accepts without a receiver lookup.
import { DomainError } from '@corridor/contracts';
import { resolveUmaDestination } from './uma-destination';

const refusal = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('Expected a refusal.');
};

describe('resolveUmaDestination', () => {
  it.each([
    ['$success.eur@sandbox.uma.money', 'EUR'],
    ['$success.mxn@sandbox.uma.money', 'MXN'],
    ['$pending.long.usd@sandbox.uma.money', 'USD'],
    ['$fail.compliance.usd@sandbox.uma.money', 'USD'],
  ])('pays the sandbox address %s in %s', (address, currency) => {
    expect(resolveUmaDestination(address, undefined)).toEqual({ umaAddress: address, currency });
    expect(resolveUmaDestination(address, currency)).toEqual({ umaAddress: address, currency });
  });

  it.each(['success.eur@sandbox.uma.money', '$@sandbox.uma.money', '$a b@sandbox.uma.money', '$name@localhost', '$name'])(
    'refuses the malformed address %j',
    (address) => {
      const error = refusal(() => resolveUmaDestination(address, undefined));
      expect([error.code, error.status, error.details?.['field']]).toEqual(['INVALID_UMA_ADDRESS', 400, 'destination.umaAddress']);
    },
  );

  it('answers that nobody receives at the sandbox non-existent address', () => {
    const error = refusal(() => resolveUmaDestination('$non.existent.usd@sandbox.uma.money', undefined));
    expect([error.code, error.details?.['field']]).toEqual(['INVALID_RECEIVER', 'destination.umaAddress']);
  });

  it('says that another domain needs a receiver lookup first', () => {
    const error = refusal(() => resolveUmaDestination('$alice@bank.example.com', 'EUR'));
    expect([error.code, error.details?.['field']]).toEqual(['INVALID_INPUT', 'destination.umaAddress']);
    expect(error.message).toContain('receiver lookup');
  });

  it('refuses a currency the address does not receive', () => {
    const error = refusal(() => resolveUmaDestination('$success.eur@sandbox.uma.money', 'MXN'));
    expect([error.code, error.details?.['field']]).toEqual(['INVALID_INPUT', 'destination.currency']);
  });
});
