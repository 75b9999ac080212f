// Which store a service's events live in, from its environment (docs/decisions/0036).
import { describeEventStore, eventStoreChoiceFrom, serviceStreamPrefix } from './store-selection';

const url = 'kurrentdb://admin:changeit@127.0.0.1:2113?tls=false';

describe('eventStoreChoiceFrom', () => {
  it('given nothing set, a service keeps its events in PostgreSQL', () =>
    expect(eventStoreChoiceFrom('accounts', {})).toEqual({ kind: 'postgres' }));

  it('given EVENT_STORE=kurrentdb and EVENTSTORE_URL, the service reads and writes only its own category', () =>
    expect(eventStoreChoiceFrom('accounts', { EVENT_STORE: 'kurrentdb', EVENTSTORE_URL: url })).toEqual({
      kind: 'kurrentdb',
      url,
      streamPrefix: 'accounts-',
    }));

  it("given EVENT_STORE_<SERVICE>, that service's choice wins over EVENT_STORE and the others keep EVENT_STORE's", () => {
    const env = { EVENT_STORE: 'postgres', EVENT_STORE_ACCOUNTS: 'kurrentdb', EVENTSTORE_URL: url };
    expect(eventStoreChoiceFrom('accounts', env)).toMatchObject({ kind: 'kurrentdb' });
    expect(eventStoreChoiceFrom('payments', env)).toEqual({ kind: 'postgres' });
    expect(eventStoreChoiceFrom('accounts', { EVENT_STORE: 'kurrentdb', EVENT_STORE_ACCOUNTS: 'postgres', EVENTSTORE_URL: url })).toEqual({
      kind: 'postgres',
    });
  });

  it('given EVENTSTORE_STREAM_PREFIX, it goes before the service prefix', () =>
    expect(
      eventStoreChoiceFrom('cards', { EVENT_STORE: 'kurrentdb', EVENTSTORE_URL: url, EVENTSTORE_STREAM_PREFIX: 'staging_' }),
    ).toMatchObject({
      streamPrefix: 'staging_cards-',
    }));

  it('given kurrentdb without EVENTSTORE_URL, the service refuses to start, naming what is missing', () =>
    expect(() => eventStoreChoiceFrom('accounts', { EVENT_STORE: 'kurrentdb' })).toThrow(/EVENT_STORE=kurrentdb needs EVENTSTORE_URL/));

  it('given an unknown store, it refuses, naming the variable and the choices', () =>
    expect(() => eventStoreChoiceFrom('accounts', { EVENT_STORE_ACCOUNTS: 'mongo' })).toThrow(
      /EVENT_STORE_ACCOUNTS must be one of postgres, kurrentdb, got "mongo"/,
    ));
});

describe('serviceStreamPrefix', () => {
  it('makes the service a KurrentDB category', () => expect(serviceStreamPrefix('platform')).toBe('platform-'));
  it('refuses a name that would split into another category', () =>
    expect(() => serviceStreamPrefix('my-service')).toThrow(/KurrentDB category/));
});

describe('describeEventStore', () => {
  it('names the server and the streams without the credentials', () =>
    expect(describeEventStore({ kind: 'kurrentdb', url, streamPrefix: 'accounts-' })).toBe(
      'kurrentdb kurrentdb://127.0.0.1:2113 streams accounts-*',
    ));
});
