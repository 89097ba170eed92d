import { count, eq } from 'drizzle-orm';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../../testing/temp-dir.js';
import { describe, expect, it, vi } from 'vitest';
import { eventBody, showBody } from '../../../testing/factories.js';
import { createTestApp, type TestApp } from '../../../testing/harness.js';
import { combinations, events, priceTypes, shows, ticketOptions } from '../events.table.js';
import { applySheet, importEvents } from './import.js';
import { parseCsv } from './sheet.read.js';

const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../../docs/samples');
const CSV = join(SAMPLES, 'events.csv');
const XLSX = join(SAMPLES, 'events.xlsx');
const BAD = join(SAMPLES, 'events-bad.csv');

/** What the service stored, without the service's own ids and timestamps. */
async function readBack(t: TestApp, key: string, id: string) {
  const res = await t.request('GET', `/v1/events/${id}`, { key });
  expect(res.status).toBe(200);
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = res.body.data;
  return rest;
}

async function tableCounts(t: TestApp) {
  const n = async (table: typeof events | typeof shows | typeof ticketOptions | typeof priceTypes | typeof combinations) => (await t.db.select({ n: count() }).from(table).limit(1))[0]!.n;
  return { events: await n(events), shows: await n(shows), ticketOptions: await n(ticketOptions), priceTypes: await n(priceTypes), combinations: await n(combinations) };
}

