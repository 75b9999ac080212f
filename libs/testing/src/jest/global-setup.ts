import { randomBytes } from 'node:crypto';

// Names this jest run, so its per-file databases can be found and dropped at the end.
export default async function globalSetup(): Promise<void> {
  process.env['CORRIDOR_TEST_RUN'] = randomBytes(4).toString('hex');
}
