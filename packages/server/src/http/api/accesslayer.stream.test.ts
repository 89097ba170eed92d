import { request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createApp } from '../../app.js';
import { start, type Service } from '../../main.js';
import { OPERATOR_TOKEN, serviceDatabaseEnv } from '../../testing/harness.js';
import { eventBody, showBody, ticketBody, withEvent } from '../../testing/factories.js';
import { ManualClock } from '../../lib/clock.js';
import { tempDir } from '../../testing/temp-dir.js';
import { setup } from '../../flows/accesslayer/accesslayer.buy.testing.js';
import { reserveListings } from '../../flows/reserve-listings.js';
import { StockStreams, STOCK_KEY_CHECK_MS, STOCK_RETRY_MS, type ShowStock } from '../../flows/accesslayer/accesslayer.stream.js';

/**
 * The live stock stream of the buy access layer (GET /v1/wrapper/accesslayer/stream), read as a
 * browser's EventSource would, frame by frame from the response body. No sleeps: the hub's
 * timers are stretched to an hour and the tests drive it (`checkNow`, `heartbeatNow`, `close`);
 * what time changes, the manual clock changes.
 */

const PAGE = 'https://shop.acme.example';
const HOUR = 3_600_000;

interface Frame {
  event?: string;
  id?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

function parseFrame(block: string): Frame {
  const f: Frame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) f.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(':');
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (field === 'retry') f.retry = Number(value);
      else if (field === 'event' || field === 'id' || field === 'data') f[field] = value;
    }
  }
  return f;
}

/** Reads a `text/event-stream` body incrementally: `next` waits for a frame, `arrived` takes what is there without waiting. */
function frames(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const queue: Frame[] = [];
  let buffer = '';
  let pending: ReturnType<typeof reader.read> | null = null;
  let done = false;
  /** One read; `wait` false gives up once every settled promise and timer of this turn has run (setImmediate). */
  const pull = async (wait: boolean): Promise<boolean> => {
    pending ??= reader.read();
    const r = wait ? await pending : await Promise.race([pending, new Promise<null>((resolve) => setImmediate(() => resolve(null)))]);
    if (r === null) return false;
    pending = null;
    if (r.done) {
      done = true;
      return false;
    }
    buffer += decoder.decode(r.value, { stream: true });
    for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
      queue.push(parseFrame(buffer.slice(0, i)));
      buffer = buffer.slice(i + 2);
    }
    return true;
  };
  return {
    /** The next frame (undefined once the stream has ended). */
    async next(): Promise<Frame | undefined> {
      while (queue.length === 0 && !done) await pull(true);
      return queue.shift();
    },
    /** The frames sent so far, without waiting for more. */
    async arrived(): Promise<Frame[]> {
      while (!done && (await pull(false)));
      return queue.splice(0);
    },
    /** Reads to the end; the frames on the way. */
    async rest(): Promise<Frame[]> {
      while (!done) await pull(true);
      return queue.splice(0);
    },
    get ended() {
      return done;
    },
    cancel: () => reader.cancel(),
  };
}

const stockOf = (f: Frame | undefined): ShowStock => JSON.parse(f!.data!) as ShowStock;

/**
 * The buy fixture (accesslayer.buy.testing.ts) with an app of its own around a hub whose timers
 * never fire during a test. `maxStreams` through the config, as ACCESS_LAYER_MAX_STREAMS sets it.
 */
