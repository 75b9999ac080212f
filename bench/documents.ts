import { readdirSync, readFileSync } from 'node:fs';
import { basic, type Credentials } from '../tests/support/api';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { bareHopCeiling, reportBench } from './report';

// Document uploads (issue 7): the whole stack as the end-to-end suites start it, a sandbox
// platform and one customer; UPLOADS files of just under 10 MB sent CONCURRENCY at a time through
// POST /documents. Reports MB/s and, sampled every 20 ms from /proc, the gateway process's
// resident memory above its level before the uploads — the figure that shows files are streamed
// to the blob store rather than buffered (buffering would need at least CONCURRENCY × 10 MB).
//   node -r @swc-node/register bench/documents.ts     (BENCH_UPLOADS=24, BENCH_CONCURRENCY=4)

const UPLOADS = Number(process.env['BENCH_UPLOADS'] ?? 24);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 4);
const FILE_BYTES = 10 * 1024 * 1024 - 1024;
const MB = 1024 * 1024;

/** The gateway of this stack: the process running apps/gateway/src/main.ts with our PORT. */
const gatewayPid = (port: string): number => {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes('apps/gateway/src/main.ts')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`PORT=${port}`)) return Number(entry);
    } catch {
      // a process that ended meanwhile
    }
  }
  throw new Error(`No gateway process with PORT=${port}.`);
};

const rssBytes = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
};

/** MB/s of the same uploads to a local server that reads and drops the body: the ceiling of streaming a file over HTTP here. */
const rawUploadCeiling = async (file: Buffer): Promise<number> => {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(201).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/documents`;
    const send = async () => {
      const form = new FormData();
      form.append('documentType', 'BANK_STATEMENT');
      form.append('file', new Blob([file]), 'statement.pdf');
      await (await fetch(url, { method: 'POST', body: form })).arrayBuffer();
    };
    await send();
    const started = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < UPLOADS) {
          next += 1;
          await send();
        }
      }),
    );
    return +((UPLOADS * file.length) / MB / (Number(process.hrtime.bigint() - started) / 1e9)).toFixed(1);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
};

const main = async (): Promise<void> => {
  const stack = await startStack();
  try {
    // The ceilings, first, on the quiet stack: the bare hop (or from bench:all) and raw uploads to a server that drops them.
    const ceilings = await ceilingsFor(['bareHop']);
    const rawMegabytesPerSecond = await rawUploadCeiling(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(FILE_BYTES - 9, 0x20)]));
    console.log(`  raw uploads to a server that drops them: ${rawMegabytesPerSecond} MB/s`);
    const auth = (await stack.createPlatform()).token as Credentials;
    const created = await fetch(`${stack.baseUrl}/customers`, {
      method: 'POST',
      headers: { authorization: basic(auth), 'content-type': 'application/json' },
      body: JSON.stringify({ customerType: 'INDIVIDUAL', fullName: 'Bench Customer' }),
    });
    const customerId = ((await created.json()) as { id: string }).id;
    const file = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(FILE_BYTES - 9, 0x20)]);
    const send = async (): Promise<number> => {
      const form = new FormData();
      form.append('documentHolder', customerId);
      form.append('documentType', 'BANK_STATEMENT');
      form.append('country', 'US');
      form.append('file', new Blob([file]), 'statement.pdf');
      const response = await fetch(`${stack.baseUrl}/documents`, { method: 'POST', headers: { authorization: basic(auth) }, body: form });
      await response.arrayBuffer();
      return response.status;
    };
    // Warm-up: the first upload loads the multipart path and the blob store's directory.
    if ((await send()) !== 201) throw new Error('The warm-up upload was refused.');
    const pid = gatewayPid(stack.env['PORT']!);
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid));
    }, 20);
    const started = process.hrtime.bigint();
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < UPLOADS) {
          next += 1;
          statuses.push(await send());
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    const refused = statuses.filter((status) => status !== 201).length;
    const result = {
      uploads: UPLOADS,
      concurrency: CONCURRENCY,
      fileMB: +(FILE_BYTES / MB).toFixed(2),
      refused,
      seconds: +seconds.toFixed(2),
      uploadsPerSecond: +(UPLOADS / seconds).toFixed(2),
      megabytesPerSecond: +((UPLOADS * FILE_BYTES) / MB / seconds).toFixed(1),
      gatewayRssBaselineMB: +(baseline / MB).toFixed(1),
      gatewayRssPeakMB: +(peak / MB).toFixed(1),
      gatewayRssGrowthMB: +((peak - baseline) / MB).toFixed(1),
      bufferingWouldNeedAtLeastMB: +((CONCURRENCY * FILE_BYTES) / MB).toFixed(1),
    };
    console.log(JSON.stringify(result, null, 2));
    reportBench(
      'document uploads',
      ceilings,
      [
        {
          label: 'uploads MB/s',
          value: result.megabytesPerSecond,
          unit: 'MB/s',
          ceiling: { label: 'raw HTTP upload, body dropped', value: rawMegabytesPerSecond, unit: 'MB/s' },
        },
        { label: 'uploads/s', value: result.uploadsPerSecond, unit: 'uploads/s', ceiling: bareHopCeiling(ceilings) },
        // Buffering the files would need at least concurrency × file size (bufferingWouldNeedAtLeastMB in the details).
        { label: 'gateway RSS growth while uploading', value: result.gatewayRssGrowthMB, unit: 'MB' },
      ],
      { ...result, rawMegabytesPerSecond },
    );
    if (refused > 0) throw new Error(`${refused} uploads were refused.`);
  } finally {
    await stack.close();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
