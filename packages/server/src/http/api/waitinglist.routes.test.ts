import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../db/client.js';
import { leads } from '../../domain/marketdata/leads.table.js';
import { buyIntentions } from '../../domain/intentions/intentions.table.js';
import { listings } from '../../domain/listings/listings.table.js';
import { waitinglistEntries } from '../../domain/waitinglist/waitinglist.table.js';
import { HISTORY_EXPORT_COLUMNS } from '../../domain/waitinglist/waitinglist.service.js';
import { eventBody, showBody, ticketBody, withEvent } from '../../testing/factories.js';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { everyRow } from '../../testing/sql.js';

/**
 * The waiting list's partner API over HTTP (SQLite here, PostgreSQL in the server-pg project):
 * settings, joining, reading and leaving entries, the operator's export; every refusal in the
 * envelope with nothing written, tenants apart, and one entry per fan under concurrent joins.
 * Every answer is also checked against the OpenAPI document by the harness.
 */

const SETTINGS = '/v1/waitinglist/settings';
const ENTRIES = '/v1/waitinglist/entries';
const SHOW_1 = { externalReferenceEventId: 'tour', showId: 'show-1' };
const ON = { ...SHOW_1, enabled: true, priceCap: 'RULES' };

async function setup(opts: { seated?: boolean; settings?: Parameters<TestApp['partner']>[1] } = {}) {
  const t = createTestApp();
  const p = await t.partner('Acme Tickets', opts.settings);
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')], ...(opts.seated ? { seating: { image: 'https://partner.example/img/chart.png' } } : {}) }));
  return { t, p, ...helpers(t, p) };
}

function helpers(t: TestApp, p: TestPartner) {
  const put = (body: unknown, key = p.keys.private) => t.request('PUT', SETTINGS, { key, body });
  const join = (body: Record<string, unknown>, opts: { key?: string; headers?: Record<string, string> } = {}) =>
    t.request('POST', ENTRIES, { key: opts.key ?? p.keys.private, body: { ...SHOW_1, quantity: 2, together: false, user: 'fan@example.com', ...body }, headers: opts.headers ?? {} });
  const entries = async () => await t.db.select().from(waitinglistEntries);
  /** What a refused request must leave as it was: every row of every data table. */
  const unchanged = async (request: () => Promise<{ status: number; body: { errors: any } }>) => {
    const before = await everyRow(t.db);
    const res = await request();
    expect(await everyRow(t.db)).toBe(before);
    return res;
  };
  return { put, join, entries, unchanged };
}

const paths = (errors: { path?: string }[]) => errors.map((e) => e.path).sort();