async function streaming(opts: { maxStreams?: number; framesPerSecond?: number; settings?: Parameters<typeof setup>[0] } = {}) {
  const fx = await setup(opts.settings);
  const { t, p } = fx;
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const deps = { ...t.deps, logger, config: { ...t.deps.config, ...(opts.maxStreams === undefined ? {} : { accessLayerMaxStreams: opts.maxStreams }) } };
  const hub = new StockStreams(deps, undefined, { checkEveryMs: HOUR, heartbeatEveryMs: HOUR, ...(opts.framesPerSecond === undefined ? {} : { framesPerSecond: opts.framesPerSecond }) });
  const app = createApp(deps, { stockStreams: hub });
  const path = (query: Record<string, string> = {}) => `/v1/wrapper/accesslayer/stream?${new URLSearchParams({ type: 'buy', eventId: 'tour', showId: 'show-1', ...query })}`;
  /** Opens a stream as EventSource does (`Accept: text/event-stream`), the key in `Authorization` unless `key` is null. */
  const open = async (query: Record<string, string> = {}, headers: Record<string, string> = {}, key: string | null = p.keys.public) => {
    const res = await app.request(path(query), { headers: { accept: 'text/event-stream', ...(key ? { authorization: key } : {}), ...headers } });
    return { res, sse: res.status === 200 ? frames(res) : null, body: res.status === 200 ? null : ((await res.json()) as { status: number; errors: { code: string; message: string }[] }) };
  };
  /** Opens a stream and reads up to its snapshot. */
  const subscribed = async (query: Record<string, string> = {}, headers: Record<string, string> = {}) => {
    // The key as EventSource sends it (in the URL) when the query has it, else in Authorization.
    const { res, sse } = await open(query, headers, 'publicKey' in query ? null : p.keys.public);
    expect(res.status).toBe(200);
    expect(await sse!.next()).toEqual({ retry: STOCK_RETRY_MS });
    const snapshot = await sse!.next();
    expect(snapshot).toMatchObject({ event: 'snapshot', id: expect.stringMatching(/^[0-9a-f]{12}-\d+$/) });
    return { sse: sse!, snapshot: snapshot!, stock: stockOf(snapshot) };
  };
  /** What GET /v1/wrapper/accesslayer says per category now: [quantityForSale, floorPrice]. */
  const layerNumbers = async () => {
    const res = await app.request(`/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1`, { headers: { authorization: p.keys.public } });
    const list = ((await res.json()) as { data: { class: string; categoriesList?: { categories: { ticketOptionId: string; quantityForSale: number; floorPrice: number }[] } }[] }).data.find((c) => c.class === 'categoriesList')!.categoriesList!;
    return Object.fromEntries(list.categories.map((c) => [c.ticketOptionId, [c.quantityForSale, c.floorPrice]]));
  };
  const numbers = (stock: ShowStock) => Object.fromEntries(stock.categories.map((c) => [c.ticketOptionId, [c.quantityForSale, c.floorPrice]]));
  return { ...fx, hub, app, logs, path, open, subscribed, layerNumbers, numbers };
}

describe('live stock stream: the snapshot', () => {
  it('starts with retry, then the show’s stock as the access layer counts it, as an uncompressed, uncached event stream', async () => {
    const { list, subscribed, open, layerNumbers, numbers } = await streaming();
    await list(['f3'], 4000);
    await list(['v1'], 11000);
    await list(['v2'], 11000);
    const { res, sse: first } = await open({}, { 'accept-encoding': 'br, gzip' });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBeNull();
    await first!.cancel();

    const { stock, sse } = await subscribed();
    expect(stock).toEqual({
      eventId: 'tour',
      showId: 'show-1',
      enabled: true,
      totalCount: 3,
      categories: [
        { ticketOptionId: 'opt-field', quantityForSale: 1, floorPrice: 44, currency: 'EUR', enabled: true },
        { ticketOptionId: 'opt-vip', quantityForSale: 2, floorPrice: 121, currency: 'EUR', enabled: true },
        { ticketOptionId: 'opt-box', quantityForSale: 0, floorPrice: 0, currency: 'EUR', enabled: false },
        { ticketOptionId: 'opt-stand', quantityForSale: 0, floorPrice: 0, currency: 'EUR', enabled: false },
      ],
      areas: [
        { area: 'Field', quantityForSale: 1, floorPrice: 44 },
        { area: 'Lounge', quantityForSale: 2, floorPrice: 121 },
      ],
    });
    // The same numbers as the components.
    expect(numbers(stock)).toEqual(await layerNumbers());
    await sse.cancel();
  });

  it('answers the stock once, as JSON in the envelope, to a client that does not ask for text/event-stream (and to HEAD)', async () => {
    const { t, p, list, hub, app, path } = await streaming();
    await list(['f3'], 4000);
    // Through the harness: the answer is checked against the OpenAPI document.
    const res = await t.request('GET', path(), { key: p.keys.public });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.data).toMatchObject({ eventId: 'tour', showId: 'show-1', enabled: true, totalCount: 1 });
    expect((await app.request(path(), { method: 'HEAD', headers: { accept: 'text/event-stream', authorization: p.keys.public } })).status).toBe(200);
    expect(hub.open).toBe(0);
  });
});

