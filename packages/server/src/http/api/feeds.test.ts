import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import { createTestApp, type TestApp } from '../../testing/harness.js';
import { capturedLogger } from '../../testing/logs.js';
import { eventBody, priceDetailShowBody, showBody } from '../../testing/factories.js';
import type { PartnerSettingsPatch } from '../../domain/partners/partners.settings.js';
import { events, shows } from '../../domain/events/events.table.js';
import { feedRuns } from '../../domain/feeds/feeds.table.js';
import { feedRoutes } from './feeds.routes.js';
import { FeedsService, MAX_PROBLEM_CHARS, MAX_PROBLEMS } from '../../domain/feeds/feeds.service.js';
import { parseFeedTimestamp } from '../../domain/feeds/feeds.schemas.js';

// ------------------------------------------------------------------ the partner's platform

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Platform {
  port: number;
  url: (path: string) => string;
  /** What each path answers; unknown paths answer 404. */
  routes: Map<string, Handler>;
  /** Every request: path and the secret header it carried. */
  hits: { path: string; secret: string | undefined }[];
  /** Answers `body` as JSON on `path`. */
  serve: (path: string, body: unknown, status?: number) => void;
  close: () => Promise<void>;
}

const servers: Server[] = [];

/** A real HTTP server on 127.0.0.1 that plays the partner's feeds. */
async function startPlatform(port = 0, shared?: Pick<Platform, 'routes' | 'hits'>): Promise<Platform> {
  const routes = shared?.routes ?? new Map<string, Handler>();
  const hits = shared?.hits ?? [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const secret = req.headers['x-resale-secret'];
    hits.push({ path, secret: typeof secret === 'string' ? secret : undefined });
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: (path) => `http://127.0.0.1:${bound}${path}`,
    routes,
    hits,
    serve: (path, body, status = 200) =>
      routes.set(path, (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      }),
    close: () => stop(server),
  };
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map(stop));
});

// ------------------------------------------------------------------ feed items

const DATES = {
  startsAt: '2026-05-01T21:00:00+02:00',
  salesStartAt: '2026-02-01T10:00:00Z',
  salesEndAt: '2026-05-01T20:00:00+02:00',
  publicAt: '2026-01-15T10:00:00Z',
};

/** A pull-feed show: the factories' price-detail show with the feed's status, dates and tags, and no `date`. */
function feedShow(showId = 'show-1', overrides: Record<string, unknown> = {}) {
  const { date: _date, ...show } = priceDetailShowBody(showId);
  return { ...show, status: 'ON_SALE', dates: { ...DATES }, tags: ['genre:rock', 'city:madrid'], ...overrides };
}

/** A pull-feed event: the factories' event with feed shows and a producer. */
function feedEvent(ref = 'tour-a', overrides: Record<string, unknown> = {}) {
  return eventBody(ref, {
    producers: [{ producerId: 'prod-1', name: 'Live Norte', emails: ['boss@producer.example'] }],
    shows: [feedShow('show-1')],
    ...overrides,
  });
}

// ------------------------------------------------------------------ setup

/** Long enough for a loopback answer on a loaded CI machine; the "hangs" cases wait it out. */
const FEED_TIMEOUT_MS = 1_000;

async function setup(settings: PartnerSettingsPatch = {}, opts: { logger?: Logger } = {}) {
  const t = createTestApp();
  const platform = await startPlatform();
  const p = await t.partner('Acme', {
    eventsFeedUrl: platform.url('/events'),
    cancelledFeedUrl: platform.url('/cancelled'),
    feedPollSeconds: 60,
    ...settings,
  });
  platform.serve('/events', []);
  platform.serve('/cancelled', []);
  const deps = opts.logger ? { ...t.deps, logger: opts.logger } : t.deps;
  const feeds = new FeedsService(deps, { timeoutMs: FEED_TIMEOUT_MS });
  mountRoutes(t, feeds);
  const getEvent = (ref: string) => t.request('GET', `/v1/events/${ref}`, { key: p.keys.private });
  return { t, platform, p, feeds, getEvent };
}

