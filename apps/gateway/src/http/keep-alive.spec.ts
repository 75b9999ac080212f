import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccessLog, serverWithRequestContext } from './request-telemetry';

// A client keeps its connection to the gateway between requests (Node's default agent does, for
// up to 5 s idle; a load balancer for 60 s). The gateway must not close an idle connection first
// (Node's own server closes it after 5 s, 6 s on Node 24, unless told otherwise): a request
// sent on it just as the server closes it sees a reset instead of an answer (the soak's hostile
// platform saw one such "dropped connection" with no chaos at all).

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('keeps an idle keep-alive connection open past 7 s, so the next request reuses it and is answered', async () => {
  const server = serverWithRequestContext(createAccessLog('silent'))((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<{ body: string; reused: boolean }>((resolve, reject) => {
      const sent = request({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ body, reused: sent.reusedSocket }));
      });
      sent.on('error', reject);
      sent.end();
    });
  try {
    expect(await get()).toEqual({ body: 'ok', reused: false });
    await sleep(7_000);
    expect(await get()).toEqual({ body: 'ok', reused: true });
  } finally {
    agent.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}, 15_000);
