// Hostile input (issue 21, decision 0024): one platform uploads a CSV of pathological cells — emails
// of 30,000 characters shaped for the old email pattern's quadratic backtracking, cells past the
// cap in every column — among ordinary rows, while another platform keeps reading. Written to fail
// on the code before the defence, where parsing those cells held the customers service's event loop
// for tens of seconds and the other platform's reads answered 503 "customers is not answering".
// Now every read answers 2xx, and the import ends with the hostile rows refused, each with an error
// that names the column, its length and the cap, and quotes nothing long.
import { randomBytes } from 'node:crypto';
import { createApi, type Credentials, type Reply } from '../support/api';
import { eventually } from '@corridor/testing';
import { type Stack, startStack } from '../support/stack';

const HOSTILE_ROWS = 20;
const ORDINARY_ROWS = 300;
const header = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let attacker: Credentials;
let bystander: Credentials;
let bystanderCustomerId: string;

beforeAll(async () => {
  stack = await startStack({
    env: {
      // A read the customers service cannot answer within this long is a 503 from the gateway.
      REQUEST_TIMEOUT_MS: '2500',
      DATABASE_POOL_SIZE: '4',
    },
  });
  api = createApi(stack, 'abuse-hostile-input');
  attacker = (await stack.createPlatform()).token as Credentials;
  bystander = (await stack.createPlatform()).token as Credentials;
  const customer = await api.call('POST', '/customers', {
    auth: bystander,
    body: {
      customerType: 'INDIVIDUAL',
      platformCustomerId: 'bystander-1',
      fullName: 'Bystander',
      address: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
    },
  });
  expect(customer.status).toBe(201);
  bystanderCustomerId = customer.body.id;
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

const multipart = (content: string) => {
  const boundary = `----corridor${randomBytes(4).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="hostile.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { rawBody: body, contentType: `multipart/form-data; boundary=${boundary}` };
};

/** The shape recheck reports for `^[^\s@]+@[^\s@]+\.[^\s@]+$`: each '.' is one more place to split the domain. */
const quadraticEmail = (length: number) => `a@${'.a'.repeat(Math.floor((length - 2) / 2))}`;

it('keeps another platform’s reads answering while a CSV of 30,000-character emails is imported, and refuses those rows with actionable errors', async () => {
  const run = randomBytes(4).toString('hex');
  const ordinary = (n: number) =>
    `$ok${n}.${run}@hostile.example.com,ok-${run}-${n},INDIVIDUAL,Person ${n},1980-01-15,${n} Main St,Springfield,IL,62701,US,p${n}@example.com`;
  const hostile = (n: number) =>
    `$bad${n}.${run}@hostile.example.com,bad-${run}-${n},INDIVIDUAL,Hostile ${n},1980-01-15,${n} Main St,Springfield,IL,62701,US,${quadraticEmail(30_000)}`;
  // The hostile rows first, in the first batch the worker parses, with ordinary rows after them.
  const rows = [
    ...Array.from({ length: HOSTILE_ROWS }, (_, index) => hostile(index + 1)),
    ...Array.from({ length: ORDINARY_ROWS }, (_, index) => ordinary(index + 1)),
  ];
  const accepted = await api.call('POST', '/customers/bulk/csv', { auth: attacker, ...multipart(`${header}\n${rows.join('\n')}\n`) });
  expect(accepted.status).toBe(202);
  const jobId = accepted.body.jobId as string;

  // The bystander reads throughout the import: every answer is recorded, none may be a 5xx.
  const answers: { route: string; status: number; code?: string }[] = [];
  const read = async (route: string, path: string): Promise<Reply> => {
    const reply = await api.call('GET', path, { auth: bystander });
    answers.push({ route, status: reply.status, ...(reply.status >= 400 ? { code: reply.body?.code } : {}) });
    return reply;
  };
  const last = await eventually(
    async () => {
      await read('GET /customers', '/customers?limit=5');
      await read('GET /customers/{id}', `/customers/${bystanderCustomerId}`);
      return api.call('GET', `/customers/bulk/jobs/${jobId}`, { auth: attacker });
    },
    (reply) => reply.body?.status === 'COMPLETED' || reply.body?.status === 'FAILED',
    240_000,
  );

  expect(answers.length).toBeGreaterThan(0);
  expect(answers.filter((answer) => answer.status < 200 || answer.status >= 300)).toEqual([]);
  expect(last.body).toMatchObject({
    status: 'COMPLETED',
    progress: { total: HOSTILE_ROWS + ORDINARY_ROWS, successful: ORDINARY_ROWS, failed: HOSTILE_ROWS },
  });
  const errors = last.body.errors as {
    correlationId: string;
    code: string;
    message: string;
    details: { row: number; problems: { column: string }[] };
  }[];
  expect(errors).toHaveLength(HOSTILE_ROWS);
  for (const [index, error] of errors.entries()) {
    expect(error).toMatchObject({
      correlationId: `bad-${run}-${index + 1}`,
      code: 'INVALID_INPUT',
      details: { row: index + 1, problems: [{ column: 'email' }] },
    });
    expect(error.message).toBe(`Row ${index + 1}: email is 30000 characters; a cell holds at most 1024.`);
  }
  // The refusals quote nothing of the hostile cells: the job stays small to read.
  expect(last.text.length).toBeLessThan(20_000);
}, 300_000);