describe('importing the samples', () => {
  it('creates both events of the CSV sample with shows, options, price types and combinations', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const report = await importEvents(t.deps, { partnerId: p.id, file: CSV });
    expect(report.errors).toEqual([]);
    expect(report.rows).toBe(9);
    expect(report.events.map((e) => [e.externalReferenceId, e.outcome])).toEqual([
      ['tour-2026', 'created'],
      ['jazz-harbour-2026', 'created'],
    ]);
    expect(report.events[0]).toMatchObject({ rows: [2, 3, 4, 5, 6, 7, 8], shows: 2, ticketOptions: 4, priceTypes: 4, combinations: 7 });

    const tour = await readBack(t, p.keys.private, 'tour-2026');
    expect(tour).toMatchObject({
      externalReferenceId: 'tour-2026',
      title: 'The Big Tour 2026',
      description: 'Rock, pop and more: the tour of the year',
      location: { venueName: 'Arena Norte', address: 'Calle Mayor 1', city: 'Madrid', country: 'ES', state: '', postalCode: '', timeZone: 'Europe/Madrid' },
      configuration: { ticketDelivery: { time: { when: 'BEFORE', seconds: 10800 } }, redemption: { policy: 'NONE' } },
    });
    expect(tour.shows.map((s: { showId: string; date: string }) => [s.showId, s.date])).toEqual([
      ['tour-2026-mad-1', '2026-05-01T19:00:00.000Z'],
      ['tour-2026-mad-2', '2026-05-02T19:00:00.000Z'],
    ]);
    const night1 = tour.shows[0];
    expect(night1).toMatchObject({ title: 'Madrid, night one', status: 'LIVE', images: [{ url: 'https://partner.example/img/tour-2026.jpg', kind: 'main' }], configuration: {} });
    expect(night1.ticketOptions).toEqual([
      { ticketId: 'opt-field', title: 'General field', description: 'Standing, field level', currency: 'EUR', price: 45.5, stock: 500, webVisibility: true, area: 'Field' },
      { ticketId: 'opt-vip', title: 'VIP', description: 'Lounge access', currency: 'EUR', price: 120, stock: 50, webVisibility: true, area: 'Lounge' },
    ]);
    expect(night1.priceTypes).toEqual([
      { priceTypeId: 'pt-early', title: 'Early bird', webVisibility: true, invisible: false },
      { priceTypeId: 'pt-standard', title: 'Standard', webVisibility: true, invisible: false },
    ]);
    expect(night1.combinations).toEqual([
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 39 },
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: 45.5 },
      { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 },
    ]);
    // Night two sells VIP early bird too; night one does not: only the pairs sent exist.
    expect(tour.shows[1].combinations).toContainEqual({ ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', price: 110 });

    const jazz = await readBack(t, p.keys.private, 'jazz-harbour-2026');
    expect(jazz.configuration).toEqual({ redemption: { policy: 'NONE' } }); // the API's default
    expect(jazz.shows).toHaveLength(1);
    expect(jazz.shows[0]).toMatchObject({ showId: 'jazz-2026-06-20', title: 'Jazz at the Harbour', date: '2026-06-20T18:30:00.000Z', images: [], priceTypes: [], combinations: [] });
    expect(jazz.shows[0].ticketOptions).toEqual([
      { ticketId: 'opt-ga', title: 'General admission', description: 'Standing', currency: 'EUR', price: 30, webVisibility: true },
      { ticketId: 'opt-table', title: 'Table for two', description: 'Seated table, waiter service', currency: 'EUR', price: 55, stock: 20, webVisibility: true, area: 'Tables' },
    ]);
  });

  it('stores the same events from the .xlsx sample (real Excel dates read in the timezone column)', async () => {
    const fromCsv = createTestApp();
    const a = await fromCsv.partner();
    await importEvents(fromCsv.deps, { partnerId: a.id, file: CSV });
    const fromXlsx = createTestApp();
    const b = await fromXlsx.partner();
    const report = await importEvents(fromXlsx.deps, { partnerId: b.id, file: XLSX });
    expect(report.errors).toEqual([]);
    expect(report.events.map((e) => e.outcome)).toEqual(['created', 'created']);
    for (const id of ['tour-2026', 'jazz-harbour-2026']) {
      expect(await readBack(fromXlsx, b.keys.private, id)).toEqual(await readBack(fromCsv, a.keys.private, id));
    }
  });

  it('updates on a second run: same ids, no duplicates, changes applied', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await importEvents(t.deps, { partnerId: p.id, file: CSV });
    const first = await readBack(t, p.keys.private, 'tour-2026');
    const before = await tableCounts(t);
    expect(before).toEqual({ events: 2, shows: 3, ticketOptions: 6, priceTypes: 4, combinations: 7 });

    const again = await importEvents(t.deps, { partnerId: p.id, file: XLSX });
    expect(again.errors).toEqual([]);
    expect(again.events.map((e) => e.outcome)).toEqual(['updated', 'updated']);
    expect(await tableCounts(t)).toEqual(before);
    expect(await readBack(t, p.keys.private, 'tour-2026')).toEqual(first);

    // A changed price and a new combination merge into the stored event.
    const sheet = parseCsv(
      'eventId,showId,ticketOptionId,price,priceTypeId,combinationPrice\n' + 'tour-2026,tour-2026-mad-1,opt-vip,130.00,pt-early,115.00\n',
    );
    const report = await applySheet(t.deps, sheet, { partnerId: p.id });
    expect(report.errors).toEqual([]);
    expect(report.events[0]!.outcome).toBe('updated');
    const after = await readBack(t, p.keys.private, 'tour-2026');
    expect(after.shows[0].ticketOptions[1]).toMatchObject({ ticketId: 'opt-vip', title: 'VIP', price: 130 });
    expect(after.shows[0].combinations).toContainEqual({ ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', price: 115 });
    expect(after.title).toBe('The Big Tour 2026');
    expect((await tableCounts(t)).combinations).toBe(before.combinations + 1);
  });

  it('keeps stored values a sheet leaves blank, as an omitted field of PUT does', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const created = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { shows: [showBody('show-1')] }) });
    expect(created.status).toBe(200);
    const sheet = parseCsv('eventId,showId,ticketOptionId,price\ntour,show-1,opt-field,50\n');
    const report = await applySheet(t.deps, sheet, { partnerId: p.id });
    expect(report.errors).toEqual([]);
    const ev = await readBack(t, p.keys.private, 'tour');
    expect(ev.shows[0].images).toEqual([{ url: 'https://partner.example/img/poster.jpg', kind: 'main' }]);
    expect(ev.shows[0].title).toBe('Night show-1');
    expect(ev.shows[0].ticketOptions[0]).toMatchObject({ ticketId: 'opt-field', title: 'General field', description: 'Standing', price: 50 });
    expect(ev.configuration).toEqual(created.body.data.configuration);
  });

  it('applies events as the partner’s own: another partner’s event of the same id is untouched', async () => {
    const t = createTestApp();
    const a = await t.partner('A');
    const b = await t.partner('B');
    await t.request('POST', '/v1/events', { key: b.keys.private, body: eventBody('tour-2026') });
    const bBefore = await readBack(t, b.keys.private, 'tour-2026');
    const report = await importEvents(t.deps, { partnerId: a.id, file: CSV });
    expect(report.events[0]).toMatchObject({ externalReferenceId: 'tour-2026', outcome: 'created' });
    expect(await readBack(t, b.keys.private, 'tour-2026')).toEqual(bBefore);
    expect((await readBack(t, a.keys.private, 'tour-2026')).title).toBe('The Big Tour 2026');
  });

  it('throws 404 for an unknown partner and writes nothing', async () => {
    const t = createTestApp();
    await expect(importEvents(t.deps, { partnerId: 'ptr_unknown', file: CSV })).rejects.toMatchObject({ status: 404 });
    expect((await tableCounts(t)).events).toBe(0);
  });

  it('reports progress after each event, up to every row', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const onProgress = vi.fn();
    await importEvents(t.deps, { partnerId: p.id, file: CSV, onProgress });
    expect(onProgress.mock.calls).toEqual([
      [7, 9],
      [9, 9],
    ]);
  });
});

