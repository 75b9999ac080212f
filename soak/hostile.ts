import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Credentials } from './client';
import type { SoakStats } from './stats';

// The hostile sandbox platform (issue 21 item 4): a tenant that does what a careless or hostile
// one can, beside the honest platforms. Its webhook endpoint accepts the connection and never
// answers; it sends bursts of wrong secrets (its own client id, and unknown ids), floods its rate
// limit, and uploads pathological and oversized files. It talks from its own loopback address
// (127.0.0.2), as an attacker elsewhere on the network would, so the per-address failure limit
// it trips is its own; its measurements go to their own SoakStats, never into the honest report.

export const HOSTILE_ADDRESS = '127.0.0.2';
/**
 * Wrong-secret attempts per burst, half with the platform's client id, half with unknown ids (limit 20 per address and per id a minute).
 */
const WRONG_SECRET_BURST = 40;
/** Requests of one flood, sent at once: above the per-token limit (200 per second by default). */
const FLOOD_REQUESTS = 260;
/** A cell the bulk importer's email check once took seconds on (a quadratic backtrack, issue 21). */
const PATHOLOGICAL_CELL_CHARS = 30_000;
const BULK_CSV_MAX_BYTES = 256 * 1024 * 1024;
const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
const BODY_LIMIT_BYTES = 1024 * 1024;
const ROUND_PAUSE_MS = 10_000;
const CSV_HEADER =
  'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email,businessLegalName,' +
  'businessTaxId,businessIncorporatedOn';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A webhook endpoint that accepts every TCP connection and never writes a byte back. */
export type HangingEndpoint = { url: string; connections: () => number; close(): Promise<void> };

export const startHangingEndpoint = async (): Promise<HangingEndpoint> => {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    // Reads and drops whatever is sent, so the sender's writes never block on a full buffer.
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

type HostileCall = {
  operation: string;
  method: string;
  path: string;
  authorization?: string;
  headers?: Record<string, string>;
  body?: Buffer | (() => AsyncIterable<Buffer>);
};
type HostileReply = { status: number; text: string };

/** Basic header of any pair, wrong ones included. */
const basic = (clientId: string, clientSecret: string): string => `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;

/**
 * One HTTP exchange from the hostile address, no retry (an attacker does not retry politely).
 * Status 0: the connection broke before an answer came. A streamed body stops being written once
 * the gateway has answered (it may refuse an oversized upload before reading all of it).
 */
const send = (baseUrl: string, stats: SoakStats, call: HostileCall): Promise<HostileReply> =>
  new Promise((resolve) => {
    const startedAt = Date.now();
    const url = new URL(`${baseUrl}${call.path}`);
    let answered = false;
    let settled = false;
    const finish = (status: number, text: string) => {
      if (settled) return;
      settled = true;
      stats.attempt({ operation: call.operation, status, startedAt, endedAt: Date.now() });
      stats.completed(call.operation, Date.now() - startedAt, status >= 200 && status < 300, false);
      if (status === 0 || status >= 500)
        stats.surprise(
          `${call.operation}: ${status || 'connection'} ${text.match(/"message":"([^"]{0,90})/)?.[1] ?? text.slice(0, 90)}`,
          text,
        );
      resolve({ status, text });
    };
    const headers: Record<string, string> = { ...call.headers, ...(call.authorization ? { authorization: call.authorization } : {}) };
    if (call.method === 'POST') headers['idempotency-key'] = randomUUID();
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: call.method,
        headers,
        localAddress: HOSTILE_ADDRESS,
        timeout: 60_000,
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => finish(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
        response.on('error', (error) => finish(response.statusCode ?? 0, error.message));
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 60 s')));
    request.on('error', (error) => finish(0, error.message));
    const body = call.body;
    if (body === undefined) request.end();
    else if (Buffer.isBuffer(body)) request.end(body);
    else {
      void (async () => {
        for await (const chunk of body()) {
          if (answered || request.destroyed) break;
          if (!request.write(chunk)) await new Promise((resume) => request.once('drain', resume));
        }
        request.end();
        // A write that fails (the gateway refused and closed) is reported by the request's own
        // 'error' handler as status 0; the writer has nothing to add.
      })().catch(() => undefined);
    }
  });

/**
 * Its own legitimate requests (its business, its uploads) are retried after Retry-After on a 429
 * or 503, a few times: its wrong secrets under its own client id crowd its own verifications.
 */
const sendPersisting = async (baseUrl: string, stats: SoakStats, call: HostileCall): Promise<HostileReply> => {
  for (let attempt = 1; ; attempt += 1) {
    const reply = await send(baseUrl, stats, call);
    if ((reply.status !== 429 && reply.status !== 503) || attempt >= 4) return reply;
    await sleep(1_000 * attempt);
  }
};

/** A multipart body of one file part, for the gateway's upload routes. */
const multipart = (
  boundary: string,
  field: string,
  filename: string,
  contentType: string,
  content: Buffer,
  fields: Record<string, string> = {},
): Buffer =>
  Buffer.concat([
    ...Object.entries(fields).map(([name, value]) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);

/** Five rows whose cells are 30,000 characters: an email shaped to make a backtracking pattern quadratic, and long names. */
export const pathologicalCsv = (run: string): Buffer => {
  const email = `a@${'a.'.repeat(PATHOLOGICAL_CELL_CHARS / 2 - 2)}a@`;
  const name = 'N'.repeat(PATHOLOGICAL_CELL_CHARS);
  const rows = Array.from(
    { length: 5 },
    (_, n) =>
      `$evil${n}.${run}@bulk.example.com,evil-${run}-${n},INDIVIDUAL,${name},1980-01-15,1 Main St,San Francisco,CA,94105,US,${email},,,`,
  );
  return Buffer.from([CSV_HEADER, ...rows].join('\n') + '\n');
};

/** A CSV one byte over the cap, produced as it is sent (never held in memory). */
async function* oversizedCsv(boundary: string): AsyncIterable<Buffer> {
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.csv"\r\nContent-Type: text/csv\r\n\r\n${CSV_HEADER}\n`,
  );
  const chunk = Buffer.alloc(1024 * 1024, 'x,');
  for (let sent = 0; sent <= BULK_CSV_MAX_BYTES; sent += chunk.length) yield chunk;
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

