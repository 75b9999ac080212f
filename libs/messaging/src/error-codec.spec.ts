// What crosses the NATS hop when a handler fails: a database that cannot serve now is a 503 to
// retry; anything unexpected is a 500 whose details stay in the log.
import { DomainError } from '@corridor/contracts';
import pino from 'pino';
import { toErrorBody } from './error-codec';

const logger = pino({ level: 'silent' });
const pgError = (code: string) => Object.assign(new Error('sorry, too many clients already'), { code });

describe('toErrorBody', () => {
  it.each(['53300', '08006', '57P01', '57P03', 'ECONNREFUSED'])('answers 503 SERVICE_UNAVAILABLE for a storage error %s', (code) => {
    expect(toErrorBody(pgError(code), logger)).toEqual(expect.objectContaining({ status: 503, code: 'SERVICE_UNAVAILABLE' }));
  });

  it.each(['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout'])(
    'answers 503 when the process pool has no connection to give in time: %s',
    (message) => {
      expect(toErrorBody(new Error(message), logger)).toEqual(expect.objectContaining({ status: 503, code: 'SERVICE_UNAVAILABLE' }));
    },
  );

  it('answers 500 without details for other database errors and for anything unexpected', () => {
    expect(toErrorBody(pgError('23505'), logger)).toEqual(expect.objectContaining({ status: 500, code: 'INTERNAL_ERROR' }));
    expect(toErrorBody(new TypeError('x is undefined'), logger)).not.toHaveProperty('details');
  });

  it('passes a DomainError on as its own body', () => {
    expect(toErrorBody(new DomainError('QUOTE_NOT_FOUND', 'not_found', 'Quote q was not found.'), logger)).toEqual(
      expect.objectContaining({ status: 404, code: 'QUOTE_NOT_FOUND' }),
    );
  });
});