describe('PUT and GET /v1/waitinglist/settings', () => {
  it('answers the defaults until set, then what was set, with the venue’s zone', async () => {
    const { t, p, put } = await setup();
    const initial = await t.request('GET', `${SETTINGS}?externalReferenceEventId=tour&showId=show-1`, { key: p.keys.private });
    expect(initial.status).toBe(200);
    expect(initial.body.data).toEqual({ ...SHOW_1, enabled: false, offerMinutes: 15, quietHours: null, priceCap: 'RULES', waiting: 0, updatedAt: null });
    const set = await put({ ...SHOW_1, enabled: true, offerMinutes: 30, quietHours: { start: '22:00', end: '08:00' }, priceCap: 'FACE_VALUE' });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({
      ...SHOW_1,
      enabled: true,
      offerMinutes: 30,
      quietHours: { start: '22:00', end: '08:00', timeZone: 'Europe/Madrid' },
      priceCap: 'FACE_VALUE',
      waiting: 0,
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
    expect((await t.request('GET', `${SETTINGS}?externalReferenceEventId=tour&showId=show-1`, { key: p.keys.private })).body.data).toEqual(set.body.data);
    // A PUT: what is not sent is the default again.
    expect((await put(ON)).body.data).toMatchObject({ offerMinutes: 15, quietHours: null, priceCap: 'RULES' });
  });

  it('names every invalid field at once and writes nothing', async () => {
    const { put, unchanged } = await setup();
    const res = await unchanged(() => put({ externalReferenceEventId: 'tour', enabled: 'yes', offerMinutes: 2, quietHours: { start: '25:00', end: '8' }, priceCap: 'CHEAP', extra: 1 }));
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(['enabled', 'extra', 'offerMinutes', 'priceCap', 'quietHours.end', 'quietHours.start', 'showId']);
    // What only the service can tell: an unknown zone, equal ends.
    const zone = await unchanged(() => put({ ...ON, quietHours: { start: '22:00', end: '22:00', timeZone: 'Mars/Olympus' } }));
    expect(zone.status).toBe(400);
    expect(paths(zone.body.errors)).toEqual(['quietHours.end', 'quietHours.timeZone']);
  });

  it('answers 404 for an unknown event or show, 403 for a public or channels key, 400 for a missing query', async () => {
    const { t, p, put, unchanged } = await setup();
    expect((await unchanged(() => put({ ...ON, externalReferenceEventId: 'nope' }))).status).toBe(404);
    expect((await unchanged(() => put({ ...ON, showId: 'show-9' }))).status).toBe(404);
    for (const key of [p.keys.public, p.keys.channels]) {
      const res = await unchanged(() => put(ON, key));
      expect(res.status).toBe(403);
      expect(res.body.errors[0].code).toBe('forbidden_key_kind');
    }
    expect((await t.request('GET', `${SETTINGS}?externalReferenceEventId=tour&showId=show-9`, { key: p.keys.private })).status).toBe(404);
    const missing = await t.request('GET', `${SETTINGS}?showId=show-1`, { key: p.keys.private });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toMatchObject([{ code: 'missing_field', path: 'externalReferenceEventId', in: 'query' }]);
  });
});

describe('POST /v1/waitinglist/entries', () => {
  it('puts fans in line in join order, answers 201 with the position, and records a Wishlist lead', async () => {
    const { t, put, join, entries } = await setup();
    await put(ON);
    const first = await join({ ticketOptionId: 'opt-field' });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      id: expect.stringMatching(/^wle_/),
      ...SHOW_1,
      ticketOptionId: 'opt-field',
      quantity: 2,
      together: false,
      user: { id: null, email: 'fan@example.com', phone: null },
      state: 'WAITING',
      position: 1,
      joinedAt: '2026-03-01T12:00:00.000Z',
      offer: null,
      endedAt: null,
      endReason: null,
    });
    const second = await join({ user: '+34600111222', quantity: 1 });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({ position: 2, ticketOptionId: null, user: { phone: '+34600111222' } });
    expect(await entries()).toHaveLength(2);
    const lead = (await t.db.select().from(leads).where(eq(leads.buyerEmail, 'fan@example.com')))[0];
    expect(lead).toMatchObject({ type: 'WISHLIST', ticketOptionId: 'opt-field', tags: ['waitinglist'] });
  });

  it('replays an Idempotency-Key with the first answer and one entry', async () => {
    const { put, join, entries } = await setup();
    await put(ON);
    const a = await join({}, { headers: { 'Idempotency-Key': 'join-1' } });
    const b = await join({}, { headers: { 'Idempotency-Key': 'join-1' } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expect(await entries()).toHaveLength(1);
  });

  it('names every missing or wrong field at once, and writes nothing', async () => {
    const { t, p, put, unchanged } = await setup();
    await put(ON);
    const res = await unchanged(() => t.request('POST', ENTRIES, { key: p.keys.private, body: { quantity: 'two', together: 'yes', colour: 'red' } }));
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(['colour', 'externalReferenceEventId', 'quantity', 'showId', 'together', 'user']);
  });

  it('refuses a quantity out of the show’s range (the partner’s hold limit per buyer and show)', async () => {
    const { put, join, unchanged } = await setup({ settings: { holdLimits: { perBuyer: 3, ticketsPerBuyerPerShow: 4, perClientAddress: 20 } } });
    await put(ON);
    for (const quantity of [0, 5, 1.5]) {
      const res = await unchanged(() => join({ quantity }));
      expect(res.status).toBe(400);
      expect(res.body.errors).toMatchObject([{ path: 'quantity' }]);
    }
    expect((await join({ quantity: 4 })).status).toBe(201);
  });

  it('answers 404 for an unknown event or show and 400 naming an option not of the show, or together for an unseated show', async () => {
    const { put, join, unchanged } = await setup();
    await put(ON);
    expect((await unchanged(() => join({ externalReferenceEventId: 'nope' }))).status).toBe(404);
    expect((await unchanged(() => join({ showId: 'show-9' }))).status).toBe(404);
    const both = await unchanged(() => join({ ticketOptionId: 'opt-nope', together: true }));
    expect(both.status).toBe(400);
    expect(paths(both.body.errors)).toEqual(['ticketOptionId', 'together']);
  });

  it('accepts together for a seated show', async () => {
    const { put, join } = await setup({ seated: true });
    await put(ON);
    expect((await join({ together: true })).body.data).toMatchObject({ together: true, position: 1 });
  });

  it('refuses a list that is off or was never set, a closed show, and a fan it cannot reach (409/400, nothing written)', async () => {
    const { t, p, put, join, unchanged } = await setup();
    const never = await unchanged(() => join({}));
    expect(never.status).toBe(409);
    expect(never.body.errors).toMatchObject([{ code: 'conflict', path: 'showId' }]);
    await put({ ...ON, enabled: false });
    expect((await unchanged(() => join({}))).status).toBe(409);
    await put(ON);
    await put({ ...ON, showId: 'show-2' });
    expect((await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-2', status: 'CANCELLED' }] } })).status).toBe(200);
    const closed = await unchanged(() => join({ showId: 'show-2' }));
    expect(closed.status).toBe(409);
    expect(closed.body.errors[0].path).toBe('showId');
    // Known only by the partner's id: no e-mail nor phone to tell of an offer.
    const unreachable = await unchanged(() => join({ user: 'user-881' }));
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.errors).toMatchObject([{ code: 'invalid_value', path: 'user', in: 'body' }]);
    expect((await unchanged(() => join({ user: 'not an e-mail@' }))).status).toBe(400);
  });

  it('refuses joining twice with 409 naming the live entry', async () => {
    const { put, join, entries, unchanged } = await setup();
    await put(ON);
    const first = await join({});
    const again = await unchanged(() => join({ quantity: 1, user: 'FAN@example.com' }));
    expect(again.status).toBe(409);
    expect(again.body.errors).toMatchObject([{ code: 'conflict', path: 'user' }]);
    expect(again.body.errors[0].message).toContain(first.body.data.id);
    expect(await entries()).toHaveLength(1);
  });

  it('refuses the wrong key kinds, oversized and deeply nested bodies, non-JSON', async () => {
    const { t, p, put, join, unchanged } = await setup();
    await put(ON);
    for (const key of [p.keys.public, p.keys.channels]) expect((await unchanged(() => join({}, { key }))).status).toBe(403);
    expect((await unchanged(() => t.request('POST', ENTRIES, { key: null, body: {} }))).status).toBe(401);
    const big = await unchanged(() => join({ user: 'x'.repeat(300 * 1024) }));
    expect(big.status).toBe(413);
    expect(big.body.errors[0].code).toBe('payload_too_large');
    const deep = await unchanged(() => t.request('POST', ENTRIES, { key: p.keys.private, raw: `${'{"a":'.repeat(40)}1${'}'.repeat(40)}` }));
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].code).toBe('invalid_json');
    expect((await unchanged(() => t.request('POST', ENTRIES, { key: p.keys.private, raw: 'quantity=2', headers: { 'content-type': 'text/plain' } }))).status).toBe(415);
    expect((await unchanged(() => t.request('POST', ENTRIES, { key: p.keys.private, raw: '{"quantity":' }))).body.errors[0].code).toBe('invalid_json');
  });

  it('keeps one entry when one fan joins many times at once: one 201, the others 409', async () => {
    const { put, join, entries } = await setup();
    await put(ON);
    const answers = await Promise.all(Array.from({ length: 20 }, () => join({ user: 'race@example.com' })));
    expect(answers.filter((a) => a.status !== 201 && a.status !== 409).map((a) => [a.status, a.body.errors])).toEqual([]);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    expect(await entries()).toHaveLength(1);
  });
});

describe('GET /v1/waitinglist/entries and /entries/{entryId}', () => {
  it('lists a fan’s entries newest first with positions, of one show on request; none for a fan unknown here', async () => {
    const { t, p, put, join } = await setup();
    await put(ON);
    await put({ ...ON, showId: 'show-2' });
    await join({ user: 'ahead@example.com' });
    const one = await join({});
    t.clock.advance(1000);
    const two = await join({ showId: 'show-2' });
    const list = await t.request('GET', `${ENTRIES}?user=fan@example.com`, { key: p.keys.private });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string; position: number }) => [e.id, e.position])).toEqual([
      [two.body.data.id, 1],
      [one.body.data.id, 2],
    ]);
    const ofShow = await t.request('GET', `${ENTRIES}?user=fan@example.com&externalReferenceEventId=tour&showId=show-1`, { key: p.keys.private });
    expect(ofShow.body.data.map((e: { id: string }) => e.id)).toEqual([one.body.data.id]);
    const before = await everyRow(t.db);
    expect((await t.request('GET', `${ENTRIES}?user=stranger@example.com`, { key: p.keys.private })).body.data).toEqual([]);
    expect(await everyRow(t.db)).toBe(before);
    expect((await t.request('GET', `${ENTRIES}?user=fan@example.com&externalReferenceEventId=tour&showId=show-9`, { key: p.keys.private })).status).toBe(404);
    const half = await t.request('GET', `${ENTRIES}?user=fan@example.com&showId=show-1`, { key: p.keys.private });
    expect(half.status).toBe(400);
    expect(half.body.errors).toMatchObject([{ code: 'missing_field', path: 'externalReferenceEventId', in: 'query' }]);
    expect((await t.request('GET', ENTRIES, { key: p.keys.private })).status).toBe(400);
  });

  it('answers one entry with its history', async () => {
    const { t, p, put, join } = await setup();
    await put(ON);
    const joined = await join({});
    const res = await t.request('GET', `${ENTRIES}/${joined.body.data.id}`, { key: p.keys.private });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...joined.body.data, history: [{ seq: 1, kind: 'joined', at: '2026-03-01T12:00:00.000Z', offerId: null, listingIds: [], reason: null }] });
    expect((await t.request('GET', `${ENTRIES}/wle_nope`, { key: p.keys.private })).status).toBe(404);
  });
});

