import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startStack } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { reportBench } from './report';
import { createProgress } from '../scripts/progress';

// Bulk customer import (issue 7, part 5): for each file size, a fresh stack (every app as its own
// process on a fresh database, as the e2e suites run it: accounts opens each new customer's
// accounts meanwhile, and the gateway's health needs every service), one sandbox platform, one upload through
// POST /customers/bulk/csv, then GET /customers/bulk/jobs/{jobId} polled until the job ends.
// Reports rows/s from the upload to COMPLETED, and the customers service's resident memory: its
// peak while importing (sampled from /proc every 50 ms) and its high-water mark (VmHWM).
//   npm run bench:bulk              (BENCH_BULK_ROWS=10000,100000; BULK_IMPORT_BATCH_ROWS passes to the service;
//                                    BENCH_BULK_CUSTOMERS_HEAP_MIB caps the service's V8 old space, to tell garbage from growth)

const SIZES = (process.env['BENCH_BULK_ROWS'] ?? '10000,100000').split(',').map(Number);
const HEADER =
  'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email,businessLegalName,' +
  'businessTaxId,businessIncorporatedOn';

const csvOf = (rows: number): Buffer => {
  const run = randomBytes(4).toString('hex');
  const lines = [HEADER];
  for (let n = 1; n <= rows; n += 1) {
    lines.push(
      n % 10 === 0
        ? `$biz${n}.${run}@bench.example.com,biz-${run}-${n},BUSINESS,,,${n} Commerce Way,Austin,TX,78701,US,,"Acme ${n}, ` +
            `Inc.",12-345${n},2015-06-01`
        : `$ind${n}.${run}@bench.example.com,ind-${run}-${n},INDIVIDUAL,Person ${n},1980-01-15,${n} Main St,San ` +
            `Francisco,CA,94105,US,p${n}@example.com,,,`,
    );
  }
  return Buffer.from(`${lines.join('\n')}\n`);
};

/** The pid of the stack's customers service: the process running its main.ts with the stack's subject prefix. */
const customersPid = (subjectPrefix: string): number => {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('apps/customers/src/main.ts')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`CORRIDOR_SUBJECT_PREFIX=${subjectPrefix}`))
        return Number(entry);
    } catch {
      // A process that ended while we looked.
    }
  }
  throw new Error('The customers service process was not found in /proc.');
};

const memoryKiB = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
};

const mib = (kib: number) => Math.round(kib / 1024);