describe('bad rows', () => {
  it('reports every bad row with its number, column and reason; the bad event is not applied at all, the good one is', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const report = await importEvents(t.deps, { partnerId: p.id, file: BAD });
    expect(report.events.map((e) => [e.externalReferenceId, e.outcome])).toEqual([
      ['good-night', 'created'],
      ['bad-fest', 'rejected'],
    ]);
    expect(report.errors).toEqual([
      { row: 5, column: 'ticketOptionName', eventId: 'bad-fest', message: 'ticketOptionName is required for a new ticket option' },
      { row: 6, column: 'showDate', eventId: 'bad-fest', message: expect.stringMatching(/^showDate must be an ISO 8601 date-time with an offset.*\(found '31\/02\/2026 20:00'\)$/) },
      { row: 7, column: 'currency', eventId: 'bad-fest', message: "currency must be an ISO 4217 currency code such as EUR (found 'EUX')" },
      { row: 8, column: 'ticketOptionId', eventId: 'bad-fest', message: "ticketOptionId 'opt-ghost' is not a ticket option of show 'bad-1'" },
      { row: 9, column: 'eventId', message: 'eventId is required on every row' },
    ]);
    // Row 4 of bad-fest was good, yet nothing of bad-fest exists.
    expect((await t.request('GET', '/v1/events/bad-fest', { key: p.keys.private })).status).toBe(404);
    expect(await tableCounts(t)).toEqual({ events: 1, shows: 1, ticketOptions: 2, priceTypes: 0, combinations: 0 });
    const good = await readBack(t, p.keys.private, 'good-night');
    expect(good.shows[0].ticketOptions.map((o: { ticketId: string }) => o.ticketId)).toEqual(['opt-stalls', 'opt-balcony']);
  });

  it('leaves a stored event as it was when its rows are bad', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await importEvents(t.deps, { partnerId: p.id, file: CSV });
    const before = await readBack(t, p.keys.private, 'tour-2026');
    const sheet = parseCsv(
      'eventId,eventTitle,showId,ticketOptionId,price,currency\n' + 'tour-2026,Renamed,tour-2026-mad-1,opt-field,99.00,EUR\n' + 'tour-2026,Renamed,tour-2026-mad-1,opt-vip,12.345,EUR\n',
    );
    const report = await applySheet(t.deps, sheet, { partnerId: p.id });
    expect(report.events[0]!.outcome).toBe('rejected');
    expect(report.errors).toEqual([{ row: 3, column: 'price', eventId: 'tour-2026', message: "price has more decimals than EUR allows (2) (found '12.345')" }]);
    expect(await readBack(t, p.keys.private, 'tour-2026')).toEqual(before);
  });

  it('reports a currency change of a stored option, as PUT does, and applies nothing of the event', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await importEvents(t.deps, { partnerId: p.id, file: CSV });
    const sheet = parseCsv('eventId,showId,ticketOptionId,currency,price\njazz-harbour-2026,jazz-2026-06-20,opt-ga,USD,31\n');
    const report = await applySheet(t.deps, sheet, { partnerId: p.id });
    expect(report.errors).toEqual([
      { row: 2, column: 'currency', eventId: 'jazz-harbour-2026', message: "currency cannot change from EUR on an existing ticket option; create a new option (found 'USD')" },
    ]);
    expect((await readBack(t, p.keys.private, 'jazz-harbour-2026')).shows[0].ticketOptions[0].price).toBe(30);
  });

  it('reports rows that disagree about one event, show or option', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const sheet = parseCsv(
      [
        'eventId,eventTitle,showId,showDate,ticketOptionId,ticketOptionName,price,currency,priceTypeId,combinationPrice',
        'e1,Title A,s1,2026-05-01T21:00:00+02:00,o1,Option,10,EUR,pt1,9',
        'e1,Title B,s1,2026-05-02T21:00:00+02:00,o1,Option,11,EUR,pt2,9',
        'e1,Title A,s1,,o1,,,,pt1,8',
      ].join('\n'),
    );
    const report = await applySheet(t.deps, sheet, { partnerId: p.id });
    expect(report.events[0]!.outcome).toBe('rejected');
    expect(report.errors.map((e) => [e.row, e.column])).toEqual([
      [3, 'eventTitle'],
      [3, 'price'],
      [3, 'showDate'],
      [4, 'priceTypeId'],
    ]);
    expect(report.errors[0]!.message).toBe("eventTitle 'Title B' differs from 'Title A' on row 2 for the same event 'e1'; one event has one value");
    expect(report.errors[3]!.message).toBe("The combination o1 + pt1 of show 's1' is on row 2 already");
    expect((await tableCounts(t)).events).toBe(0);
  });

  it('reports a cancelled show that a sheet would make LIVE again (409 of PUT)', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await importEvents(t.deps, { partnerId: p.id, file: CSV });
    expect((await t.request('POST', '/v1/events/jazz-harbour-2026/cancellation', { key: p.keys.private })).status).toBe(200);
    const report = await applySheet(t.deps, parseCsv('eventId,showId,ticketOptionId,showStatus\njazz-harbour-2026,jazz-2026-06-20,opt-ga,LIVE\n'), { partnerId: p.id });
    expect(report.errors).toEqual([{ row: 2, eventId: 'jazz-harbour-2026', message: "Show 'jazz-2026-06-20' is cancelled and cannot be made LIVE again" }]);
  });
});

