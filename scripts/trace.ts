import { collectTrace, MAX_EVENTS, type Trace } from './trace/collect-trace';
import { KurrentTraceReader } from './trace/kurrent-trace-reader';
import { PostgresTraceReader } from './trace/postgres-trace-reader';
import type { TimeWindow, TraceReader } from './trace/trace-reader';
import { combineReaders, readerPlan } from './trace/trace-readers';
import { buildTree, describeAttempt, flatten, jsonLines, summarize, type TraceNode } from './trace/trace-tree';
import { databaseUrl, services } from './services';

// How an engineer follows one payment (or any story) through every service:
//   npm run trace -- <id> [--from <time>] [--to <time>] [--json]
// <id> is whatever is at hand: a transaction, quote, customer, card transaction, agent action,
// internal account (with a time window), webhook delivery, request or correlation id. Read-only.

const usage = `usage: npm run trace -- <id> [--from <ISO time>] [--to <ISO time>] [--json]
  <id>  Transaction:…, Quote:…, Customer:…, CardTransaction:…, AgentAction:…, a webhook id,
        a request or correlation id (X-Request-Id / X-Correlation-Id), an event id, or
        InternalAccount:… with --from/--to (an account takes part in many payments)`;

const color = process.stdout.isTTY ? (code: number, text: string) => `\u001b[${code}m${text}\u001b[0m` : (_: number, text: string) => text;
const bold = (text: string) => color(1, text);
const dim = (text: string) => color(2, text);
const cyan = (text: string) => color(36, text);

type Options = { id: string; window: TimeWindow; json: boolean };

const asTime = (name: string, value: string | undefined): string => {
  const time = new Date(value ?? '');
  if (!value || Number.isNaN(time.getTime()))
    throw new Error(`${name} needs a time such as 2026-11-27T13:00:00Z, not "${value ?? ''}".\n${usage}`);
  return time.toISOString();
};

export const parseArgs = (args: string[]): Options => {
  const options: Options = { id: '', window: {}, json: false };
  for (let at = 0; at < args.length; at += 1) {
    const arg = args[at] as string;
    if (arg === '--json') options.json = true;
    else if (arg === '--from') options.window.from = asTime(arg, args[(at += 1)]);
    else if (arg === '--to') options.window.to = asTime(arg, args[(at += 1)]);
    else if (arg.startsWith('--') || options.id) throw new Error(`Unexpected argument "${arg}".\n${usage}`);
    else options.id = arg;
  }
  if (!options.id) throw new Error(usage);
  return options;
};

const printNode = (node: TraceNode): void => {
  const { event } = node;
  const indent = '  '.repeat(node.depth) + (node.depth > 0 ? '└ ' : '');
  const where = `${event.service.padEnd(9)} ${event.streamId}#${event.position}`;
  console.log(`${dim(event.occurredAt)} ${indent}${cyan(where)} ${bold(event.type)}`);
  const pad = ' '.repeat(event.occurredAt.length + 1) + '  '.repeat(node.depth + (node.depth > 0 ? 1 : 0));
  console.log(`${pad}${summarize(event.data)}`);
  console.log(
    dim(`${pad}correlation ${event.correlationId ?? '-'}  causation ${event.causationId ?? '-'}  request ${event.requestId ?? '-'}`),
  );
  for (const delivery of node.deliveries) {
    console.log(`${pad}↳ ${bold(`webhook ${delivery.type}`)} ${delivery.id} ${delivery.status} after ${delivery.attemptCount} attempt(s)`);
    console.log(dim(`${pad}    correlation ${delivery.correlationId ?? '-'}  causation ${delivery.causationId ?? '-'}`));
    for (const attempt of delivery.attempts) console.log(dim(`${pad}    ${describeAttempt(attempt)} → ${attempt.url}`));
  }
};

const printTrace = (id: string, trace: Trace, json: boolean): void => {
  const roots = buildTree(trace.events, trace.deliveries);
  if (json) {
    for (const line of jsonLines(roots)) console.log(JSON.stringify(line));
    return;
  }
  const servicesSeen = [...new Set(trace.events.map((event) => event.service))].sort();
  console.log(`${bold(id)}  ${dim(`found as ${trace.foundAs.join('; ')}`)}`);
  console.log(
    dim(
      `${trace.events.length} events in ${servicesSeen.join(', ')}; ${trace.deliveries.length} webhook ` +
        `deliveries; ${trace.correlationIds.length} correlation(s)\n`,
    ),
  );
  for (const node of flatten(roots)) printNode(node);
};

const main = async (): Promise<void> => {
  const options = parseArgs(process.argv.slice(2));
  const schemas = Object.fromEntries(
    Object.entries(services)
      .filter(([, info]) => info.eventStore !== false)
      .map(([name, info]) => [name, info.schema]),
  );
  // Each service is read where its events are (EVENT_STORE_<SERVICE> / EVENT_STORE, as the services choose).
  const plan = readerPlan(schemas);
  const postgres: TraceReader = await PostgresTraceReader.connect(databaseUrl(), plan.postgres);
  const reader = plan.kurrentdb
    ? combineReaders([postgres, KurrentTraceReader.connect(plan.kurrentdb.url, plan.kurrentdb.prefixes)])
    : postgres;
  try {
    const trace = await collectTrace(reader, options.id, options.window);
    if (trace.events.length === 0)
      throw new Error(
        `Nothing in ${reader.services.join(', ')} or the webhook log names ${options.id}${
          options.window.from || options.window.to ? ' in that window' : ''
        }.`,
      );
    printTrace(options.id, trace, options.json);
    if (trace.truncated)
      console.error(
        `A store had more events of these correlations than ${MAX_EVENTS}; the trace is cut there. Narrow it with --from/--to.`,
      );
  } finally {
    await reader.close();
  }
};

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
