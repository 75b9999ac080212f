// Attacks on the operators' console (decision 0038), in Debian's chromium: a platform writing
// markup into its own data to run script in an operator's browser (stored XSS), an id crafted as
// markup or SQL (reflected XSS, injection), and a platform token trying the console through the
// public gateway. Each fails on a console that rendered data unescaped, interpolated the id into
// SQL or were mounted in the gateway.
import type { BrowserContext, Page } from 'playwright-core';
import { basic, createApi, type Credentials } from '../support/api';
import { type Console, CONSOLE_TOKEN, OPERATOR, startConsole } from '../support/console';
import { eventually } from '@corridor/testing';
import { sharedStack } from '../support/shared-stack';
import type { StackView } from '../support/stack';

const MARKUP = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platform: Credentials;
let operatorConsole: Console;
let operator: BrowserContext;

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'console-abuse');
  platform = (await stack.createPlatform()).token as Credentials;
  operatorConsole = await startConsole(stack);
  operator = await operatorConsole.browser(OPERATOR);
}, 240_000);

afterAll(async () => {
  await operatorConsole?.close();
  await stack?.close();
});

/** A page that records any dialog or script error, so a script that ran cannot go unnoticed. */
const watchedPage = async (): Promise<{ page: Page; incidents: string[] }> => {
  const page = await operator.newPage();
  const incidents: string[] = [];
  page.on('dialog', (dialog) => {
    incidents.push(`dialog ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, incidents };
};

it('shows markup a platform wrote into its data as text, and runs none of it', async () => {
  const body = { customerType: 'INDIVIDUAL', fullName: MARKUP, currencies: ['USD'] };
  const created = await api.call('POST', '/customers', { auth: platform, body });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  await eventually(
    () => api.call('GET', `/customers/${customerId}`, { auth: platform }),
    (reply) => reply.status === 200,
  );
  const { page, incidents } = await watchedPage();
  expect((await page.goto(`${operatorConsole.url}/trace?id=${encodeURIComponent(customerId)}`))?.status()).toBe(200);
  expect(await page.title()).not.toBe('pwned');
  expect(await page.locator('main script, main img').count()).toBe(0);
  const shown = page.locator('li.event[data-service=customers] details.data pre', { hasText: 'onerror' });
  expect(await shown.first().textContent()).toContain(MARKUP.replace(/"/g, '\\"'));
  expect(incidents).toEqual([]);
  await page.close();
}, 60_000);

it('answers an id crafted as markup or SQL with a 404 page that shows it as text', async () => {
  const { page, incidents } = await watchedPage();
  for (const id of [`"><svg onload="document.title='pwned'">`, `' OR '1'='1`, `Transaction:x'; DROP TABLE payments.events; --`]) {
    const response = await page.goto(`${operatorConsole.url}/trace?id=${encodeURIComponent(id)}`);
    expect(response?.status()).toBe(404);
    expect(await page.inputValue('input[name=id]')).toBe(id);
    expect(await page.locator('svg').count()).toBe(0);
  }
  expect(await page.title()).not.toBe('pwned');
  expect((await page.goto(`${operatorConsole.url}/trace?id=${'x'.repeat(201)}`))?.status()).toBe(400);
  expect((await page.goto(`${operatorConsole.url}/trace?id=x&from=${encodeURIComponent('<b>yesterday</b>')}`))?.status()).toBe(400);
  expect(await page.locator('main b').count()).toBe(0);
  expect(incidents).toEqual([]);
  await page.close();
  // The store is intact after the "DROP TABLE" id: the id is a query parameter in a read-only session.
  const reply = await fetch(`${operatorConsole.url}/status`, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } });
  expect(reply.status).toBe(200);
  expect(await reply.text()).toMatch(/payments <span class="meta">head \d+/);
  expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(reply.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(reply.headers.get('cache-control')).toBe('no-store');
}, 60_000);

it('is not served by the public gateway, so a platform token reaches no console page there', async () => {
  for (const path of ['/', '/status', '/trace?id=anything', '/console', '/console/status']) {
    for (const base of [stack.gatewayUrl, stack.baseUrl]) {
      const reply = await fetch(`${base}${path}`, { headers: { authorization: basic(platform) } });
      expect(reply.status).not.toBe(200);
      expect(await reply.text()).not.toContain('Corridor console');
    }
  }
});