describe('the domain events of the API', () => {
  it('cancels a show through the service: show.cancelled is raised and the show is closed', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await importEvents(t.deps, { partnerId: p.id, file: CSV });
    const cancelled = vi.fn();
    t.deps.bus.on('show.cancelled', (_tx, e) => cancelled(e.externalReferenceId, e.showId));
    t.clock.advance(60_000);
    const report = await applySheet(t.deps, parseCsv('eventId,showId,ticketOptionId,showStatus\ntour-2026,tour-2026-mad-2,opt-field,CANCELLED\n'), { partnerId: p.id });
    expect(report.errors).toEqual([]);
    expect(cancelled.mock.calls).toEqual([['tour-2026', 'tour-2026-mad-2']]);
    const tour = await readBack(t, p.keys.private, 'tour-2026');
    expect(tour.shows.map((s: { status: string; cancelledAt: string | null }) => [s.status, s.cancelledAt])).toEqual([
      ['LIVE', null],
      ['CANCELLED', '2026-03-01T12:01:00.000Z'],
    ]);
  });
});

describe('--dry-run', () => {
  it('reports what would be created and updated and writes nothing', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const dry = await importEvents(t.deps, { partnerId: p.id, file: CSV, dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.errors).toEqual([]);
    expect(dry.events.map((e) => e.outcome)).toEqual(['created', 'created']);
    expect(await tableCounts(t)).toEqual({ events: 0, shows: 0, ticketOptions: 0, priceTypes: 0, combinations: 0 });

    await importEvents(t.deps, { partnerId: p.id, file: CSV });
    const before = await readBack(t, p.keys.private, 'tour-2026');
    const changed = join(tempDir('resale-import'), 'changed.csv');
    writeFileSync(changed, 'eventId,eventTitle,showId,ticketOptionId,showStatus\ntour-2026,Renamed,tour-2026-mad-1,opt-field,CANCELLED\n');
    const dryUpdate = await importEvents(t.deps, { partnerId: p.id, file: changed, dryRun: true });
    expect(dryUpdate.events.map((e) => e.outcome)).toEqual(['updated']);
    // Neither the title nor the cancellation (whose effects ran inside the rolled-back transaction) stuck.
    expect(await readBack(t, p.keys.private, 'tour-2026')).toEqual(before);
  });

  it('reports the bad rows as a real run would, and writes not even the good event', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const real = createTestApp();
    const q = await real.partner();
    const dry = await importEvents(t.deps, { partnerId: p.id, file: BAD, dryRun: true });
    const wet = await importEvents(real.deps, { partnerId: q.id, file: BAD });
    expect(dry.errors).toEqual(wet.errors);
    expect(dry.events.map((e) => e.outcome)).toEqual(['created', 'rejected']);
    expect((await tableCounts(t)).events).toBe(0);
    expect(
      await t.db
        .select()
        .from(events)
        .where(eq(events.externalReferenceId, 'good-night')),
    ).toEqual([]);
  });
});