/** app.ts mounts feedRoutes once wired; until then the test mounts them itself. */
function mountRoutes(t: TestApp, feeds: FeedsService) {
  if (!t.app.routes.some((r) => r.path === '/admin/v1/partners/:partnerId/feedRuns')) t.app.route('/', feedRoutes(t.deps, feeds));
}


// ------------------------------------------------------------------ tests

describe('feeds: the events feed', () => {
  it('creates events with their statuses, dates, tags and combinations', async () => {
    const { t, platform, p, feeds, getEvent } = await setup();
    platform.serve('/events', [
      feedEvent('tour-a', {
        partnerOnlyField: { ignored: true },
        shows: [
          feedShow('show-1', { extra: 'ignored too' }),
          // A `date` instead of dates.startsAt is fine as well; no price types here.
          { ...showBody('show-2'), status: 'PRIVATE', tags: ['access:code'] },
        ],
      }),
      feedEvent('tour-b', {
        shows: [feedShow('show-1', { status: 'ANNOUNCED', dates: { ...DATES, salesStartAt: '2026-04-01T10:00:00Z' } })],
      }),
    ]);

    const run = await feeds.pollEvents(p.id);
    expect(run).toMatchObject({ partnerId: p.id, feed: 'events', ok: true, applied: 2, skipped: 0, problems: [] });
    expect(run!.id).toMatch(/^frn_/);
    expect(run!.startedAt).toBe(t.clock.now());

    const a = await getEvent('tour-a');
    expect(a.status).toBe(200);
    const [s1, s2] = a.body.data.shows;
    expect(s1).toMatchObject({
      showId: 'show-1',
      status: 'ON_SALE',
      date: '2026-05-01T19:00:00.000Z',
      dates: DATES,
      tags: ['genre:rock', 'city:madrid'],
      priceTypes: [
        { priceTypeId: 'pt-early', title: 'Early bird' },
        { priceTypeId: 'pt-standard', title: 'Standard' },
      ],
      combinations: [
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 39 },
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: 45.5 },
        { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 },
      ],
    });
    expect(s1.extra).toBeUndefined();
    expect(s2).toMatchObject({ showId: 'show-2', status: 'PRIVATE', date: '2026-05-01T19:00:00.000Z', tags: ['access:code'], combinations: [] });
    expect(a.body.data.partnerOnlyField).toBeUndefined();
    expect(a.body.data.producers).toEqual([{ producerId: 'prod-1', name: 'Live Norte', emails: ['boss@producer.example'] }]);
    expect((await t.db.select().from(events).where(eq(events.externalReferenceId, 'tour-a')).limit(1))[0]!.source).toBe('feed');

    const b = await getEvent('tour-b');
    expect(b.body.data.shows[0]).toMatchObject({ status: 'ANNOUNCED', dates: { salesStartAt: '2026-04-01T10:00:00Z' } });

    expect(await t.db.select().from(feedRuns)).toHaveLength(1);
  });

  it('updates on the next poll (merging by showId, ticketId, pair) and never duplicates', async () => {
    const { t, platform, p, feeds, getEvent } = await setup();
    platform.serve('/events', [feedEvent('tour-a')]);
    await feeds.pollEvents(p.id);

    t.clock.advance(60_000);
    const show1 = feedShow('show-1', {
      title: 'Madrid, moved',
      status: 'RESCHEDULED',
      // Both sent: dates.startsAt holds the new schedule and wins.
      date: '2026-05-01T21:00:00+02:00',
      dates: { ...DATES, startsAt: '2026-06-10T21:00:00+02:00' },
      tags: ['genre:pop'],
      combinations: [{ ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 35 }],
    });
    platform.serve('/events', [feedEvent('tour-a', { title: 'The Big Tour, extended', shows: [show1, feedShow('show-3')] })]);
    const second = await feeds.pollEvents(p.id);
    expect(second).toMatchObject({ ok: true, applied: 1, skipped: 0 });
    // The same feed again changes nothing and adds nothing.
    await feeds.pollEvents(p.id);

    const a = await getEvent('tour-a');
    expect(a.body.data.title).toBe('The Big Tour, extended');
    expect(a.body.data.shows.map((s: { showId: string }) => s.showId)).toEqual(['show-1', 'show-3']);
    expect(a.body.data.shows[0]).toMatchObject({
      title: 'Madrid, moved',
      status: 'RESCHEDULED',
      date: '2026-06-10T19:00:00.000Z',
      tags: ['genre:pop'],
      combinations: [
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 35 },
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: 45.5 },
        { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 },
      ],
    });
    expect(await t.db.select().from(events)).toHaveLength(1);
    expect(await t.db.select().from(shows)).toHaveLength(2);
  });

  it('skips a malformed or refused item with its reason and applies the others', async () => {
    const { logger, lines } = capturedLogger('warn');
    const { t, platform, p, feeds, getEvent } = await setup({}, { logger });
    const { title: _title, ...noTitle } = feedEvent('no-title');
    platform.serve('/events', [
      feedEvent('good-1'),
      noTitle,
      feedEvent('bad-date', { shows: [feedShow('show-1', { dates: { ...DATES, startsAt: 'next friday' } })] }),
      feedEvent('no-combinations', { shows: [feedShow('show-1', { combinations: undefined })] }),
      feedEvent('unknown-option', {
        shows: [feedShow('show-1', { combinations: [{ ticketOptionId: 'opt-nope', priceTypeId: 'pt-early', price: 10 }] })],
      }),
      42,
      feedEvent('good-2'),
    ]);

    const run = (await feeds.pollEvents(p.id))!;
    expect(run).toMatchObject({ ok: true, applied: 2, skipped: 5 });
    expect(run.problems).toEqual([
      "item 1 (externalReferenceId 'no-title'): title is required",
      "item 2 (externalReferenceId 'bad-date'): shows.0.dates.startsAt must be an ISO 8601 date-time with an offset, such as 2026-05-01T21:00:00+02:00",
      "item 3 (externalReferenceId 'no-combinations'): shows.0.combinations is required when priceTypes are sent (only explicit combinations exist)",
      "item 4 (externalReferenceId 'unknown-option'): shows.0.combinations.0.ticketOptionId 'opt-nope' is not a ticket option of show 'show-1'",
      'item 5: the item must be of type object',
    ]);
    expect((await getEvent('good-1')).status).toBe(200);
    expect((await getEvent('good-2')).status).toBe(200);
    for (const ref of ['no-title', 'bad-date', 'no-combinations', 'unknown-option']) expect((await getEvent(ref)).status).toBe(404);

    // Stored from the same run, and logged at warn without personal data.
    expect((await t.db.select().from(feedRuns).limit(1))[0]!.problems).toEqual(run.problems);
    const skipped = lines.filter((l) => l.msg === 'feeds: item skipped');
    expect(skipped.map((l) => [l.level, l.index, l.externalReferenceId])).toEqual([
      [40, 1, 'no-title'],
      [40, 2, 'bad-date'],
      [40, 3, 'no-combinations'],
      [40, 4, 'unknown-option'],
      [40, 5, undefined],
    ]);
    expect(JSON.stringify(lines) + JSON.stringify(run)).not.toContain('boss@producer.example');
  });

  it('caps the problems of a run at 100 entries of 300 characters', async () => {
    const { platform, p, feeds } = await setup();
    const longRef = 'x'.repeat(500);
    platform.serve('/events', [
      { externalReferenceId: longRef, shows: [{}, {}, {}, {}, {}, {}] },
      ...Array.from({ length: 149 }, (_, i) => ({ externalReferenceId: `broken-${i}` })),
    ]);
    const run = (await feeds.pollEvents(p.id))!;
    expect(run).toMatchObject({ ok: true, applied: 0, skipped: 150 });
    expect(run.problems).toHaveLength(MAX_PROBLEMS);
    expect(run.problems.every((line) => line.length <= MAX_PROBLEM_CHARS)).toBe(true);
    expect(run.problems[0]).toMatch(/^item 0 \(externalReferenceId 'x{100}'\): /);
    expect(run.problems[0]!.endsWith('…')).toBe(true);
    expect(run.problems.at(-1)).toBe('… and 51 more problems not shown');
  });
});

