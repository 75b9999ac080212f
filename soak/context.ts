import type { Reply, SoakClient } from './client';
import type { SoakStats } from './stats';
import type { Random, SoakCustomer, SoakPlatform } from './workload';

// What every traffic kind's operations share: the client, the stats they report to, the platforms,
// the seeded random source and the helpers that judge an answer.

export type Operation = { weight: number; run: (platform: SoakPlatform) => Promise<void> };

export type SoakContext = {
  client: SoakClient;
  stats: SoakStats;
  platforms: SoakPlatform[];
  random: Random;
  runTag: string;
  /** The run's next sequence number (unique names and ids). */
  next(): number;
  pick<T>(items: readonly T[]): T | undefined;
  /** Records an answer the scenario did not expect (a 5xx is judged separately, against the chaos windows). */
  expect(operation: string, reply: Reply, statuses: number[]): boolean;
  /** The platform's customers with both their USD and EUR accounts known. */
  ready(platform: SoakPlatform): SoakCustomer[];
};

export const INCOMING_SENDER = '$success.eur@sandbox.uma.money';

export const createSoakContext = (
  client: SoakClient,
  stats: SoakStats,
  platforms: SoakPlatform[],
  random: Random,
  runTag: string,
): SoakContext => {
  let sequence = 0;
  return {
    client,
    stats,
    platforms,
    random,
    runTag,
    next: () => (sequence += 1),
    pick: <T>(items: readonly T[]): T | undefined => (items.length === 0 ? undefined : items[Math.floor(random() * items.length)]),
    expect: (operation, reply, statuses) => {
      if (statuses.includes(reply.status)) return true;
      if (reply.status < 500 && reply.status !== 0) stats.surprise(`${operation} answered ${reply.status}`, reply.text);
      else stats.surprise(`${operation} failed after retries (${reply.status})`, reply.text);
      return false;
    },
    ready: (platform) => platform.customers.filter((customer) => customer.usd && customer.eur),
  };
};