describe('live stock stream: changes', () => {
  it('sends a stock event when a listing is created, reserved or repriced, with growing ids, and nothing when nothing changed', async () => {
    const { t, p, list, reprice, hub, subscribed, layerNumbers, numbers } = await streaming();
    const first = await list(['f3'], 4000);
    const { sse, snapshot } = await subscribed();
    // Written, but nothing of this show's stock: no event.
    await hub.checkNow();
    expect(await sse.arrived()).toEqual([]);

    const vip = await list(['v1'], 11000);
    await hub.checkNow();
    const [created, ...none] = await sse.arrived();
    expect(none).toEqual([]);
    expect(created).toMatchObject({ event: 'stock' });
    expect(Number(created!.id!.split('-')[1])).toBeGreaterThan(Number(snapshot.id!.split('-')[1]));
    expect(created!.id!.split('-')[0]).toBe(snapshot.id!.split('-')[0]);
    expect(numbers(stockOf(created))).toMatchObject({ 'opt-field': [1, 44], 'opt-vip': [1, 121] });
    expect(stockOf(created).totalCount).toBe(2);

    // Reserved in a checkout: off sale, and said to be held until the hold ends.
    const partner = await t.deps.partners.get(p.id);
    const buyer = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'buyer@example.com' }));
    const hold = await t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [first.id], buyerPk: buyer.id }));
    await hub.checkNow();
    const reserved = stockOf(await sse.next());
    const backAt = new Date(hold.expiresAt).toISOString();
    expect(reserved.categories[0]).toEqual({ ticketOptionId: 'opt-field', quantityForSale: 0, floorPrice: 0, currency: 'EUR', enabled: false, reserved: { tickets: 1, backAt, whose: 'any' } });
    expect(reserved).toMatchObject({ enabled: true, totalCount: 1, reserved: { tickets: 1, backAt, whose: 'any' } });
    expect(numbers(reserved)).toEqual(await layerNumbers());


    // Repriced: the floor follows.
    await reprice(vip.id, 10000);
    await hub.checkNow();
    expect(numbers(stockOf(await sse.next()))['opt-vip']).toEqual([1, 110]);
    expect(await sse.arrived()).toEqual([]);
    await sse.cancel();
  });

  it('sends nothing when another show or another partner changes', async () => {
    const { t, list, hub, subscribed } = await streaming();
    const { sse } = await subscribed();
    await list(['x1'], 4000); // show-2
    const other = await t.partner('Other Tickets');
    await t.request('POST', '/v1/events', { key: other.keys.private, body: eventBody('tour') });
    await hub.checkNow();
    expect(await sse.arrived()).toEqual([]);
    await sse.cancel();
  });

  it('follows the partner’s settings: a category the operator disables leaves the stock', async () => {
    const { list, hub, subscribed, settings } = await streaming();
    await list(['f3'], 4000);
    const { sse, stock } = await subscribed();
    expect(stock.categories.map((c) => c.ticketOptionId)).toEqual(['opt-field', 'opt-vip', 'opt-box', 'opt-stand']);
    expect((await settings({ buyButton: { visible: true, ctaText: { en: 'Buy', es: 'Comprar' }, colors: { background: '#000000', text: '#ffffff' } }, disabledTicketOptions: [{ eventId: 'tour', ticketOptionId: 'opt-field' }] })).status).toBe(200);
    await hub.checkNow();
    const after = stockOf(await sse.next());
    expect(after.categories.map((c) => c.ticketOptionId)).toEqual(['opt-vip', 'opt-box', 'opt-stand']);
    expect(after).toMatchObject({ enabled: false, totalCount: 0, areas: [{ area: 'Lounge', quantityForSale: 0, floorPrice: 0 }] });
    await sse.cancel();
  });

  it('closes the sale when the show starts, with no write: the clock alone', async () => {
    const { t, list, hub, subscribed } = await streaming();
    await list(['f3'], 4000);
    const { sse, stock } = await subscribed();
    expect(stock.enabled).toBe(true);
    t.clock.set('2026-05-01T18:59:59Z');
    await hub.checkNow();
    expect(await sse.arrived()).toEqual([]);
    t.clock.set('2026-05-01T19:00:00Z');
    await hub.checkNow();
    const closed = stockOf(await sse.next());
    expect(closed).toMatchObject({ enabled: false, totalCount: 1 });
    expect(closed.categories[0]).toMatchObject({ quantityForSale: 1, enabled: false });
    await sse.cancel();
  });
});