describe('feeds: a feed that fails', () => {
  const failures: [string, Handler][] = [
    ['answers 500', (_req, res) => void res.writeHead(500).end('oops')],
    ['answers invalid JSON', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('[{"title": ')],
    ['answers a JSON object instead of an array', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"events": []}')],
    ['hangs past the timeout', () => undefined],
  ];

  it.each(failures)('%s: the run is failed, nothing changes, and the next poll succeeds', async (_name, failing) => {
    const { t, platform, p, feeds, getEvent } = await setup();
    platform.serve('/events', [feedEvent('tour-a', { title: 'v1' })]);
    await feeds.pollEvents(p.id);
    const before = (await getEvent('tour-a')).body.data;

    t.clock.advance(60_000);
    platform.routes.set('/events', failing);
    const failed = (await feeds.pollEvents(p.id))!;
    expect(failed).toMatchObject({ feed: 'events', ok: false, applied: 0, skipped: 0 });
    expect(failed.problems).toHaveLength(1);
    expect((await getEvent('tour-a')).body.data).toEqual(before);
    expect(await t.db.select().from(events)).toHaveLength(1);

    t.clock.advance(60_000);
    platform.serve('/events', [feedEvent('tour-a', { title: 'v2' })]);
    expect(await feeds.pollEvents(p.id)).toMatchObject({ ok: true, applied: 1 });
    expect((await getEvent('tour-a')).body.data.title).toBe('v2');
  });

  it('records why: status, invalid JSON, non-array, timeout', async () => {
    const { platform, p, feeds } = await setup();
    const problems: string[] = [];
    for (const [, handler] of failures) {
      platform.routes.set('/events', handler);
      problems.push(...(await feeds.pollEvents(p.id))!.problems);
    }
    expect(problems).toEqual([
      'The platform answered HTTP 500',
      "The platform's answer (11 bytes) is not valid JSON",
      'The feed answered a JSON object, not a JSON array; nothing was changed',
      `The platform did not answer within ${FEED_TIMEOUT_MS} ms`,
    ]);
  });

  it('survives a closed port, and polls again once the platform is back', async () => {
    const { t, platform, feeds, getEvent } = await setup();
    platform.serve('/events', [feedEvent('tour-a')]);
    await platform.close();

    const down = await feeds.tick();
    expect(down.runs.map((r) => [r.feed, r.ok])).toEqual([
      ['events', false],
      ['cancelled', false],
    ]);
    expect(down.runs[0]!.problems[0]).toMatch(/^The platform could not be reached \(ECONNREFUSED\)$/);
    expect((await getEvent('tour-a')).status).toBe(404);

    await startPlatform(platform.port, platform);
    t.clock.advance(60_000);
    const up = await feeds.tick();
    expect(up.runs.map((r) => [r.feed, r.ok, r.applied])).toEqual([
      ['events', true, 1],
      ['cancelled', true, 0],
    ]);
    expect((await getEvent('tour-a')).status).toBe(200);
  });

  it('one partner whose feed is down never stops another partner’s', async () => {
    const gone = await startPlatform();
    const { t, platform, feeds } = await setup({ eventsFeedUrl: gone.url('/events'), cancelledFeedUrl: null });
    // Closed only once the set-up's platform listens: closed first, its port was free for that
    // platform to be given (both asked for any port), and the dead feed then answered (seen in CI).
    await gone.close();
    const other = await t.partner('Other', { eventsFeedUrl: platform.url('/events') });
    platform.serve('/events', [feedEvent('tour-z')]);
    const { runs } = await feeds.tick();
    expect(runs.map((r) => [r.partnerId === other.id, r.ok])).toEqual([
      [false, false],
      [true, true],
    ]);
    expect((await t.request('GET', '/v1/events/tour-z', { key: other.keys.private })).status).toBe(200);
  });
});

