import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// Global teardown of the end-to-end run: how much of the reference the suites exercised.
export default async function printConformanceReport(): Promise<void> {
  const directory = join(__dirname, '../../tmp/conformance');
  if (!existsSync(directory)) return;
  const exercised = new Set<string>();
  let inScopeTotal = 0;
  for (const file of readdirSync(directory)) {
    const report = JSON.parse(readFileSync(join(directory, file), 'utf8')) as { exercised: string[]; inScopeTotal: number };
    report.exercised.forEach((operation) => exercised.add(operation));
    inScopeTotal = Math.max(inScopeTotal, report.inScopeTotal);
  }
  rmSync(directory, { recursive: true, force: true });
  console.log(
    `\nconformance: ${exercised.size} of ${inScopeTotal} in-scope reference operations exercised, every response validated: ${[...exercised].sort().join(', ')}`,
  );
}