describe('live stock stream: one subscription per show', () => {
  it('serves N streams of a show from one snapshot read, and refreshes the show once per change for all of them', async () => {
    const { list, hub, subscribed } = await streaming();
    const snapshots = hub.buy.snapshots;
    await list(['f3'], 4000);
    // Snapshot reads: fingerprint checks and rebuilds (a changed fingerprint is both).
    const reads = () => ({ checks: snapshots.checks, rebuilds: snapshots.rebuilds });
    const since = (from: { checks: number; rebuilds: number }) => ({ checks: snapshots.checks - from.checks, rebuilds: snapshots.rebuilds - from.rebuilds });
    const before = reads();
    const streams = [];
    for (let i = 0; i < 5; i++) streams.push(await subscribed());
    expect(since(before)).toEqual({ checks: 0, rebuilds: 1 });
    expect(hub.shows).toBe(1);
    expect(hub.open).toBe(5);
    expect(new Set(streams.map((s) => s.snapshot.id)).size).toBe(1);

    const refreshes = hub.refreshes;
    const between = reads();
    await list(['f4'], 3000);
    await hub.checkNow();
    expect(hub.refreshes - refreshes).toBe(1);
    expect(since(between)).toEqual({ checks: 1, rebuilds: 1 });
    const events = await Promise.all(streams.map(async (s) => await s.sse.next()));
    expect(new Set(events.map((e) => e!.id)).size).toBe(1);
    for (const e of events) expect(stockOf(e).categories[0]).toMatchObject({ quantityForSale: 2, floorPrice: 33 });

    // Nothing written since: a check reads nothing at all.
    const idle = reads();
    await hub.checkNow();
    expect(since(idle)).toEqual({ checks: 0, rebuilds: 0 });
    expect(hub.refreshes - refreshes).toBe(1);

    // The timers run exactly while a stream is open.
    expect(hub.ticking).toBe(true);
    for (const s of streams) await s.sse.cancel();
    expect(hub.open).toBe(0);
    expect(hub.shows).toBe(0);
    expect(hub.ticking).toBe(false);
  });
});