describe('DELETE /v1/waitinglist/entries/{entryId}', () => {
  it('takes the fan off the line: LEFT, the others move up; leaving twice is 409', async () => {
    const { t, p, put, join } = await setup();
    await put(ON);
    const first = await join({ user: 'first@example.com' });
    const second = await join({});
    const left = await t.request('DELETE', `${ENTRIES}/${first.body.data.id}`, { key: p.keys.private });
    expect(left.status).toBe(200);
    expect(left.body.data).toMatchObject({ id: first.body.data.id, state: 'LEFT', position: null, endReason: 'left', endedAt: '2026-03-01T12:00:00.000Z' });
    expect((await t.request('GET', `${ENTRIES}/${second.body.data.id}`, { key: p.keys.private })).body.data.position).toBe(1);
    const history = (await t.request('GET', `${ENTRIES}/${first.body.data.id}`, { key: p.keys.private })).body.data.history;
    expect(history.map((h: { kind: string }) => h.kind)).toEqual(['joined', 'left']);
    const before = await everyRow(t.db);
    const again = await t.request('DELETE', `${ENTRIES}/${first.body.data.id}`, { key: p.keys.private });
    expect(again.status).toBe(409);
    expect(again.body.errors).toMatchObject([{ code: 'conflict', path: 'entryId' }]);
    expect(await everyRow(t.db)).toBe(before);
    // And the fan may join again, at the back.
    expect((await join({ user: 'first@example.com' })).body.data.position).toBe(2);
  });

  it('declines a live offer: its checkout is cancelled (reason declined) and its listing released, in the same transaction', async () => {
    const { t, p, put, join } = await setup();
    await put(ON);
    const joined = await join({ quantity: 1 });
    const { intentionId, listingId } = await offerTo(t, p, joined.body.data.id);
    const offered = await t.request('GET', `${ENTRIES}/${joined.body.data.id}`, { key: p.keys.private });
    expect(offered.body.data).toMatchObject({
      state: 'OFFERED',
      position: 1,
      offer: { state: 'LIVE', intentionId, listingIds: [listingId], quantity: 1, expiresAt: '2026-03-01T12:15:00.000Z', checkoutUrl: `http://resale.test/checkout/${p.id}/${intentionId}?lang=en` },
    });
    // What the offer holds and costs, as the `waitinglist.offered` webhook says it.
    const intention = (await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, intentionId)))[0]!;
    expect(intention.totalMinor).toBeGreaterThan(4000);
    expect(offered.body.data.offer).toMatchObject({ ticketIds: ['tk-offer'], seats: [{ section: null, row: null, seat: null }], currency: 'EUR', total: intention.totalMinor / 100 });
    const left = await t.request('DELETE', `${ENTRIES}/${joined.body.data.id}`, { key: p.keys.private });
    expect(left.status).toBe(200);
    expect(left.body.data).toMatchObject({ state: 'LEFT', offer: null });
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, intentionId)))[0]).toMatchObject({ state: 'CANCELLED', endReason: 'declined' });
    expect((await t.db.select().from(listings).where(eq(listings.id, listingId)))[0]!.state).toBe('ACTIVE');
  });
});

