import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startService } from './testing/service.js';

/**
 * Answers given before the request's body was read (a 413 on a body over MAX_BODY_BYTES) close
 * their connection, so a keep-alive client never sends its next request on a socket the server
 * is about to destroy; answers to bodies read whole keep it. Real sockets: one keep-alive
 * connection at a time in undici's pool, as a partner's HTTP client or a load balancer holds them.
 */

async function startWithSmallLimit() {
  const service = await startService({ MAX_BODY_BYTES: String(64 * 1024) });
  return `http://127.0.0.1:${service.port}`;
}

/** The next request on the same pool of one connection: what a client does after any answer. */
async function nextRequest(base: string, dispatcher: Agent) {
  const res = await request(`${base}/healthz`, { dispatcher });
  return { status: res.statusCode, body: (await res.body.json()) as { data: { alive: boolean } } };
}

describe('early answers on a kept-alive connection', () => {
  it.each([
    ['a 600 KB body with its length', () => 'x'.repeat(600_000)],
    ['a 16 MiB body with its length', () => 'x'.repeat(16 * 1024 * 1024)],
    ['a chunked body of unknown length', () => Readable.from((function* () { for (let i = 0; i < 40; i++) yield Buffer.alloc(32 * 1024, 120); })())],
  ])('refuses %s with 413 and Connection: close, and the next request on the pool succeeds', async (_, body) => {
    const base = await startWithSmallLimit();
    const dispatcher = new Agent({ connections: 1 });
    try {
      const refused = await request(`${base}/v1/events`, { method: 'POST', body: body(), headers: { 'content-type': 'application/json', authorization: 'Bearer sk_unknown' }, dispatcher });
      expect(refused.statusCode).toBe(413);
      expect(refused.headers.connection).toBe('close');
      expect(((await refused.body.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('payload_too_large');
      expect(await nextRequest(base, dispatcher)).toEqual({ status: 200, body: expect.objectContaining({ data: { alive: true } }) });
    } finally {
      await dispatcher.close();
    }
  });

  it('keeps the connection after an answer to a body read whole (the depth refusal), and serves the next request on it', async () => {
    const base = await startWithSmallLimit();
    const dispatcher = new Agent({ connections: 1 });
    let connections = 0;
    dispatcher.on('connect', () => connections++);
    try {
      const deep = '['.repeat(40) + ']'.repeat(40);
      const refused = await request(`${base}/v1/events`, { method: 'POST', body: deep, headers: { 'content-type': 'application/json', authorization: 'Bearer sk_unknown' }, dispatcher });
      expect(refused.statusCode).toBe(400);
      expect(refused.headers.connection).toBe('keep-alive');
      await refused.body.dump();
      expect((await nextRequest(base, dispatcher)).status).toBe(200);
      // One connection served both.
      expect(connections).toBe(1);
    } finally {
      await dispatcher.close();
    }
  });
});