describe('live stock stream: resuming', () => {
  it('sends no snapshot to a client whose Last-Event-ID is the current stock, and one when it changed since or the id is not ours', async () => {
    const { list, hub, open, subscribed } = await streaming();
    await list(['f3'], 4000);
    const first = await subscribed();
    await first.sse.cancel();
    expect(hub.shows).toBe(0);

    // The page reconnects (EventSource sends Last-Event-ID): nothing changed, the stream just goes on.
    const again = await open({}, { 'last-event-id': first.snapshot.id! });
    expect(await again.sse!.next()).toEqual({ retry: STOCK_RETRY_MS });
    expect(await again.sse!.arrived()).toEqual([]);
    await list(['f4'], 3000);
    await hub.checkNow();
    const change = await again.sse!.next();
    expect(change).toMatchObject({ event: 'stock' });
    await again.sse!.cancel();

    // Reconnecting by hand with the first id: the stock changed since, so a snapshot.
    const stale = await open({ lastEventId: first.snapshot.id! });
    await stale.sse!.next();
    expect(await stale.sse!.next()).toMatchObject({ event: 'snapshot', id: change!.id, data: change!.data });
    await stale.sse!.cancel();
    // With the current id by hand: nothing.
    const current = await open({ lastEventId: change!.id! });
    await current.sse!.next();
    expect(await current.sse!.arrived()).toEqual([]);
    await current.sse!.cancel();
    // An id of another process (or an earlier start of this one): a snapshot, whatever its number.
    const foreign = await open({}, { 'last-event-id': `000000000000-${change!.id!.split('-')[1]}` });
    await foreign.sse!.next();
    expect(await foreign.sse!.next()).toMatchObject({ event: 'snapshot' });
    await foreign.sse!.cancel();
  });
});

describe('live stock stream: keys, origins and refusals', () => {
  it('takes the public key in the URL for EventSource, with the partner’s CORS; refuses other keys there without logging them', async () => {
    const { p, open, logs } = await streaming({ settings: { settings: { allowedOrigins: [PAGE] } } });
    const inUrl = await open({ publicKey: p.keys.public }, { origin: PAGE }, null);
    expect(inUrl.res.status).toBe(200);
    expect(inUrl.res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(await inUrl.sse!.next()).toEqual({ retry: STOCK_RETRY_MS });
    expect(await inUrl.sse!.next()).toMatchObject({ event: 'snapshot' });
    await inUrl.sse!.cancel();
    // In the header, as every access-layer call.
    const inHeader = await open({}, { origin: PAGE });
    expect(inHeader.res.headers.get('access-control-allow-origin')).toBe(PAGE);
    await inHeader.sse!.cancel();

    const foreign = await open({ publicKey: p.keys.public }, { origin: 'https://evil.example' }, null);
    expect(foreign.res.status).toBe(403);
    expect(foreign.body!.errors[0]!.code).toBe('origin_not_allowed');
    for (const secret of [p.keys.private, p.keys.channels]) {
      const refused = await open({ publicKey: secret }, {}, null);
      expect(refused.res.status).toBe(403);
      expect(refused.body!.errors[0]!.code).toBe('forbidden_key_kind');
      expect(refused.body!.errors[0]!.message).toMatch(/Only the public key may be sent in the URL/);
      expect(refused.body!.errors[0]!.message).not.toContain(secret);
    }
    const warned = logs.filter((l) => /sent in a URL/.test(String(l.msg)));
    expect(warned.map((l) => l.kind)).toEqual(['private', 'channels']);
    const text = JSON.stringify(logs);
    expect(text).not.toContain(p.keys.private);
    expect(text).not.toContain(p.keys.channels);
    expect(text).not.toContain(p.keys.public);

    const unknown = await open({ publicKey: 'pk_unknown_key_000000000000' }, {}, null);
    expect(unknown.res.status).toBe(401);
    expect((await open({}, {}, 'pk_unknown_key_000000000000')).res.status).toBe(401);
    expect((await open({}, {}, null)).res.status).toBe(401);
    const both = await open({ publicKey: p.keys.public });
    expect(both.res.status).toBe(400);
    expect(both.body!.errors[0]).toMatchObject({ code: 'invalid_value', path: 'publicKey', in: 'query' });
    expect((await open({}, {}, p.keys.channels)).res.status).toBe(403);
  });

  it('answers 404 for an unknown event or show and 400 for a bad query, in the envelope, before any stream', async () => {
    const { t, p, hub, path } = await streaming();
    const headers = { accept: 'text/event-stream' };
    const show = await t.request('GET', path({ showId: 'show-9' }), { key: p.keys.public, headers });
    expect(show.status).toBe(404);
    expect(show.body.errors[0]).toMatchObject({ code: 'not_found' });
    expect((await t.request('GET', path({ eventId: 'nope' }), { key: p.keys.public, headers })).status).toBe(404);
    const missing = await t.request('GET', '/v1/wrapper/accesslayer/stream?type=buy&showId=show-1', { key: p.keys.public, headers });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ path: 'eventId', in: 'query' });
    expect((await t.request('GET', path({ type: 'sell' }), { key: p.keys.public, headers })).status).toBe(400);
    expect((await t.request('GET', `${path()}&showId=show-2`, { key: p.keys.public, headers })).status).toBe(400);
    expect(hub.open).toBe(0);
  });
});