/** CPU seconds (user + system) the process has used so far: steadier than wall time on a shared machine. */
const cpuSeconds = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const runSize = async (rows: number) => {
  const batchRows = process.env['BULK_IMPORT_BATCH_ROWS'];
  const batchesInFlight = process.env['BULK_IMPORT_BATCHES_IN_FLIGHT'];
  const heapMiB = process.env['BENCH_BULK_CUSTOMERS_HEAP_MIB'];
  const stack = await startStack({
    appEnv: {
      customers: {
        LOG_LEVEL: 'error',
        ...(batchRows ? { BULK_IMPORT_BATCH_ROWS: batchRows } : {}),
        ...(batchesInFlight ? { BULK_IMPORT_BATCHES_IN_FLIGHT: batchesInFlight } : {}),
        NODE_OPTIONS: [heapMiB ? `--max-old-space-size=${heapMiB}` : '', process.env['BENCH_BULK_CUSTOMERS_NODE_OPTIONS'] ?? '']
          .join(' ')
          .trim(),
      },
    },
  });
  try {
    const platform = await stack.createPlatform();
    const { clientId, clientSecret } = platform.token as { clientId: string; clientSecret: string };
    const authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    const pid = customersPid(stack.subjectPrefix);
    const csv = csvOf(rows);
    const boundary = `----bench${randomBytes(4).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      csv,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const rssBeforeKiB = memoryKiB(pid, 'VmRSS');
    let peakKiB = rssBeforeKiB;
    const sampler = setInterval(() => (peakKiB = Math.max(peakKiB, memoryKiB(pid, 'VmRSS'))), 50);
    const cpuBefore = cpuSeconds(pid);
    const started = performance.now();
    const upload = await fetch(`${stack.baseUrl}/customers/bulk/csv`, {
      method: 'POST',
      headers: { authorization, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    const accepted = (await upload.json()) as { jobId: string };
    if (upload.status !== 202) throw new Error(`Upload answered ${upload.status}: ${JSON.stringify(accepted)}`);
    const uploadedMs = performance.now() - started;
    let job: { status: string; progress: { total?: number; processed: number; successful: number; failed: number } };
    // Following the job: a bar of rows processed (stderr, terminal only) while the import runs.
    const progress = createProgress({ title: `bulk import ${accepted.jobId}`, unit: 'rows', total: rows });
    for (;;) {
      job = (await (
        await fetch(`${stack.baseUrl}/customers/bulk/jobs/${accepted.jobId}`, { headers: { authorization } })
      ).json()) as typeof job;
      progress.update(job.progress.processed, `${job.status}, ${job.progress.failed} failed`);
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    progress.stop();
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const cpu = cpuSeconds(pid) - cpuBefore;
    peakKiB = Math.max(peakKiB, memoryKiB(pid, 'VmRSS'));
    const result = {
      rows,
      status: job.status,
      successful: job.progress.successful,
      failed: job.progress.failed,
      fileMiB: Number((csv.length / 1024 / 1024).toFixed(1)),
      uploadMs: Math.round(uploadedMs),
      seconds: Number(seconds.toFixed(1)),
      rowsPerSecond: Math.round(rows / seconds),
      customersCpuSeconds: Number(cpu.toFixed(1)),
      /** Rows per CPU second of the customers service: what one free core would import. */
      rowsPerCustomersCpuSecond: Math.round(rows / cpu),
      customersRssBeforeMiB: mib(rssBeforeKiB),
      customersRssPeakMiB: mib(peakKiB),
      customersHighWaterMiB: mib(memoryKiB(pid, 'VmHWM')),
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await stack.close();
  }
};

const main = async (): Promise<void> => {
  // The bare append rate (8 writers), first, before any stack loads the machine (or from bench:all).
  const ceilings = await ceilingsFor(['append']);
  const results = [];
  for (const rows of SIZES) results.push(await runSize(rows));
  const summary = { cpus: cpus().length, loadAverage: loadavg().map((value) => Number(value.toFixed(2))), results };
  console.log(
    '\n| rows | status | rows/s | seconds | customers CPU s (rows per CPU s) | file MiB | customers RSS before → peak (MiB) | VmHWM MiB ' +
      '|\n|---|---|---|---|---|---|---|---|',
  );
  for (const result of results) {
    console.log(
      `| ${result.rows.toLocaleString('en')} | ${result.status} | ${result.rowsPerSecond.toLocaleString('en')} | ${result.seconds} ` +
        (`| ${result.customersCpuSeconds} (${result.rowsPerCustomersCpuSecond.toLocaleString('en')}) | ${result.fileMiB} ` +
          `| ${result.customersRssBeforeMiB} → ${result.customersRssPeakMiB} | ${result.customersHighWaterMiB} |`),
    );
  }
  console.log(`load average at the end: ${summary.loadAverage.join(', ')}`);
  writeFileSync(join(__dirname, 'last-run-bulk.json'), `${JSON.stringify(summary, null, 2)}\n`);
  reportBench(
    'bulk customer import',
    ceilings,
    results.flatMap((result) => [
      {
        label: `${result.rows.toLocaleString('en')} rows imported/s`,
        value: result.rowsPerSecond,
        unit: 'rows/s',
        ...(ceilings.append
          ? { ceiling: { label: 'bare append, 8 writers', value: ceilings.append.eightWriters.perSecond, unit: 'appends/s' } }
          : {}),
        target: { kind: 'at-least' as const, value: 2_000, text: '≥ 2,000 rows/s' },
      },
      {
        label: `${result.rows.toLocaleString('en')} rows: customers RSS peak above start`,
        value: result.customersRssPeakMiB - result.customersRssBeforeMiB,
        unit: 'MiB',
      },
    ]),
    summary,
  );
  if (results.some((result) => result.status !== 'COMPLETED')) throw new Error('An import did not complete.');
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