describe('feeds: the platform secret', () => {
  it('is sent as X-Resale-Secret when the partner has one, and not otherwise', async () => {
    const secret = 'platform-secret-0123456789';
    const { t, platform, p, feeds } = await setup({ platformSecret: secret });
    const bare = await t.partner('No secret', { eventsFeedUrl: platform.url('/events') });
    await feeds.pollEvents(p.id);
    await feeds.pollCancelled(p.id);
    await feeds.pollEvents(bare.id);
    expect(platform.hits).toEqual([
      { path: '/events', secret },
      { path: '/cancelled', secret },
      { path: '/events', secret: undefined },
    ]);
    expect(JSON.stringify(await t.db.select().from(feedRuns))).not.toContain(secret);
  });
});

describe('feeds: the cancelled feed', () => {
  it('cancels whole events and single shows, twice harmlessly, and skips unknown ids', async () => {
    const { t, platform, p, feeds, getEvent } = await setup();
    platform.serve('/events', [
      feedEvent('tour-a', { shows: [feedShow('show-1'), feedShow('show-2')] }),
      feedEvent('tour-b', { shows: [feedShow('show-1'), feedShow('show-2')] }),
    ]);
    await feeds.pollEvents(p.id);
    const cancelled: string[] = [];
    t.deps.bus.on('show.cancelled', (_tx, e) => void cancelled.push(`${e.externalReferenceId}/${e.showId}`));

    platform.serve('/cancelled', [
      { externalReferenceId: 'tour-a', cancelledAt: '2026-03-01T11:00:00Z' },
      { externalReferenceId: 'tour-b', showId: 'show-2', cancelledAt: 1772362800 },
      { externalReferenceId: 'unknown-tour', cancelledAt: 1772362800000 },
      { externalReferenceId: 'tour-b', showId: 'show-9', cancelledAt: '2026-03-01T11:00:00Z' },
      { showId: 'show-1', cancelledAt: '2026-03-01T11:00:00Z' },
      { externalReferenceId: 'tour-b', showId: '', cancelledAt: '2026-03-01T11:00:00Z' },
      { externalReferenceId: 'tour-b', showId: 'show-2', cancelledAt: 'yesterday' },
    ]);
    const run = (await feeds.pollCancelled(p.id))!;
    expect(run).toMatchObject({ feed: 'cancelled', ok: true, applied: 3, skipped: 4 });
    expect(run.problems).toEqual([
      "item 2 (externalReferenceId 'unknown-tour'): No event 'unknown-tour' was found",
      "item 3 (externalReferenceId 'tour-b'): No show 'show-9' was found",
      'item 4: externalReferenceId is required',
      "item 5 (externalReferenceId 'tour-b'): showId must not be empty; omit it or send null to cancel every show",
      "item 6 (externalReferenceId 'tour-b'): cancelledAt is neither an ISO 8601 date-time nor epoch seconds/milliseconds; cancelled anyway",
    ]);
    const statuses = async (ref: string) => (await getEvent(ref)).body.data.shows.map((s: { status: string }) => s.status);
    expect(await statuses('tour-a')).toEqual(['CANCELLED', 'CANCELLED']);
    expect(await statuses('tour-b')).toEqual(['ON_SALE', 'CANCELLED']);
    const cancelledAt = (await getEvent('tour-b')).body.data.shows[1].cancelledAt;
    expect(cancelledAt).toBe('2026-03-01T12:00:00.000Z');

    // Again, later: nothing new happens.
    t.clock.advance(3_600_000);
    expect(await feeds.pollCancelled(p.id)).toMatchObject({ ok: true, applied: 3, skipped: 4 });
    expect(cancelled.sort()).toEqual(['tour-a/show-1', 'tour-a/show-2', 'tour-b/show-2']);
    expect((await getEvent('tour-b')).body.data.shows[1].cancelledAt).toBe(cancelledAt);

    // The events feed cannot revive a cancelled show: cancellation is final, the stale status is
    // ignored, and the rest of that event (and of the feed) still applies.
    platform.serve('/events', [feedEvent('tour-a', { title: 'Renamed A' }), feedEvent('tour-c')]);
    const revive = (await feeds.pollEvents(p.id))!;
    expect(revive).toMatchObject({ ok: true, applied: 2, skipped: 0 });
    expect(revive.problems).toEqual([]);
    expect((await getEvent('tour-a')).body.data.title).toBe('Renamed A');
    expect(await statuses('tour-a')).toEqual(['CANCELLED', 'CANCELLED']);
    expect(await statuses('tour-c')).toEqual(['ON_SALE']);
  });

  it('reads cancelledAt as ISO 8601 or epoch seconds or milliseconds', () => {
    const at = Date.parse('2026-03-01T11:00:00Z');
    expect(parseFeedTimestamp('2026-03-01T12:00:00+01:00')).toBe(at);
    expect(parseFeedTimestamp(at / 1000)).toBe(at);
    expect(parseFeedTimestamp(at)).toBe(at);
    expect(parseFeedTimestamp(String(at / 1000))).toBe(at);
    expect(parseFeedTimestamp(String(at))).toBe(at);
    expect(parseFeedTimestamp(1772362800.5)).toBe(1772362800500);
    for (const bad of ['yesterday', '2026-03-01', '', -5, Number.NaN, null, {}, true]) expect(parseFeedTimestamp(bad)).toBeNull();
  });
});