describe('live stock stream: the frame budget', () => {
  it('holds a show’s next stock back for its share of the budget, then sends what changed meanwhile in one frame; a stream joining meanwhile gets the stock last sent', async () => {
    // 2 frames a second for 2 streams: a show's stock at most once a second.
    const { t, list, hub, subscribed } = await streaming({ framesPerSecond: 2 });
    const clock = t.deps.clock as ManualClock;
    const a = await subscribed();
    const b = await subscribed();
    await list(['f3'], 4000);
    await hub.checkNow();
    const first = await a.sse.arrived();
    expect(first.map((f) => [f.event, stockOf(f).categories.find((c) => c.ticketOptionId === 'opt-field')?.quantityForSale])).toEqual([['stock', 1]]);
    expect(await b.sse.arrived()).toEqual(first);

    // Within the second: held back, for the open streams and a new one alike.
    await list(['f4'], 4500);
    clock.advance(400);
    await hub.checkNow();
    expect(await a.sse.arrived()).toEqual([]);
    const c = await subscribed();
    expect(c.snapshot.id).toBe(first[0]!.id);
    await list(['v1'], 11000);
    clock.advance(599);
    await hub.checkNow();
    expect(await a.sse.arrived()).toEqual([]);

    // Its second over: both changes in one frame, to all three.
    clock.advance(1);
    await hub.checkNow();
    for (const s of [a, b, c]) {
      const [next, ...none] = await s.sse.arrived();
      expect(none).toEqual([]);
      expect(stockOf(next).totalCount).toBe(3);
    }
    for (const s of [a, b, c]) await s.sse.cancel();
  });

  it('holds nothing back under the budget: every check that finds a change sends it', async () => {
    const { list, hub, subscribed } = await streaming();
    const { sse } = await subscribed();
    for (const id of ['f3', 'f4', 'v1']) {
      await list([id], 4000);
      await hub.checkNow();
      expect((await sse.arrived()).map((f) => f.event)).toEqual(['stock']);
    }
    await sse.cancel();
  });
});

