// Pins down that a connection URL's password never reaches an error message, and that the
// redaction (now anchored at the scheme, so linear) leaves URLs without a password as they are.
import { redactUrl } from './infra-errors';

describe('redactUrl', () => {
  it.each([
    ['postgres://postgres:s3cret@db.internal:5432/corridor', 'postgres://postgres:***@db.internal:5432/corridor'],
    ['postgresql://app:p%40ss/word@10.0.0.5/corridor?sslmode=require', 'postgresql://app:***@10.0.0.5/corridor?sslmode=require'],
    ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4222'],
    ['postgres://postgres@127.0.0.1:5432/corridor', 'postgres://postgres@127.0.0.1:5432/corridor'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});
