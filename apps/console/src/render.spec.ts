import type { TracedEvent } from '../../../scripts/trace/trace-reader';
import type { ConsoleTrace } from './console-reader';
import { escapeHtml, jsonHtml, tracePage } from './render';

const event = (data: Record<string, unknown>): TracedEvent => ({
  service: 'customers',
  eventId: 'e1',
  streamId: 'Customer:0197a0f1-0000-7000-8000-000000000001',
  position: 1,
  globalPosition: '1',
  type: 'CustomerCreated',
  occurredAt: '2026-11-27T13:00:00.000Z',
  platformId: 'Platform:1',
  correlationId: 'corr-1',
  causationId: null,
  requestId: '"><script>alert(1)</script>',
  data,
});

describe('console pages', () => {
  it('given event data a platform wrote, when rendered, then markup in it is text, never HTML', () => {
    const html = jsonHtml({ fullName: '<img src=x onerror=alert(1)>', note: `"'&` });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeHtml(`"'&<>`)).toBe('&quot;&#39;&amp;&lt;&gt;');
  });

  it("given a resource id in the data, when rendered, then it links to that resource's timeline", () => {
    const quoteId = 'Quote:0197a0f1-0000-7000-8000-000000000002';
    expect(jsonHtml({ quoteId, amount: 10n })).toBe(
      [
        '{',
        `  &quot;quoteId&quot;: &quot;<a href="/trace?id=${encodeURIComponent(quoteId)}">${quoteId}</a>&quot;,`,
        '  &quot;amount&quot;: &quot;10&quot;',
        '}',
      ].join('\n'),
    );
  });

  it('given a trace, when its page is rendered, then it carries no script, escapes every id and shows the state after', () => {
    const trace: ConsoleTrace = {
      foundAs: ['stream'],
      correlationIds: ['corr-1'],
      events: [event({ fullName: '</pre><script>alert(2)</script>' })],
      deliveries: [],
      truncated: false,
      states: new Map([['customers/e1', { state: { status: 'ACTIVE' } }]]),
    };
    const html = tracePage('<b>id</b>', trace);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;b&gt;id&lt;/b&gt;');
    expect(html).toContain('state after');
    expect(html).toContain('&quot;ACTIVE&quot;');
  });
});