describe('live stock stream: keys', () => {
  it('ends the streams of a key rotated away with `bye` (revoked) within a second, and a reconnection with it answers 401', async () => {
    const { t, p, hub, open, subscribed } = await streaming();
    const inUrl = await subscribed({ publicKey: p.keys.public });
    const inHeader = await subscribed({ showId: 'show-2' });
    const other = await t.partner('Other Tickets');
    await withEvent(t, other, eventBody('tour', { shows: [showBody('show-1')] }));
    const theirs = await open({}, {}, other.keys.public);
    expect(theirs.res.status).toBe(200);
    await theirs.sse!.next();
    await theirs.sse!.next();

    // The keys read by a check, then rotated within the second: not read again before the second is over…
    await hub.checkNow();
    const { secret } = await t.deps.partners.rotate(p.id, 'public');
    await hub.checkNow();
    expect(await inUrl.sse.arrived()).toEqual([]);
    // …and then at the next check, though nothing was written since.
    (t.deps.clock as ManualClock).advance(STOCK_KEY_CHECK_MS);
    await hub.checkNow();
    for (const s of [inUrl, inHeader]) {
      expect(await s.sse.rest()).toEqual([{ event: 'bye', data: '{"reason":"revoked"}' }]);
    }
    // Another partner's stream, opened with its own key, goes on.
    expect(theirs.sse!.ended).toBe(false);
    expect(hub.open).toBe(1);
    expect((await open({ publicKey: p.keys.public }, {}, null)).res.status).toBe(401);
    const renewed = await open({ publicKey: secret }, {}, null);
    expect(renewed.res.status).toBe(200);
    await renewed.sse!.cancel();
    await theirs.sse!.cancel();
  });

  it('keeps a stream through a rotation’s grace period and ends it when the period is over, with no write', async () => {
    const { t, p, hub, subscribed } = await streaming();
    const clock = t.deps.clock as ManualClock;
    const { sse } = await subscribed({ publicKey: p.keys.public });
    await t.deps.partners.rotate(p.id, 'public', 60);
    await hub.checkNow();
    expect(await sse.arrived()).toEqual([]);
    clock.advance(59_000);
    await hub.checkNow();
    expect(await sse.arrived()).toEqual([]);
    clock.advance(1_000);
    await hub.checkNow();
    expect(await sse.rest()).toEqual([{ event: 'bye', data: '{"reason":"revoked"}' }]);
    expect(hub.open).toBe(0);
  });

  it('counts stream openings apart from the partner’s API limit: neither uses up the other', async () => {
    const { t, p, open, buy } = await streaming({ settings: { settings: { rateLimitPerMinute: 2 } } });
    // The set-up's own calls out of the window.
    (t.deps.clock as ManualClock).advance(61_000);
    const streams = [await open({ publicKey: p.keys.public }, {}, null), await open()];
    expect(streams.map((s) => s.res.status)).toEqual([200, 200]);
    const third = await open();
    expect(third.res.status).toBe(429);
    expect(third.res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(third.body).toMatchObject({ errors: [{ code: 'rate_limited' }] });
    // The API's own two calls of the minute are still there.
    expect((await buy()).status).toBe(200);
    expect((await buy()).status).toBe(200);
    expect((await buy()).status).toBe(429);
    for (const s of streams) await s.sse!.cancel();
  });
});

describe('live stock stream: limits, heartbeats and shutdown', () => {
  it('refuses the stream beyond ACCESS_LAYER_MAX_STREAMS with 503 and Retry-After, and counts the open ones in the metrics', async () => {
    const { hub, app, open, subscribed } = await streaming({ maxStreams: 2 });
    expect(hub.maxStreams).toBe(2);
    const a = await subscribed();
    const b = await subscribed({ showId: 'show-2' });
    const third = await open();
    expect(third.res.status).toBe(503);
    expect(third.res.headers.get('retry-after')).toBe('10');
    expect(third.body).toMatchObject({ status: 503, errors: [{ code: 'rate_limited' }] });
    const metrics = await (await app.request('/metrics', { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
    expect(metrics).toMatch(/^resale_accesslayer_streams 2$/m);
    await a.sse.cancel();
    const fourth = await subscribed();
    await fourth.sse.cancel();
    await b.sse.cancel();
  });

  it('sends a comment line as heartbeat', async () => {
    const { hub, subscribed } = await streaming();
    const { sse } = await subscribed();
    hub.heartbeatNow();
    expect(await sse.arrived()).toEqual([{ comment: 'hb' }]);
    await sse.cancel();
  });

  it('drops a client that stops reading once its queue is full, and lets go of its subscription', async () => {
    const { hub, subscribed } = await streaming();
    const reading = await subscribed();
    const stalled = await subscribed({ showId: 'show-2' });
    expect(hub.open).toBe(2);
    // 6 bytes a heartbeat: 256 KB is about 44,000 of them; `reading` reads along, `stalled` does not.
    for (let i = 0; i < 50_000; i++) {
      hub.heartbeatNow();
      if (i % 1000 === 0) await reading.sse.arrived();
    }
    expect(hub.open).toBe(1);
    expect(hub.shows).toBe(1);
    const rest = await stalled.sse.rest();
    expect(rest.length).toBeGreaterThan(40_000);
    expect(rest.every((f) => f.comment === 'hb')).toBe(true);
    await reading.sse.cancel();
  });

  it('ends every stream with `bye` on shutdown and refuses new ones', async () => {
    const { hub, open, subscribed } = await streaming();
    const a = await subscribed();
    const b = await subscribed({ showId: 'show-2' });
    hub.close();
    for (const s of [a, b]) {
      expect(await s.sse.rest()).toEqual([{ event: 'bye', data: '{"reason":"shutdown"}' }]);
      expect(s.sse.ended).toBe(true);
    }
    expect(hub.open).toBe(0);
    expect(hub.ticking).toBe(false);
    const refused = await open();
    expect(refused.res.status).toBe(503);
    expect(refused.res.headers.get('retry-after')).toBe('3');
    expect(refused.body).toMatchObject({ errors: [{ code: 'not_ready' }] });
  });
});

describe('live stock stream: a running service', () => {
  const running: Service[] = [];
  afterEach(async () => {
    for (const s of running.splice(0)) await s.stop();
  });

  /** A GET whose body is read as it comes: resolves with the answer's head, the text so far in `text()`. */
  function get(port: number, path: string, headers: Record<string, string>): Promise<{ res: IncomingMessage; text: () => string; end: Promise<string> }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        let text = '';
        const end = new Promise<string>((done) => res.on('end', () => done(text)));
        res.on('data', (chunk) => (text += String(chunk)));
        resolve({ res, text: () => text, end });
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('streams over HTTP, uncompressed, and the drain ends the streams instead of waiting for its timeout', async () => {
    const database = await serviceDatabaseEnv(join(tempDir('resale-stream'), 'db.sqlite'));
    const keys = { private: 'sk_stream_test_private_00000', public: 'pk_stream_test_public_000000' };
    const service = await start({
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      ...database,
      SECRET_KEY: 'stream-test-secret-key-000000000000',
      LOG_LEVEL: 'silent',
      SANDBOX_PRIVATE_KEY: keys.private,
      SANDBOX_PUBLIC_KEY: keys.public,
      SANDBOX_CHANNELS_KEY: 'sk_ch_stream_test_channels_0',
      SHUTDOWN_GRACE_SECONDS: '0',
      SHUTDOWN_TIMEOUT_SECONDS: '60',
    });
    running.push(service);
    const created = await fetch(`http://127.0.0.1:${service.port}/v1/events`, { method: 'POST', headers: { authorization: keys.private, 'content-type': 'application/json' }, body: JSON.stringify(eventBody('tour')) });
    expect(created.status).toBe(200);
    const synced = await fetch(`http://127.0.0.1:${service.port}/v1/sync/tickets`, { method: 'POST', headers: { authorization: keys.private, 'content-type': 'application/json' }, body: JSON.stringify([ticketBody('t-1')]) });
    expect(synced.status).toBe(200);

    const stream = await get(service.port, `/v1/wrapper/accesslayer/stream?type=buy&eventId=tour&showId=show-1&publicKey=${keys.public}`, { accept: 'text/event-stream', 'accept-encoding': 'br, gzip' });
    expect(stream.res.statusCode).toBe(200);
    expect(stream.res.headers['content-type']).toBe('text/event-stream');
    expect(stream.res.headers['content-encoding']).toBeUndefined();
    // The snapshot arrives while the answer is still open.
    await new Promise<void>((resolve) => {
      const seen = () => (stream.text().includes('event: snapshot') ? resolve() : stream.res.once('data', seen));
      seen();
    });
    expect(stream.text()).toMatch(/^retry: 3000\n\nevent: snapshot\nid: [0-9a-f]{12}-\d+\ndata: \{"eventId":"tour","showId":"show-1",/);

    const started = performance.now();
    expect(await service.drain({ graceSeconds: 0, timeoutSeconds: 60 })).toEqual({ timedOut: false });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await stream.end).toMatch(/event: bye\ndata: \{"reason":"shutdown"\}\n\n$/);
  });
});