describe('feeds: schedule and ANNOUNCED shows', () => {
  it('ANNOUNCED stays until dates.salesStartAt, then tick() makes it ON_SALE', async () => {
    const { t, platform, feeds, getEvent } = await setup({ feedPollSeconds: 86_400, cancelledFeedUrl: null });
    platform.serve('/events', [
      feedEvent('tour-a', {
        shows: [
          feedShow('show-1', { status: 'ANNOUNCED', dates: { ...DATES, salesStartAt: '2026-03-02T00:00:00Z' } }),
          // Sales already started: ON_SALE at once.
          feedShow('show-2', { status: 'ANNOUNCED', dates: { ...DATES, salesStartAt: '2026-02-01T00:00:00Z' } }),
        ],
      }),
    ]);
    const status = async () => (await getEvent('tour-a')).body.data.shows.map((s: { status: string }) => s.status);
    expect((await feeds.tick()).runs).toHaveLength(1);
    expect(await status()).toEqual(['ANNOUNCED', 'ON_SALE']);

    t.clock.set('2026-03-01T23:59:59Z');
    expect(await feeds.tick()).toEqual({ runs: [], promoted: 0 });
    expect(await status()).toEqual(['ANNOUNCED', 'ON_SALE']);

    t.clock.set('2026-03-02T00:00:00Z');
    expect(await feeds.tick()).toEqual({ runs: [], promoted: 1 });
    expect(await status()).toEqual(['ON_SALE', 'ON_SALE']);
  });

  it('due() follows feedPollSeconds from the latest run in the database', async () => {
    const { t, platform, p, feeds } = await setup({ feedPollSeconds: 60 });
    await t.partner('B', { eventsFeedUrl: platform.url('/events'), feedPollSeconds: 300 });
    await t.partner('No feeds');
    const pairs = (list: { partnerId: string; feed: string }[]) => list.map((d) => `${d.partnerId === p.id ? 'A' : 'B'}:${d.feed}`);

    expect(pairs(await feeds.due())).toEqual(['A:events', 'A:cancelled', 'B:events']);
    expect((await feeds.tick()).runs).toHaveLength(3);
    expect(platform.hits).toHaveLength(3);
    expect(await feeds.due()).toEqual([]);
    expect((await feeds.tick()).runs).toEqual([]);
    expect(platform.hits).toHaveLength(3);

    t.clock.advance(59_000);
    expect(await feeds.due()).toEqual([]);
    t.clock.advance(1_000);
    expect(pairs(await feeds.due())).toEqual(['A:events', 'A:cancelled']);
    await feeds.tick();
    t.clock.advance(240_000);
    expect(pairs(await feeds.due())).toEqual(['A:events', 'A:cancelled', 'B:events']);
    expect(pairs(await feeds.due(t.clock.now() - 1))).toEqual(['A:events', 'A:cancelled']);

    // A restart (a new service over the same database) keeps the schedule.
    await feeds.tick();
    const restarted = new FeedsService(t.deps);
    expect(await restarted.due()).toEqual([]);
  });

  it('services ticking at once (several processes) poll each feed once', async () => {
    const { t, platform, feeds } = await setup();
    // Eight at once: on PostgreSQL (READ COMMITTED, a pool of connections) they would all read
    // "due" before any wrote its run, without the per-feed serialisation of the claim.
    const others = Array.from({ length: 7 }, () => new FeedsService(t.deps, { timeoutMs: FEED_TIMEOUT_MS }));
    const rounds = await Promise.all([feeds.tick(), ...others.map((s) => s.tick())]);
    expect(rounds.reduce((n, r) => n + r.runs.length, 0)).toBe(2);
    expect(platform.hits.map((h) => h.path).sort()).toEqual(['/cancelled', '/events']);
    expect(await t.db.select().from(feedRuns)).toHaveLength(2);
  });

  it('a manual poll ignores the schedule; a feed without a URL is not polled', async () => {
    const { t, platform, p, feeds } = await setup({ cancelledFeedUrl: null });
    await feeds.tick();
    expect(await feeds.pollEvents(p.id)).toMatchObject({ ok: true });
    expect(await feeds.pollCancelled(p.id)).toBeNull();
    expect(platform.hits).toHaveLength(2);
    await expect(feeds.pollEvents('ptr_unknown')).rejects.toMatchObject({ status: 404 });
    expect(await t.db.select().from(feedRuns)).toHaveLength(2);
  });
});

