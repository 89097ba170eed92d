import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../testing/harness.js';
import { addFastPath, carryFastPaths, fastPathsOf } from './node-listener.js';

let served: Listening | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

function app() {
  const a = new Hono();
  a.get('/x', (c) => c.text('from the app'));
  return a;
}

describe('the server’s listener and its fast paths', () => {
  it('lets a fast path answer, hand on to the next one, or leave the request to the app', async () => {
    const a = app();
    addFastPath(a, (req, res, next) => (req.url === '/fast' ? void res.end('from the first fast path') : next()));
    addFastPath(a, (req, res, next) => (req.url === '/second' ? void res.end('from the second') : next()));
    served = await listen(a);
    expect(await (await fetch(served.base + '/fast')).text()).toBe('from the first fast path');
    expect(await (await fetch(served.base + '/second')).text()).toBe('from the second');
    expect(await (await fetch(served.base + '/x')).text()).toBe('from the app');
  });

  it('gives the request to the app when a fast path throws before answering, and never crashes the process', async () => {
    const a = app();
    addFastPath(a, () => {
      throw new Error('the cache could not read the database');
    });
    served = await listen(a);
    const res = await fetch(served.base + '/x');
    expect([res.status, await res.text()]).toEqual([200, 'from the app']);
  });

  it('cuts the connection when a fast path throws after it began to answer (no second answer on the socket)', async () => {
    const a = app();
    addFastPath(a, (_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.flushHeaders();
      throw new Error('failed mid-answer');
    });
    served = await listen(a);
    await expect(fetch(served.base + '/x').then(async (r) => await r.text())).rejects.toThrow();
  });

  it('carries a router’s fast paths to the app it is mounted on', () => {
    const router = new Hono();
    const fast = () => undefined;
    addFastPath(router, fast);
    const a = app();
    a.route('/', router);
    carryFastPaths(router, a);
    expect(fastPathsOf(a)).toEqual([fast]);
    expect(fastPathsOf(new Hono())).toEqual([]);
  });
});