describe('tenancy', () => {
  it('keeps each partner to its own shows, entries and users (404, or nothing)', async () => {
    const { t, put, join } = await setup();
    await put(ON);
    const mine = await join({});
    const other = await t.partner('Other Tickets');
    const theirs = helpers(t, other);
    const before = await everyRow(t.db);
    expect((await theirs.put(ON)).status).toBe(404);
    expect((await theirs.join({})).status).toBe(404);
    expect((await t.request('GET', `${SETTINGS}?externalReferenceEventId=tour&showId=show-1`, { key: other.keys.private })).status).toBe(404);
    expect((await t.request('GET', `${ENTRIES}/${mine.body.data.id}`, { key: other.keys.private })).status).toBe(404);
    expect((await t.request('DELETE', `${ENTRIES}/${mine.body.data.id}`, { key: other.keys.private })).status).toBe(404);
    expect((await t.request('GET', `${ENTRIES}?user=fan@example.com`, { key: other.keys.private })).body.data).toEqual([]);
    expect((await t.request('GET', `/admin/v1/partners/${other.id}/waitinglist?externalReferenceEventId=tour&showId=show-1`, { operator: true })).status).toBe(404);
    expect(await everyRow(t.db)).toBe(before);
  });
});

describe('GET /admin/v1/partners/{partnerId}/waitinglist', () => {
  it('exports the show’s history as JSON and as CSV, formulas neutralised', async () => {
    const { t, p, put, join } = await setup();
    await put(ON);
    // A partner user id a spreadsheet would run as a formula, with a comma in it.
    await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { id: '=SUM(1,2)', email: 'formula@example.com' }));
    const a = await join({ user: '=SUM(1,2)', quantity: 1 });
    const b = await join({ ticketOptionId: 'opt-vip' });
    await t.request('DELETE', `${ENTRIES}/${a.body.data.id}`, { key: p.keys.private });
    const url = `/admin/v1/partners/${p.id}/waitinglist?externalReferenceEventId=tour&showId=show-1`;
    const json = await t.request('GET', url, { operator: true });
    expect(json.status).toBe(200);
    expect(json.body.data.nextCursor).toBeNull();
    expect(json.body.data.items.map((r: { seq: number; kind: string; entryId: string }) => [r.seq, r.kind, r.entryId])).toEqual([
      [1, 'joined', a.body.data.id],
      [2, 'joined', b.body.data.id],
      [3, 'left', a.body.data.id],
    ]);
    expect(json.body.data.items[1]).toMatchObject({ userId: 'fan@example.com', email: 'fan@example.com', ticketOptionId: 'opt-vip', quantity: 2, together: false, entrySeq: 2 });
    const csv = await t.app.request(`${url}&format=csv`, { headers: { authorization: 'Bearer test-operator-token-000000000000' } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="waitinglist-${p.id}-tour-show-1.csv"`);
    const bytes = new Uint8Array(await csv.arrayBuffer());
    // The byte order mark (Response.text() would drop it): spreadsheets then read accents right.
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes).split('\r\n');
    expect(lines[0]).toBe(HISTORY_EXPORT_COLUMNS.join(','));
    expect(lines).toHaveLength(5); // header, three rows, the final line end
    expect(lines[1]).toBe(`1,2026-03-01T12:00:00.000Z,joined,${a.body.data.id},1,,"'=SUM(1,2)",formula@example.com,,,1,false,,`);
    expect(lines[3]).toContain(',left,');
    expect(lines[3]!.endsWith(',left')).toBe(true);
  });

  it('needs the operator token and a known partner and show', async () => {
    const { t, p } = await setup();
    const url = `/admin/v1/partners/${p.id}/waitinglist?externalReferenceEventId=tour&showId=show-1`;
    expect((await t.request('GET', url, { key: p.keys.private })).status).toBe(401);
    expect((await t.request('GET', url, { operator: true })).body.data).toEqual({ items: [], nextCursor: null });
    expect((await t.request('GET', `/admin/v1/partners/ptr_nope/waitinglist?externalReferenceEventId=tour&showId=show-1`, { operator: true })).status).toBe(404);
    expect((await t.request('GET', `/admin/v1/partners/${p.id}/waitinglist?externalReferenceEventId=tour&showId=show-9`, { operator: true })).status).toBe(404);
    expect((await t.request('GET', `${url}&format=xml`, { operator: true })).status).toBe(400);
    for (const bad of ['limit=0', 'limit=5001', 'limit=abc', 'startingAfter=-1', 'startingAfter=1.5']) {
      const res = await t.request('GET', `${url}&${bad}`, { operator: true });
      expect(res.status, bad).toBe(400);
      expect(res.body.errors[0].path, bad).toBe(bad.split('=')[0]);
    }
  });

  it('pages the JSON by the show’s sequence, a page read later never skipping a row', async () => {
    const { t, p, put, join } = await setup();
    await put(ON);
    for (let i = 0; i < 5; i++) await join({ user: `fan${i}@example.com` });
    const url = `/admin/v1/partners/${p.id}/waitinglist?externalReferenceEventId=tour&showId=show-1&limit=2`;
    const seqs: number[] = [];
    let cursor: number | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: { data: { items: { seq: number }[]; nextCursor: number | null } } } = await t.request('GET', cursor === null ? url : `${url}&startingAfter=${cursor}`, { operator: true });
      expect(res.status).toBe(200);
      expect(res.body.data.items.length).toBeLessThanOrEqual(2);
      seqs.push(...res.body.data.items.map((r) => r.seq));
      cursor = res.body.data.nextCursor;
      pages++;
      // A fan joins between pages: the new row comes on a later page.
      if (pages === 1) await join({ user: 'late@example.com' });
    } while (cursor !== null);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pages).toBe(3);
  });
});

/**
 * A listing held for the entry's fan by a buy intention and recorded as its offer. With the
 * offers flow wired, publishing the listing offers it to the waiting fan by itself; without it,
 * the test makes the offer as that flow would.
 */
async function offerTo(t: TestApp, p: TestPartner, entryId: string): Promise<{ intentionId: string; listingId: string }> {
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  await tx(async (tx) => await t.deps.tickets.syncCreate(tx, p.id, [ticketBody('tk-offer', { buyer: 'seller@example.com' })]));
  const partner = await t.deps.partners.get(p.id);
  return await tx(async (tx) => {
    const ticket = await t.deps.tickets.get(tx, p.id, 'tk-offer');
    const listing = await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 });
    const offered = (await t.deps.waitingList.get(tx, p.id, entryId)).offer;
    if (offered) return { intentionId: offered.intentionId, listingId: listing.id };
    const entry = (await tx.select().from(waitinglistEntries).where(eq(waitinglistEntries.id, entryId)))[0]!;
    const intention = await t.deps.intentions.open(tx, partner, { listings: [listing], buyerPk: entry.userPk });
    await t.deps.listings.reserve(tx, p.id, [listing.id], intention.id);
    const now = t.clock.now();
    await t.deps.waitingList.recordOffer(tx, { entryId, intentionId: intention.id, listingIds: [listing.id], quantity: 1, notifyAt: now, expiresAt: now + 15 * 60_000 });
    return { intentionId: intention.id, listingId: listing.id };
  });
}
