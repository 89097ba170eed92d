import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from './env.js';
import { httpServerOptions } from './main.js';
import { startService } from './testing/service.js';

/**
 * The HTTP server's timeouts, as main.ts sets them, against real slow clients. Real time (it
 * is the sockets' timers under test), kept to about a second per case.
 */

async function startServiceOn(extra: Record<string, string>) {
  return (await startService(extra)).port;
}

/** Resolves when the server closes the socket: what it sent, and after how many milliseconds. */
function whenClosed(socket: Socket, started: number): Promise<{ ms: number; received: string }> {
  let received = '';
  socket.on('data', (chunk) => (received += String(chunk)));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.on('close', () => resolve({ ms: Date.now() - started, received })));
}

describe('server timeouts', () => {
  it('cuts off a client that sends its headers too slowly (HEADERS_TIMEOUT_SECONDS)', async () => {
    const port = await startServiceOn({ HEADERS_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '5' });
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const started = Date.now();
    const closed = whenClosed(socket, started);
    // Slowloris: a header line every 200 ms, never the blank line that ends them.
    socket.write('GET /docs HTTP/1.1\r\nHost: resale.test\r\n');
    let n = 0;
    const drip = setInterval(() => socket.writable && socket.write(`X-Slow-${n++}: 1\r\n`), 200);
    try {
      const { ms, received } = await closed;
      // Node checks once a second (connectionsCheckingInterval): cut between 1 and about 2 s.
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(3_000);
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  }, 10_000);

  it('cuts off a client that sends its body too slowly (REQUEST_TIMEOUT_SECONDS)', async () => {
    const port = await startServiceOn({ HEADERS_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '1' });
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const started = Date.now();
    const closed = whenClosed(socket, started);
    socket.write('POST /v1/events HTTP/1.1\r\nHost: resale.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const drip = setInterval(() => socket.writable && socket.write(' '), 200);
    try {
      const { ms } = await closed;
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(3_000);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  }, 10_000);

  it('closes an idle kept-alive connection after KEEP_ALIVE_TIMEOUT_SECONDS', async () => {
    const port = await startServiceOn({ KEEP_ALIVE_TIMEOUT_SECONDS: '1' });
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let answered = 0;
    const closed = whenClosed(socket, 0);
    socket.on('data', () => (answered = answered || Date.now()));
    socket.write('GET /v1/openapi.json HTTP/1.1\r\nHost: resale.test\r\n\r\n');
    const { ms, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    const idle = ms - answered;
    expect(idle).toBeGreaterThanOrEqual(900);
    expect(idle).toBeLessThan(2_500);
  }, 10_000);

  it('defaults to 10 s for headers, 30 s per request, 5 s keep-alive, checked every second', () => {
    // The engine of this test process (DATABASE_URL must match it, see env.ts).
    const base = { SECRET_KEY: 'x'.repeat(32), DATABASE_URL: process.env.DATABASE_URL };
    const env = parseEnv(base);
    expect(httpServerOptions(env)).toEqual({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 });
    expect(() => parseEnv({ ...base, HEADERS_TIMEOUT_SECONDS: '20', REQUEST_TIMEOUT_SECONDS: '10' })).toThrow(EnvError);
    expect(() => parseEnv({ ...base, REQUEST_TIMEOUT_SECONDS: '0' })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
  });
});
