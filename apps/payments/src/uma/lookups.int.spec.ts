// Receiver lookups in the payments service on real PostgreSQL and NATS, with a clock the test
// moves: a lookup's lookupId is good for RECEIVER_LOOKUP_TTL_SECONDS of that clock and no longer,
// is the quoting platform's only, and holds the quote to the receiver's currency and payer data.
// Senders are named by UMA address and funds come in real time, so no other service is needed.
import { type CreateQuoteData, newId, type QuoteWire, type ReceiverUmaLookupWire, subjects } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createControllableClock, domainErrorOf, tokenContext, useServiceApp } from '@corridor/testing';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { LookupEntity } from './lookup-view.projection';

const clock = createControllableClock(new Date('2026-03-01T10:00:00.000Z'));
const platformId = newId('Platform');
const strangerId = newId('Platform');

const payments = useServiceApp({
  service: 'payments',
  defaults: loadConfig({ RECEIVER_LOOKUP_TTL_SECONDS: '120' }),
  overrides: { expirySweepSeconds: 86_400 },
  module: (config) => AppModule.register(config, clock),
});

const call = <Reply>(subject: string, data: unknown, platform = platformId): Promise<Reply> =>
  payments.client.request<Reply>(subject, data, { context: tokenContext(platform), timeoutMs: 30_000 });
const lookup = (receiverUmaAddress: string, platform = platformId) =>
  call<ReceiverUmaLookupWire>(subjects.payments.lookup.uma, { receiverUmaAddress, senderUmaAddress: '$alice@acme.example' }, platform);
const quote = (umaAddress: string, extra: Partial<CreateQuoteData>, platform = platformId) =>
  call<QuoteWire>(
    subjects.payments.quote.create,
    {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: '10000',
      ...extra,
    } satisfies CreateQuoteData,
    platform,
  );

describe('receiver lookups over NATS', () => {
  it('lets a quote cite a lookupId until the lookup’s TTL has passed on the service clock', async () => {
    const found = await lookup('$success.eur@sandbox.uma.money');
    expect(found.supportedCurrencies.map((preference) => preference.currency.code)).toEqual(['EUR']);
    clock.advance(119_999);
    expect((await quote('$success.eur@sandbox.uma.money', { lookupId: found.lookupId })).receivingCurrency.code).toBe('EUR');
    clock.advance(1);
    const expired = await domainErrorOf(quote('$success.eur@sandbox.uma.money', { lookupId: found.lookupId }));
    expect([expired.code, expired.details?.['field']]).toEqual(['INVALID_INPUT', 'lookupId']);
    expect(expired.message).toContain('expired');
  });

  it('keeps a lookupId to the platform that looked up', async () => {
    const found = await lookup('$success.mxn@sandbox.uma.money');
    const foreign = await domainErrorOf(quote('$success.mxn@sandbox.uma.money', { lookupId: found.lookupId }, strangerId));
    expect([foreign.code, foreign.details?.['field']]).toEqual(['INVALID_INPUT', 'lookupId']);
    // The same answer as for a lookup that never existed: nothing tells the two apart.
    const neverId = newId('Lookup');
    const unknown = await domainErrorOf(quote('$success.mxn@sandbox.uma.money', { lookupId: neverId }));
    expect(unknown.message.replace(neverId, '<id>')).toBe(foreign.message.replace(found.lookupId, '<id>'));
  });

  it('pays a provider’s address only with a lookup, in the currency asked, with the payer’s name', async () => {
    const withoutLookup = await domainErrorOf(quote('$ana@andespay.example', {}));
    expect(withoutLookup.message).toContain('GET /receiver/uma/');
    const found = await lookup('$ana@andespay.example');
    expect(found.requiredPayerDataFields).toContainEqual({ name: 'FULL_NAME', mandatory: true });
    const missing = await domainErrorOf(
      quote('$ana@andespay.example', {
        lookupId: found.lookupId,
        destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$ana@andespay.example', currency: 'BRL' },
      }),
    );
    expect(missing.code).toBe('MISSING_MANDATORY_USER_INFO');
    const quoted = await quote('$ana@andespay.example', {
      lookupId: found.lookupId,
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$ana@andespay.example', currency: 'BRL' },
      senderCustomerInfo: { FULL_NAME: 'Alice Sender' },
    });
    expect([quoted.status, quoted.receivingCurrency.code]).toEqual(['PENDING', 'BRL']);
  });

  it('rebuilds the lookups read model from its streams: a lookupId cited after a rebuild still counts', async () => {
    const found = await lookup('$success.usd@sandbox.uma.money');
    const eventSourcing = payments.app.get(EventSourcing);
    const before = await eventSourcing.em.count(LookupEntity, {});
    await eventSourcing.projections.rebuild('receiver-lookups');
    expect(await eventSourcing.em.count(LookupEntity, {})).toBe(before);
    const quoted = await quote('$success.usd@sandbox.uma.money', {
      lookupId: found.lookupId,
      source: { sourceType: 'REALTIME_FUNDING', currency: 'EUR' },
    });
    expect(quoted.receivingCurrency.code).toBe('USD');
  });
});
