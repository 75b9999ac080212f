import type { TraceNode } from '../../../scripts/trace/trace-tree';
import { buildTree, describeAttempt, flatten } from '../../../scripts/trace/trace-tree';
import type { ConsoleTrace, StoresStatus } from './console-reader';
import type { StateAfter } from './state-after';

// Pure: the console's pages as server-rendered HTML. Every value from the stores goes through
// escapeHtml (event data is whatever a platform sent), and the page carries no script at all.

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string);

export const traceHref = (id: string): string => `/trace?id=${encodeURIComponent(id)}`;
const idLink = (id: string | null): string => (id ? `<a href="${escapeHtml(traceHref(id))}">${escapeHtml(id)}</a>` : '-');

/** A Corridor resource id (Type:uuid-ish) inside rendered JSON, turned into a link to its own trace. */
const RESOURCE_ID = /&quot;([A-Z][A-Za-z]*:[0-9A-Za-z-]{8,})&quot;/g;

/** Pretty JSON (bigint as text), escaped, with every resource id it names linked to that resource's trace. */
export const jsonHtml = (value: unknown): string => {
  const text = JSON.stringify(value, (_key, member: unknown) => (typeof member === 'bigint' ? member.toString() : member), 2) ?? 'null';
  return escapeHtml(text).replace(RESOURCE_ID, (_match, id: string) => `&quot;<a href="${traceHref(id)}">${id}</a>&quot;`);
};

const STYLE = [
  'body{font:14px system-ui,sans-serif;margin:0;color:#1b1f24}',
  'header{background:#1b1f24;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center}',
  'header a{color:#9cd}main{padding:16px}input[name=id]{width:34em;font:inherit;padding:4px}',
  'pre{background:#f4f5f7;padding:8px;overflow:auto;max-height:24em;margin:4px 0}',
  'ol.timeline{list-style:none;padding:0}li.event{border-left:3px solid #9ab;margin:8px 0;padding:4px 8px}',
  'li.event.accounts{border-color:#c96}',
  '.service{font-weight:bold;text-transform:uppercase;font-size:12px}.ids,.meta{color:#555;font-size:12px}',
  '.delivery{background:#eef6ee;padding:4px 8px;margin:4px 0}.delivery.FAILED{background:#fbeaea}.delivery.PENDING{background:#fdf6e3}',
  'table{border-collapse:collapse}td,th{border:1px solid #ccd;padding:2px 6px;text-align:left;font-size:13px}',
  '.bad{color:#b00;font-weight:bold}.ok{color:#070}',
].join('');

const PLACEHOLDER = 'Transaction:…, Quote:…, Customer:…, Webhook:…, a request or correlation id';

export const page = (title: string, body: string, query = ''): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Corridor console</title>
<style>${STYLE}</style></head>
<body><header><strong>Corridor console</strong><form method="get" action="/trace" role="search">
<input name="id" value="${escapeHtml(query)}" placeholder="${PLACEHOLDER}" aria-label="id">
<button type="submit">Trace</button></form><a href="/status">Projections, outboxes, dead letters</a></header>
<main>${body}</main></body></html>`;

export const homePage = (): string =>
  page(
    'Search',
    `<h1>Debug a payment</h1><p>Type any id above: a transaction, quote, customer, account, card transaction, agent action, webhook,
request or correlation id. The console shows every event of the stories it took part in, across services, with the state after
each event and every webhook attempt. It only reads.</p>`,
  );

const stateHtml = (state: StateAfter | undefined): string => {
  if (!state) return '';
  if ('unavailable' in state) return `<p class="meta">state after: ${escapeHtml(state.unavailable)}</p>`;
  return `<details class="state"><summary>state after</summary><pre>${jsonHtml(state.state)}</pre></details>`;
};

const deliveryHtml = (delivery: TraceNode['deliveries'][number]): string => {
  const attempts = delivery.attempts
    .map((attempt) => `<tr><td>${escapeHtml(describeAttempt(attempt))}</td><td>${escapeHtml(attempt.url)}</td></tr>`)
    .join('');
  return `<div class="delivery ${escapeHtml(delivery.status)}" data-type="${escapeHtml(delivery.type)}">
<span class="service">webhooks</span> ↳ webhook <b>${escapeHtml(delivery.type)}</b>
 ${idLink(delivery.id)} <b>${escapeHtml(delivery.status)}</b> after ${delivery.attemptCount} attempt(s)
 <div class="ids">correlation ${idLink(delivery.correlationId)} · causation ${idLink(delivery.causationId)}</div>
 <table><tr><th>attempt</th><th>url</th></tr>${attempts || '<tr><td colspan="2">no attempt yet</td></tr>'}</table></div>`;
};

const eventHtml = (node: TraceNode, states: ConsoleTrace['states']): string => {
  const { event } = node;
  const service = escapeHtml(event.service);
  const indent = `margin-left:${node.depth * 24}px`;
  return `<li class="event ${service}" style="${indent}" data-service="${service}" data-type="${escapeHtml(event.type)}">