describe('feeds: operator routes', () => {
  it('need the operator token, and answer 404 for an unknown partner', async () => {
    const { t, p } = await setup();
    expect((await t.request('GET', `/admin/v1/partners/${p.id}/feedRuns`)).status).toBe(401);
    expect((await t.request('POST', `/admin/v1/partners/${p.id}/feeds/poll`)).status).toBe(401);
    expect((await t.request('GET', `/admin/v1/partners/${p.id}/feedRuns`, { key: p.keys.private })).status).toBe(401);
    const unknownRuns = await t.request('GET', '/admin/v1/partners/ptr_unknown/feedRuns', { operator: true });
    expect(unknownRuns.status).toBe(404);
    expect(unknownRuns.body.errors[0].code).toBe('not_found');
    expect((await t.request('POST', '/admin/v1/partners/ptr_unknown/feeds/poll', { operator: true })).status).toBe(404);
  });

  it('poll both feeds now and list the latest 50 runs, newest first', async () => {
    const { t, platform, p } = await setup();
    platform.serve('/events', [feedEvent('tour-a'), { externalReferenceId: 'broken' }]);
    const polled = await t.request('POST', `/admin/v1/partners/${p.id}/feeds/poll`, { operator: true });
    expect(polled.status).toBe(200);
    expect(polled.body.data).toMatchObject([
      { feed: 'events', ok: true, applied: 1, skipped: 1, startedAt: '2026-03-01T12:00:00.000Z', finishedAt: '2026-03-01T12:00:00.000Z' },
      { feed: 'cancelled', ok: true, applied: 0, skipped: 0, problems: [] },
    ]);
    expect(polled.body.data[0].problems[0]).toMatch(/^item 1 \(externalReferenceId 'broken'\): title is required; /);

    for (let i = 1; i <= 60; i++) {
      await t.db
        .insert(feedRuns)
        .values({ id: `frn_old_${String(i).padStart(2, '0')}`, partnerId: p.id, feed: 'events', startedAt: t.clock.now() - i * 60_000, finishedAt: t.clock.now() - i * 60_000, ok: true, applied: 0, skipped: 0, problems: [] });
    }
    const list = await t.request('GET', `/admin/v1/partners/${p.id}/feedRuns`, { operator: true });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(50);
    // Both runs of the poll started at the same instant; they come before every older run.
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();
    expect(ids(list.body.data.slice(0, 2))).toEqual(ids(polled.body.data));
    expect(list.body.data[2].id).toBe('frn_old_01');
    expect(list.body.data[49].id).toBe('frn_old_48');

    const other = await t.partner('Without feeds');
    expect((await t.request('POST', `/admin/v1/partners/${other.id}/feeds/poll`, { operator: true })).body.data).toEqual([]);
    expect((await t.request('GET', `/admin/v1/partners/${other.id}/feedRuns`, { operator: true })).body.data).toEqual([]);
  });
});
