import { createServer } from 'node:net';

/** Ports this process has handed out: the kernel gives a just-closed port out again, often. */
const handedOut = new Set<number>();

/**
 * A loopback port nothing listens on now, and one this process has not handed out before: a test
 * stack asks for a dozen at once (gateway, metrics, bus, every service's health), and two of them
 * alike made one app fail to start with EADDRINUSE. Another process may still take the port
 * before its user listens; that race is the caller's to retry.
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = await listenOnce();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
};

const listenOnce = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
