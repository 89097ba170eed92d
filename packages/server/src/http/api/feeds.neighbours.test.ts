import { closeServers } from '../../testing/servers.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../testing/harness.js';
import { eventBody } from '../../testing/factories.js';
import { feedRuns } from '../../domain/feeds/feeds.table.js';
import { FeedsService, type FeedsServiceOptions } from '../../domain/feeds/feeds.service.js';

/**
 * Noisy neighbours: a partner whose feed hangs must not delay another partner's poll. The
 * hanging feed is a real socket on 127.0.0.1 that never answers; its poll ends at the service's
 * time limit, kept short here (HANG_MS). Schedules use the manual clock; nothing sleeps.
 */

/** The time limit of a feed request in these tests: what a hanging feed holds its poll for. */
const HANG_MS = 2_000;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];

afterEach(() => closeServers(servers));

/** A platform on 127.0.0.1: each path answers per `routes` (unknown paths 404); `hits` lists the paths asked, in order. */
async function platform() {
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.push(path);
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    hits,
    hang: (path: string) => routes.set(path, () => undefined),
    serve: (path: string, body: unknown) =>
      routes.set(path, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      }),
  };
}

function feeds(t: TestApp, opts: FeedsServiceOptions = {}) {
  return new FeedsService(t.deps, { timeoutMs: HANG_MS, ...opts });
}

async function runsOf(t: TestApp, partnerId: string) {
  return await t.db.select().from(feedRuns).where(eq(feedRuns.partnerId, partnerId)).orderBy(feedRuns.startedAt, feedRuns.id);
}

/** A run whose row is written (it started) and not yet finished. */
const unfinished = (run: { problems: string[] }) => run.problems[0]?.startsWith('The poll did not finish') === true;

/** Polls `check` every few milliseconds of real time until it holds; fails after `ms`. */
async function waitFor(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const until = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('feeds: a partner whose feed hangs beside a healthy one', () => {
  it('the healthy partner’s polls complete in the same tick, before the hanging poll times out; a partner’s own feeds go one after the other', async () => {
    const t = createTestApp();
    const p = await platform();
    // The hanging partner comes first in the order of due(): polled one after the other, the
    // healthy partner waited for its time limit.
    const slow = await t.partner('Slow', { eventsFeedUrl: p.url('/slow/events'), cancelledFeedUrl: p.url('/slow/cancelled'), feedPollSeconds: 60 });
    const fast = await t.partner('Fast', { eventsFeedUrl: p.url('/fast/events'), cancelledFeedUrl: p.url('/fast/cancelled'), feedPollSeconds: 60 });
    p.hang('/slow/events');
    p.serve('/slow/cancelled', []);
    p.serve('/fast/events', [eventBody('tour-fast')]);
    p.serve('/fast/cancelled', []);
    const svc = feeds(t);

    const started = performance.now();
    const tick = svc.tick();
    await waitFor(async () => (await runsOf(t, fast.id)).filter((r) => r.ok).length === 2);
    const fastMs = performance.now() - started;
    expect(fastMs).toBeLessThan(HANG_MS);
    expect((await t.request('GET', '/v1/events/tour-fast', { key: fast.keys.private })).status).toBe(200);
    // The hanging poll is still in hand; the slow partner's cancelled feed waits behind it (its own lane).
    const slowRuns = await runsOf(t, slow.id);
    expect(slowRuns).toHaveLength(1);
    expect(slowRuns[0]).toMatchObject({ feed: 'events' });
    expect(unfinished(slowRuns[0]!)).toBe(true);
    expect(p.hits.filter((h) => h.startsWith('/slow/'))).toEqual(['/slow/events']);

    const { runs } = await tick;
    expect(runs.map((r) => [r.partnerId === fast.id ? 'fast' : 'slow', r.feed, r.ok])).toEqual([
      ['slow', 'events', false],
      ['slow', 'cancelled', true],
      ['fast', 'events', true],
      ['fast', 'cancelled', true],
    ]);
    expect(runs[0]!.problems).toEqual([`The platform did not answer within ${HANG_MS} ms`]);
  });

  it('the job polls a partner again when its feed falls due while another partner’s feed still hangs', async () => {
    const t = createTestApp();
    const p = await platform();
    const slow = await t.partner('Slow', { eventsFeedUrl: p.url('/slow/events'), feedPollSeconds: 60 });
    const fast = await t.partner('Fast', { eventsFeedUrl: p.url('/fast/events'), feedPollSeconds: 5 });
    p.hang('/slow/events');
    p.serve('/fast/events', []);
    const svc = feeds(t);

    const stop = new AbortController();
    const run = svc.pollContinuously({ pollMs: 20, signal: stop.signal });
    await waitFor(async () => (await runsOf(t, fast.id)).filter((r) => r.ok).length === 1);
    t.clock.advance(5_000);
    await waitFor(async () => (await runsOf(t, fast.id)).filter((r) => r.ok).length === 2);
    // Meanwhile the slow partner's one poll still hangs, and was not started twice.
    const slowRuns = await runsOf(t, slow.id);
    expect(slowRuns).toHaveLength(1);
    expect(unfinished(slowRuns[0]!)).toBe(true);
    stop.abort();
    const { runs } = await run;
    expect(runs.map((r) => [r.partnerId === fast.id ? 'fast' : 'slow', r.ok])).toEqual([
      ['fast', true],
      ['fast', true],
      ['slow', false],
    ]);
  });

  it('polls at most `concurrency` feeds at once, and each due feed once when two processes poll at the same time', async () => {
    const t = createTestApp();
    const p = await platform();
    const hanging: string[] = [];
    for (const i of [0, 1, 2, 3]) {
      const partner = await t.partner(`Hanging ${i}`, { eventsFeedUrl: p.url(`/h${i}/events`) });
      hanging.push(partner.id);
      p.hang(`/h${i}/events`);
    }
    const svc = feeds(t, { concurrency: 2, timeoutMs: 300 });
    const stop = new AbortController();
    const run = svc.pollContinuously({ pollMs: 20, signal: stop.signal });
    await waitFor(() => p.hits.length === 2);
    await new Promise((r) => setTimeout(r, 100)); // a few more rounds of the loop: still two
    expect(p.hits).toHaveLength(2);
    stop.abort();
    expect((await run).runs.map((r) => r.ok)).toEqual([false, false]);

    // Two processes at once over the same feeds: each due feed is polled once.
    const healthy = await platform();
    const partners = await Promise.all([0, 1, 2].map(async (i) => {
      healthy.serve(`/p${i}/events`, []);
      healthy.serve(`/p${i}/cancelled`, []);
      return await t.partner(`Healthy ${i}`, { eventsFeedUrl: healthy.url(`/p${i}/events`), cancelledFeedUrl: healthy.url(`/p${i}/cancelled`) });
    }));
    for (const id of hanging) await t.deps.partners.update(id, { settings: { eventsFeedUrl: null } });
    const [one, two] = await Promise.all([feeds(t).pollContinuously({ pollMs: 20 }), feeds(t).pollContinuously({ pollMs: 20 })]);
    expect(one!.runs.length + two!.runs.length).toBe(6);
    expect(healthy.hits.sort()).toEqual(['/p0/cancelled', '/p0/events', '/p1/cancelled', '/p1/events', '/p2/cancelled', '/p2/events']);
    for (const partner of partners) expect((await runsOf(t, partner.id)).map((r) => r.ok)).toEqual([true, true]);
  });
});
