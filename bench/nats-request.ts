import { connect, type ConnectionOptions } from 'nats';
import { natsConnectionOptions } from '@corridor/messaging';

// What one NATS request-reply costs in CPU with the options every Corridor connection uses
// (natsConnectionOptions) and with nats.js's default async stack traces, alternated three times in
// one process against the machine's NATS server: the client and an echo responder in one process,
// 32 requests in flight, CPU from process.cpuUsage (user + system) per request.
//   npm run bench:nats-request   (NATS_URL, BENCH_NATS_REQUESTS=20000)

const REQUESTS = Number(process.env['BENCH_NATS_REQUESTS'] ?? 20_000);
const IN_FLIGHT = 32;
const servers = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

const measure = async (options: ConnectionOptions, subject: string): Promise<{ cpuMicros: number; perSecond: number }> => {
  const client = await connect(options);
  const data = Buffer.from('{"x":1}');
  const burst = () => Promise.all(Array.from({ length: IN_FLIGHT }, () => client.request(subject, data, { timeout: 5_000 })));
  for (let warm = 0; warm < 2_000 / IN_FLIGHT; warm += 1) await burst();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let sent = 0; sent < REQUESTS; sent += IN_FLIGHT) await burst();
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  return { cpuMicros: (used.user + used.system) / REQUESTS, perSecond: REQUESTS / seconds };
};

const main = async () => {
  const subject = `bench.nats-request.${process.pid}`;
  const responder = await connect({ servers });
  responder.subscribe(subject, { callback: (_error, message) => message.respond(message.data) });
  await responder.flush();
  const corridor = natsConnectionOptions(servers, undefined, 'bench-nats-request');
  const traced = { ...corridor, noAsyncTraces: false };
  const rows: { round: number; options: string; cpuMicros: number; perSecond: number }[] = [];
  for (let round = 1; round <= 3; round += 1)
    for (const [name, options] of [
      ['async stack traces (nats.js default)', traced],
      ['natsConnectionOptions (no async traces)', corridor],
    ] as const)
      rows.push({ round, options: name, ...(await measure(options, subject)) });
  await responder.close();
  console.log(`${REQUESTS} requests per run, ${IN_FLIGHT} in flight, client and echo responder in one process:`);
  console.log('| round | connection options | CPU µs per request | requests/s |\n|---|---|---|---|');
  for (const row of rows)
    console.log(`| ${row.round} | ${row.options} | ${row.cpuMicros.toFixed(1)} | ${Math.round(row.perSecond).toLocaleString('en')} |`);
};

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
