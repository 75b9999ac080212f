/** What the benches need to drive the gateway over HTTP: one call, and a setup call that must succeed. */
export type BenchReply = { status: number; body: any };

/**
 * A reply's body: its JSON, or, when it is not JSON (an empty reply, a proxy's error page), the
 * start of its text under `notJson` — so the status line a bench prints still shows what came back.
 */
export const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // Not an error to report: the text itself is kept and returned.
    return { notJson: text.slice(0, 500) };
  }
};

export const benchClient = (baseUrl: string, authorization: string) => {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<BenchReply> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization, ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await readBody(response) };
  };
  const setup = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<BenchReply> => {
    const reply = await call(method, path, body, headers);
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply;
  };
  /** The customer's first internal account, polled until accounts has opened it. */
  const firstInternalAccount = async (customerId: string): Promise<string> => {
    for (;;) {
      const id = (await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)).body?.data?.[0]?.id as
        string | undefined;
      if (id) return id;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { call, setup, firstInternalAccount };
};