export type HostileFigures = {
  wrongSecrets: Record<string, number>;
  flood: Record<string, number>;
  /** The most flood requests answered 200 within any one second. */
  floodPassedPerSecondMax: number;
  uploads: Record<string, Record<string, number>>;
  bulkJobs: string[];
  customersCreated: number;
  receives: Record<string, number>;
  rounds: number;
};

export type HostilePlatform = {
  name: string;
  platformId: string;
  auth: Credentials;
  endpoint: HangingEndpoint;
  stats: SoakStats;
  figures: HostileFigures;
  /** Runs the attacks round after round until stop(); resolves when the round in flight ended. */
  run(): { stop(): Promise<void> };
};

/** The most instants of `times` (ms) that fall within one second of each other. */
export const mostWithinOneSecond = (times: readonly number[]): number => {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last += 1) {
    while (sorted[last]! - sorted[first]! >= 1_000) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
};

const tally = (counts: Record<string, number>, status: number) => {
  const key = status === 0 ? 'conn' : String(status);
  counts[key] = (counts[key] ?? 0) + 1;
};

export const createHostilePlatform = (
  baseUrl: string,
  stats: SoakStats,
  created: { platformId: string; auth: Credentials },
  endpoint: HangingEndpoint,
  runTag: string,
): HostilePlatform => {
  const figures: HostileFigures = {
    wrongSecrets: {},
    flood: {},
    floodPassedPerSecondMax: 0,
    uploads: {},
    bulkJobs: [],
    customersCreated: 0,
    receives: {},
    rounds: 0,
  };
  const own = basic(created.auth.clientId, created.auth.clientSecret);
  const floodPassedAt: number[] = [];
  let sequence = 0;
  const upload = (kind: string, status: number) => tally((figures.uploads[kind] ??= {}), status);

  const wrongSecrets = async () => {
    await Promise.all(
      Array.from({ length: WRONG_SECRET_BURST }, (_, n) => {
        const clientId = n % 2 === 0 ? created.auth.clientId : `unknown-${randomBytes(6).toString('hex')}`;
        return send(baseUrl, stats, {
          operation: 'hostile: wrong secret',
          method: 'GET',
          path: '/config',
          authorization: basic(clientId, randomBytes(12).toString('hex')),
        });
      }),
    ).then((replies) => replies.forEach((reply) => tally(figures.wrongSecrets, reply.status)));
  };

  const flood = async () => {
    const replies = await Promise.all(
      Array.from({ length: FLOOD_REQUESTS }, async () => {
        const reply = await send(baseUrl, stats, {
          operation: 'hostile: flood GET /config',
          method: 'GET',
          path: '/config',
          authorization: own,
        });
        if (reply.status === 200) floodPassedAt.push(Date.now());
        return reply;
      }),
    );
    for (const reply of replies) tally(figures.flood, reply.status);
    figures.floodPassedPerSecondMax = Math.max(figures.floodPassedPerSecondMax, mostWithinOneSecond(floodPassedAt));
  };

  /** Ordinary business whose webhooks go to the endpoint that never answers: a customer, then a payment to it (an approval hook). */
  const business = async () => {
    const n = (sequence += 1);
    const body = Buffer.from(
      JSON.stringify({
        customerType: 'INDIVIDUAL',
        fullName: `Hostile ${n}`,
        platformCustomerId: `hostile-${runTag}-${n}`,
        umaAddress: `$hostile${n}.${runTag}@corridor.uma.money`,
        currencies: ['USD'],
      }),
    );
    const customer = await sendPersisting(baseUrl, stats, {
      operation: 'hostile: POST /customers',
      method: 'POST',
      path: '/customers',
      authorization: own,
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (customer.status !== 201) return;
    figures.customersCreated += 1;
    const customerId = (JSON.parse(customer.text) as { id: string }).id;
    await sleep(1_000);
    const receive = Buffer.from(
      JSON.stringify({
        senderUmaAddress: '$success.eur@sandbox.uma.money',
        customerId,
        receivingCurrencyCode: 'USD',
        receivingCurrencyAmount: 1_000,
      }),
    );
    const reply = await sendPersisting(baseUrl, stats, {
      operation: 'hostile: POST /sandbox/uma/receive',
      method: 'POST',
      path: '/sandbox/uma/receive',
      authorization: own,
      headers: { 'content-type': 'application/json' },
      body: receive,
    });
    tally(figures.receives, reply.status);
  };

  const pathologicalUpload = async () => {
    const boundary = `----hostile${randomBytes(8).toString('hex')}`;
    const body = multipart(boundary, 'file', 'evil.csv', 'text/csv', pathologicalCsv(`${runTag}${(sequence += 1)}`));
    const reply = await sendPersisting(baseUrl, stats, {
      operation: 'hostile: POST /customers/bulk/csv (30,000-character cells)',
      method: 'POST',
      path: '/customers/bulk/csv',
      authorization: own,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    upload('pathological CSV', reply.status);
    if (reply.status === 202) figures.bulkJobs.push((JSON.parse(reply.text) as { jobId: string }).jobId);
  };

  const oversizedUploads = async () => {
    const boundary = `----hostile${randomBytes(8).toString('hex')}`;
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const csv = await send(baseUrl, stats, {
      operation: 'hostile: POST /customers/bulk/csv (over the size cap)',
      method: 'POST',
      path: '/customers/bulk/csv',
      authorization: own,
      headers,
      body: () => oversizedCsv(boundary),
    });
    upload('CSV over 256 MiB', csv.status);
    const document = multipart(boundary, 'file', 'huge.pdf', 'application/pdf', Buffer.alloc(MAX_DOCUMENT_BYTES + 1024, 0x20), {
      documentHolder: 'Customer:00000000-0000-0000-0000-000000000000',
      documentType: 'PASSPORT',
      country: 'US',
    });
    const doc = await sendPersisting(baseUrl, stats, {
      operation: 'hostile: POST /documents (over the size cap)',
      method: 'POST',
      path: '/documents',
      authorization: own,
      headers,
      body: document,
    });
    upload('document over 10 MiB', doc.status);
    const json = Buffer.from(JSON.stringify({ customerType: 'INDIVIDUAL', fullName: 'x'.repeat(BODY_LIMIT_BYTES + 1) }));
    const big = await sendPersisting(baseUrl, stats, {
      operation: 'hostile: POST /customers (JSON over the body limit)',
      method: 'POST',
      path: '/customers',
      authorization: own,
      headers: { 'content-type': 'application/json' },
      body: json,
    });
    upload('JSON body over 1 MiB', big.status);
  };

  const round = async (index: number) => {
    await wrongSecrets();
    await business();
    if (index % 3 === 0) await pathologicalUpload();
    // The oversized files once per run (the CSV alone is 256 MiB through the gateway).
    if (index === 1) await oversizedUploads();
    if (index % 3 === 2) await flood();
    figures.rounds += 1;
  };

  return {
    name: 'hostile platform',
    platformId: created.platformId,
    auth: created.auth,
    endpoint,
    stats,
    figures,
    run: () => {
      let running = true;
      let wake = () => undefined as void;
      const done = (async () => {
        for (let index = 0; running; index += 1) {
          await round(index).catch((error: Error) => stats.surprise('hostile round threw', error.stack ?? error.message));
          // The pause between rounds ends early when the traffic stops.
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ROUND_PAUSE_MS);
            wake = () => (clearTimeout(timer), resolve());
          });
        }
      })();
      return { stop: async () => ((running = false), wake(), await done) };
    },
  };
};

export const HOSTILE_CHECK_NAME =
  'the hostile platform refused with 4xx (429 on its wrong secrets, its flood held to its rate limit), never a 5xx; its files ended';

/**
 * What the hostile platform got: no 5xx (nor a dropped connection) outside the chaos windows,
 * wrong secrets 401 then 429 and never a 2xx, a flood held to its token's rate limit (a flood
 * the gateway is too slow to pass at that rate needs no 429, so none is required), oversized
 * files refused (4xx, or the connection closed on them), and the pathological CSV either refused or imported to an end (COMPLETED or
 * FAILED) like any other job.
 */
export const checkHostile = async (
  hostile: HostilePlatform,
  baseUrl: string,
  rateLimitPerSecond: number,
  inChaosWindow: SoakStats['inChaosWindow'],
): Promise<{ name: string; failures: string[]; figures: Record<string, unknown> }> => {
  const failures: string[] = [];
  const { figures, stats } = hostile;
  const outside = stats.serverErrors.filter((attempt) => !inChaosWindow(attempt));
  for (const attempt of outside.slice(0, 10))
    failures.push(`${attempt.operation} answered ${attempt.status || 'a dropped connection'} outside any chaos window`);
  const succeeded = Object.entries(figures.wrongSecrets).filter(([status]) => status.startsWith('2'));
  if (succeeded.length > 0) failures.push(`wrong secrets answered ${JSON.stringify(figures.wrongSecrets)}: a 2xx for a wrong secret`);
  if (figures.rounds > 1 && !figures.wrongSecrets['429'])
    failures.push(`no 429 in ${figures.rounds} bursts of wrong secrets (${JSON.stringify(figures.wrongSecrets)})`);
  // The token's limit is a fixed window of one second: across a window's edge up to twice the limit may pass within one second, never more.
  if (figures.floodPassedPerSecondMax > 2 * rateLimitPerSecond)
    failures.push(
      `${figures.floodPassedPerSecondMax} flood requests answered 200 within one second; the token's limit is ${rateLimitPerSecond} per ` +
        `second`,
    );
  for (const [kind, statuses] of Object.entries(figures.uploads)) {
    // An oversized body may also be refused by closing the connection: the gateway answers 413 while
    // the client is still writing, and the reset of a socket with unread data can reach the client
    // before the answer does (seen once in a 10-minute run). Neither is a success nor a 5xx.
    const refused = (status: string) => status.startsWith('4') || (kind !== 'pathological CSV' && status === 'conn');
    const wrong = Object.keys(statuses).filter((status) => !(refused(status) || (kind === 'pathological CSV' && status === '202')));
    if (wrong.length > 0) failures.push(`${kind}: answered ${JSON.stringify(statuses)}, not a 4xx`);
  }
  const jobs: Record<string, number> = {};
  for (const jobId of figures.bulkJobs) {
    const reply = await sendPersisting(baseUrl, stats, {
      operation: 'hostile: GET /customers/bulk/jobs/{id} (end check)',
      method: 'GET',
      path: `/customers/bulk/jobs/${jobId}`,
      authorization: basic(hostile.auth.clientId, hostile.auth.clientSecret),
    });
    const status = reply.status === 200 ? String((JSON.parse(reply.text) as { status?: string }).status) : `HTTP ${reply.status}`;
    jobs[status] = (jobs[status] ?? 0) + 1;
    if (status !== 'COMPLETED' && status !== 'FAILED') failures.push(`pathological bulk import ${jobId} is ${status} at the end`);
  }
  return {
    name: HOSTILE_CHECK_NAME,
    failures,
    figures: {
      ...figures,
      bulkJobs: jobs,
      webhookConnectionsHeld: hostile.endpoint.connections(),
      serverErrors: stats.serverErrors.length,
      outsideWindows: outside.length,
    },
  };
};
