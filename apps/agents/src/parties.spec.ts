// Given what payments answers for its exchange rates, the rate a policy is evaluated at: the
// listed corridor, the reverse one read backwards, or a 400 naming the pair when payments prices
// neither. Only "payments does not price this" may become that 400; any other refusal propagates.
import { DomainError, type ExchangeRateWire, invalidInput } from '@corridor/contracts';
import type { ServiceClient } from '@corridor/messaging';
import { AgentParties } from './parties';

const context = { platformId: 'Platform:p', actor: { kind: 'agent' as const, agentId: 'Agent:a' }, requestId: 'r', correlationId: 'c' };
const corridor = (from: string, to: string, exchangeRate: number) =>
  ({ sourceCurrency: { code: from }, destinationCurrency: { code: to }, exchangeRate }) as unknown as ExchangeRateWire;

/** Parties over a payments that answers each exchange-rate request with `answer(sourceCurrency)`. */
const partiesAnswering = (answer: (sourceCurrency: string) => Promise<unknown>) =>
  new AgentParties({
    request: (_subject: string, data: { sourceCurrency: string }) => answer(data.sourceCurrency),
  } as unknown as ServiceClient);

describe('AgentParties.rate', () => {
  it('reads the listed corridor', async () => {
    // 0.8 USD per EUR: 100 USD cents are 125 EUR cents.
    const parties = partiesAnswering(async () => ({ data: [corridor('USD', 'EUR', 0.8)] }));
    expect(await parties.rate(context, 'USD', 'EUR')).toEqual({ numerator: 10n ** 3n, denominator: 8n * 10n ** 2n });
  });

  it('reads the reverse corridor backwards when only it is listed', async () => {
    const parties = partiesAnswering(async (source) => ({ data: source === 'EUR' ? [corridor('EUR', 'USD', 1.25)] : [] }));
    expect(await parties.rate(context, 'USD', 'EUR')).toEqual({ numerator: 125n * 10n ** 2n, denominator: 10n ** 4n });
  });

  it('is a 400 naming the pair when payments lists no corridor either way', async () => {
    const parties = partiesAnswering(async () => ({ data: [] }));
    await expect(parties.rate(context, 'USD', 'JPY')).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/No exchange rate between USD and JPY/),
    });
  });

  it('is the same 400 when payments exchanges no such currency', async () => {
    const parties = partiesAnswering(async () => {
      throw invalidInput('destinationCurrency "XTS" is not a currency Corridor exchanges.', { field: 'destinationCurrency' });
    });
    await expect(parties.rate(context, 'USD', 'XTS')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/No exchange rate between USD and XTS/),
    });
  });

  it.each([
    [
      'another 400',
      new DomainError('AMOUNT_OUT_OF_RANGE', 'validation', 'sendingAmount is above the most USD a payment can send.', {
        field: 'sendingAmount',
      }),
    ],
    ['an invalid input about something else', invalidInput('limit must be between 1 and 100.', { field: 'limit' })],
    ['a 403', new DomainError('FORBIDDEN', 'forbidden', 'Not for this platform.')],
    ['a 404', new DomainError('REFERENCE_NOT_FOUND', 'not_found', 'Gone.')],
    ['a 503', new DomainError('SERVICE_UNAVAILABLE', 'unavailable', 'Payments is down.')],
  ])('propagates %s from payments unchanged instead of calling it a missing rate', async (_name, refusal) => {
    const parties = partiesAnswering(async () => {
      throw refusal;
    });
    await expect(parties.rate(context, 'USD', 'EUR')).rejects.toBe(refusal);
  });
});
