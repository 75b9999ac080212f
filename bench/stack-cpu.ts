import { readdirSync, readFileSync } from 'node:fs';
import type { Client } from 'pg';

/** CPU seconds (user + system) of one process from /proc; undefined when it is gone or not Linux. */
const processCpu = (pid: string): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
};

/**
 * CPU seconds so far of one stack's own processes, by kind: each app (found by its command line
 * and the stack's subject prefix in its environment), the PostgreSQL backends serving the stack's
 * database, and this driver. The machine is shared, so CPU per unit of work is steadier than
 * rates. (The NATS server is shared by every stack on the machine and is not counted.)
 */
export const stackCpu = async (subjectPrefix: string, pg: Client, database: string): Promise<Map<string, number>> => {
  const totals = new Map<string, number>();
  const add = (kind: string, seconds: number | undefined) => totals.set(kind, (totals.get(kind) ?? 0) + (seconds ?? 0));
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return totals;
  }
  for (const pid of entries) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const app = /apps\/([a-z]+)\/src\/main\.ts/.exec(command)?.[1];
      if (!app || !readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`CORRIDOR_SUBJECT_PREFIX=${subjectPrefix}\u0000`)) continue;
      add(app, processCpu(pid));
    } catch {
      // Not ours to read, or gone.
    }
  }
  const backends = (
    await pg.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])
  ).rows;
  for (const { pid } of backends) add('postgres', processCpu(String(pid)));
  add('bench driver', processCpu(String(process.pid)));
  return totals;
};

/** CPU milliseconds per unit of work by kind, largest first, with the total. */
export const cpuMsPer = (before: Map<string, number>, after: Map<string, number>, units: number): Record<string, number> => {
  const perKind = [...after]
    .map(([kind, seconds]) => [kind, Number((((seconds - (before.get(kind) ?? 0)) * 1000) / Math.max(1, units)).toFixed(2))] as const)
    .sort((a, b) => b[1] - a[1]);
  return { ...Object.fromEntries(perKind), total: Number(perKind.reduce((sum, [, ms]) => sum + ms, 0).toFixed(2)) };
};
