import { dropRunDatabases } from '../infra';

export default async function globalTeardown(): Promise<void> {
  const run = process.env['CORRIDOR_TEST_RUN'];
  if (run) await dropRunDatabases(run);
}
