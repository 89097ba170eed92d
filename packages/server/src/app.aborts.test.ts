import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, listen, type Listening } from './testing/harness.js';
import { capturedLogger } from './testing/logs.js';


/**
 * Sends the headers of a POST announcing `length` bytes and a first piece of the body, then
 * destroys the socket: a closed tab, a lost connection, or an attacker's cheap flood.
 */
function abortedUpload(port: number, path: string, headers: Record<string, string>, length = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const head = Object.entries({ host: 'resale.test', 'content-length': String(length), ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{"externalReferenceId":"half`);
      // Long enough for the server to start reading the body, then gone.
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 25);
    });
    socket.on('error', reject);
  });
}

async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the server');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('requests the client aborts', () => {
  let http: Listening | null = null;
  afterEach(async () => {
    await http?.close();
    http = null;
  });

  it('are logged at info, once each, without a stack, and never as a 500', async () => {
    const { lines, logger } = capturedLogger();
    const t = createTestApp({}, { logger });
    const p = await t.partner();
    http = await listen(t.app);

    for (let i = 0; i < 20; i++) {
      await abortedUpload(http.port, '/v1/events', { authorization: p.keys.private, 'content-type': 'application/json' });
    }
    await until(() => lines.filter((l) => l.msg === 'request').length >= 20);
    // Let anything late (a second log line per request) arrive before judging.
    await new Promise((r) => setTimeout(r, 100));

    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('stack');
    const aborts = lines.filter((l) => l.msg === 'request aborted by the client');
    expect(aborts).toHaveLength(20);
    for (const line of aborts) {
      expect(line.level).toBe(30);
      expect(line.requestId).toMatch(/^req_/);
      expect(line).not.toHaveProperty('err');
    }
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(20);
    for (const line of requests) expect(line.status).toBe(400);
    // Each abort line names a request that was logged.
    expect(new Set(aborts.map((l) => l.requestId))).toEqual(new Set(requests.map((l) => l.requestId)));

    // The service is unharmed: a whole request still works.
    const ok = await fetch(`${http.base}/v1/events/none`, { headers: { authorization: p.keys.private } });
    expect(ok.status).toBe(404);
  });

  it('an aborted form post to a hosted page logs no error either', async () => {
    const { lines, logger } = capturedLogger();
    const t = createTestApp({}, { logger });
    const p = await t.partner('Guests');
    http = await listen(t.app);
    for (let i = 0; i < 5; i++) {
      await abortedUpload(http.port, `/auth/otp?p=${p.id}`, { 'content-type': 'application/x-www-form-urlencoded', cookie: `resale_csrf=${'a'.repeat(43)}` });
    }
    await until(() => lines.filter((l) => l.msg === 'request').length >= 5);
    await new Promise((r) => setTimeout(r, 100));
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
    for (const line of lines.filter((l) => l.msg === 'request')) expect(line.status).not.toBe(500);
  });
});