<div><time>${escapeHtml(event.occurredAt)}</time> <span class="service">${service}</span>
 ${idLink(event.streamId)}#${event.position} <b>${escapeHtml(event.type)}</b></div>
<div class="ids">correlation ${idLink(event.correlationId)} · causation ${idLink(event.causationId)}
 · request ${idLink(event.requestId)} · event ${escapeHtml(event.eventId)}</div>
<details class="data" open><summary>data</summary><pre>${jsonHtml(event.data)}</pre></details>
${stateHtml(states.get(`${event.service}/${event.eventId}`))}${node.deliveries.map(deliveryHtml).join('')}</li>`;
};

export const tracePage = (id: string, trace: ConsoleTrace): string => {
  const nodes = flatten(buildTree(trace.events, trace.deliveries));
  const seen = [...new Set(trace.events.map((event) => event.service))].sort();
  const summary = `<h1>${escapeHtml(id)}</h1><p class="meta">found as ${escapeHtml(trace.foundAs.join('; '))}</p>
<p>${trace.events.length} events in ${escapeHtml(seen.join(', '))}; ${trace.deliveries.length} webhook deliveries;
 ${trace.correlationIds.length} correlation(s)</p>
${trace.truncated ? '<p class="bad">A store had more events than the trace reads; the timeline is cut there.</p>' : ''}`;
  return page(id, `${summary}<ol class="timeline">${nodes.map((node) => eventHtml(node, trace.states)).join('\n')}</ol>`, id);
};

export const messagePage = (title: string, message: string, query = ''): string =>
  page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`, query);

const lag = (head: string | null, position: string): string => (head === null ? '?' : String(BigInt(head) - BigInt(position)));
/** One table row of cells that are already HTML. */
const row = (cells: string[], className = ''): string =>
  `<tr${className ? ` class="${className}"` : ''}>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`;
const headRow = (names: string[]): string => `<tr>${names.map((name) => `<th>${name}</th>`).join('')}</tr>`;
const flag = (bad: boolean, text: string): string => `<span class="${bad ? 'bad' : 'ok'}">${escapeHtml(text)}</span>`;

const serviceHtml = (service: StoresStatus['services'][number]): string => {
  const projections = service.projections.map((projection) =>
    row(
      [
        escapeHtml(projection.name),
        projection.position,
        lag(service.head, projection.position),
        flag(projection.haltedAt !== null, projection.haltedAt ? `halted since ${projection.haltedAt}` : 'running'),
        escapeHtml(projection.lastError ? `${projection.lastErrorAt}: ${projection.lastError}` : ''),
      ],
      'projection',
    ),
  );
  const outboxes = service.outboxes.map((outbox) =>
    row([`outbox ${escapeHtml(outbox.name)}`, outbox.position, lag(service.head, outbox.position), '', ''], 'outbox'),
  );
  const head = headRow(['projection / outbox', 'position', 'lag (events)', 'state', 'last error']);
  return `<h3>${escapeHtml(service.service)} <span class="meta">head ${service.head ?? 'no event store yet'}</span></h3>
<table>${head}${projections.join('')}${outboxes.join('')}</table>`;
};

export const statusPage = (status: StoresStatus): string => {
  const health = status.health.map((answer) =>
    row([
      escapeHtml(answer.service),
      flag(answer.status !== 'ok', answer.status),
      `<details><summary>${escapeHtml(answer.url)}</summary><pre>${jsonHtml(answer.body)}</pre></details>`,
    ]),
  );
  const dead = status.deadLetters.latest.map((letter) =>
    row([
      idLink(letter.id),
      escapeHtml(letter.type),
      idLink(letter.resourceId),
      String(letter.attemptCount),
      String(letter.lastStatusCode ?? '-'),
      escapeHtml(letter.failedAt ?? ''),
    ]),
  );
  const deadHead = headRow(['webhook', 'type', 'resource', 'attempts', 'last answer', 'failed at']);
  return page(
    'Status',
    `<h1>Projections, outboxes and dead letters</h1><h2>Each service's /health</h2><table>${health.join('')}</table>
<h2>Stores</h2>${status.services.map(serviceHtml).join('')}
<h2>Dead letters <span class="meta">(webhooks that failed every attempt: ${status.deadLetters.count})</span></h2>
<table id="dead-letters">${deadHead}${dead.join('')}</table>`,
  );
};
