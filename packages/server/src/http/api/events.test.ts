import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, priceDetailShowBody, showBody } from '../../testing/factories.js';

describe('POST /v1/events', () => {
  it('creates an event and answers it with the spec defaults', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(200);
    expect(res.body.errors).toBeNull();
    const ev = res.body.data;
    expect(ev.id).toMatch(/^evt_/);
    expect(ev.externalReferenceId).toBe('tour-2026');
    // Every location field is present, defaulted to ''.
    expect(ev.location).toEqual({ city: 'Madrid', state: '', venueName: 'Arena Norte', address: '', country: 'ES', postalCode: '', timeZone: 'Europe/Madrid' });
    expect(ev.configuration.redemption).toEqual({ policy: 'NONE' });
    const show = ev.shows[0];
    expect(show).toMatchObject({ showId: 'show-1', status: 'LIVE', showRescheduled: false, resaleEnabled: true, cancelledAt: null, tags: [] });
    expect(show.date).toBe('2026-05-01T19:00:00.000Z');
    expect(show.images).toEqual([{ url: 'https://partner.example/img/poster.jpg', kind: 'main' }]);
    expect(show.ticketOptions).toEqual([
      { ticketId: 'opt-field', title: 'General field', description: 'Standing', currency: 'EUR', price: 45.5, webVisibility: true, area: 'Field' },
      { ticketId: 'opt-vip', title: 'VIP', description: 'Lounge access', currency: 'EUR', price: 120, webVisibility: true, area: 'Lounge' },
    ]);

    const read = await t.request('GET', '/v1/events/tour-2026', { key: `Bearer ${p.keys.private}` });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(ev);
  });

  it('accepts `shows` as a single object, as the spec types it', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('one', { shows: showBody('solo') }) });
    expect(res.status).toBe(200);
    expect(res.body.data.shows.map((s: { showId: string }) => s.showId)).toEqual(['solo']);
  });

  it('stores the price detail model: price types and only the combinations sent', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('pd', { shows: [priceDetailShowBody('s1')] }) });
    expect(res.status).toBe(200);
    const show = res.body.data.shows[0];
    expect(show.priceTypes.map((x: { priceTypeId: string }) => x.priceTypeId)).toEqual(['pt-early', 'pt-standard']);
    expect(show.priceTypes[0]).toEqual({ priceTypeId: 'pt-early', title: 'Early bird', webVisibility: true, invisible: false });
    expect(show.combinations).toEqual([
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 39 },
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: 45.5 },
      { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 },
    ]);
    // The pair vip + early was never created: it does not exist.
    const { show: row } = await t.deps.events.findShow(t.db, p.id, 'pd', 's1');
    expect((await t.deps.events.findCombination(t.db, row.id, 'opt-field', 'pt-early')).combination.priceMinor).toBe(3900);
    await expect(t.deps.events.findCombination(t.db, row.id, 'opt-vip', 'pt-early')).rejects.toThrow(/form no combination/);
  });

  it('keeps money exact: decimal strings and JPY without minor units', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const show = showBody('s1', {
      ticketOptions: [
        { ticketId: 'a', title: 'A', description: 'a', currency: 'eur', price: '19.99' },
        { ticketId: 'b', title: 'B', description: 'b', currency: 'JPY', price: 5000 },
        { ticketId: 'c', title: 'C', description: 'c', currency: 'EUR', price: null },
        { ticketId: 'd', title: 'D', description: 'd', currency: 'EUR' },
      ],
    });
    const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('money', { shows: [show] }) });
    expect(res.status).toBe(200);
    const options = res.body.data.shows[0].ticketOptions;
    expect(options.map((o: { currency: string; price: number | null }) => [o.currency, o.price])).toEqual([
      ['EUR', 19.99],
      ['JPY', 5000],
      ['EUR', null],
      ['EUR', null],
    ]);
    const { show: row } = await t.deps.events.findShow(t.db, p.id, 'money', 's1');
    expect((await t.deps.events.findTicketOption(t.db, row.id, 'a')).priceMinor).toBe(1999);
  });

  it('lets two partners use the same externalReferenceId without seeing each other', async () => {
    const t = createTestApp();
    const a = await t.partner('A');
    const b = await t.partner('B');
    expect((await t.request('POST', '/v1/events', { key: a.keys.private, body: eventBody('same', { title: 'A tour' }) })).status).toBe(200);
    expect((await t.request('POST', '/v1/events', { key: b.keys.private, body: eventBody('same', { title: 'B tour' }) })).status).toBe(200);
    expect((await t.request('GET', '/v1/events/same', { key: a.keys.private })).body.data.title).toBe('A tour');
    expect((await t.request('GET', '/v1/events/same', { key: b.keys.private })).body.data.title).toBe('B tour');
  });

  it('answers 409 when the event exists, and writes nothing', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody() });
    const again = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour-2026', { title: 'Changed' }) });
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'conflict', path: 'externalReferenceId' });
    expect((await t.request('GET', '/v1/events/tour-2026', { key: p.keys.private })).body.data.title).toBe('The Big Tour 2026');
  });
});

describe('PUT /v1/events', () => {
  async function seeded() {
    const t = createTestApp();
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { shows: [priceDetailShowBody('s1'), showBody('s2')] }) });
    return { t, p };
  }

  it('replaces fields sent, keeps fields omitted, merges shows, options, price types and combinations by id', async () => {
    const { t, p } = await seeded();
    t.clock.advance(60_000);
    const res = await t.request('PUT', '/v1/events', {
      key: p.keys.private,
      body: {
        externalReferenceId: 'tour',
        title: 'Renamed',
        shows: [
          {
            showId: 's1',
            title: 'Moved night',
            showRescheduled: true,
            ticketOptions: [
              { ticketId: 'opt-field', price: 50 },
              { ticketId: 'opt-new', title: 'Balcony', description: 'Seated', currency: 'EUR', price: 30 },
            ],
            priceTypes: [{ priceTypeId: 'pt-late', title: 'Late' }],
            combinations: [
              { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 41 },
              { ticketOptionId: 'opt-new', priceTypeId: 'pt-late', price: 33.3 },
            ],
          },
          { ...showBody('s3'), title: 'Added night' },
        ],
      },
    });
    expect(res.status).toBe(200);
    const ev = res.body.data;
    expect(ev.title).toBe('Renamed');
    expect(ev.description).toBe('<p>Rich text</p>');
    expect(ev.updatedAt).toBe('2026-03-01T12:01:00.000Z');
    expect(ev.createdAt).toBe('2026-03-01T12:00:00.000Z');
    expect(ev.shows.map((s: { showId: string }) => s.showId)).toEqual(['s1', 's2', 's3']);
    const s1 = ev.shows[0];
    expect(s1.title).toBe('Moved night');
    expect(s1.showRescheduled).toBe(true);
    expect(s1.date).toBe('2026-05-01T19:00:00.000Z');
    expect(s1.ticketOptions.map((o: { ticketId: string; price: number; title: string }) => [o.ticketId, o.title, o.price])).toEqual([
      ['opt-field', 'General field', 50],
      ['opt-vip', 'VIP', 120],
      ['opt-new', 'Balcony', 30],
    ]);
    expect(s1.priceTypes.map((x: { priceTypeId: string }) => x.priceTypeId)).toEqual(['pt-early', 'pt-standard', 'pt-late']);
    expect(s1.combinations).toEqual([
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 41 },
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: 45.5 },
      { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 },
      { ticketOptionId: 'opt-new', priceTypeId: 'pt-late', price: 33.3 },
    ]);
    expect(ev.shows[1].title).toBe('Night s2');
  });

  it('refuses to change the currency of an existing ticket option', async () => {
    const { t, p } = await seeded();
    const res = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 's1', ticketOptions: [{ ticketId: 'opt-field', currency: 'JPY' }] }] } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'shows.0.ticketOptions.0.currency' });
    const same = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 's1', ticketOptions: [{ ticketId: 'opt-field', currency: 'eur' }] }] } });
    expect(same.status).toBe(200);
  });

  it('keeps resaleEnabled off only while false is sent', async () => {
    const { t, p } = await seeded();
    const off = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 's2', resaleEnabled: false }] } });
    expect(off.body.data.shows[1].resaleEnabled).toBe(false);
    const untouched = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 's2', title: 'x' }] } });
    expect(untouched.body.data.shows[1].resaleEnabled).toBe(false);
    const on = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 's2', resaleEnabled: true }] } });
    expect(on.body.data.shows[1].resaleEnabled).toBe(true);
  });

  it('needs the create fields for a new show or ticket option, naming each missing one', async () => {
    const { t, p } = await seeded();
    const res = await t.request('PUT', '/v1/events', {
      key: p.keys.private,
      body: { externalReferenceId: 'tour', shows: [{ showId: 's9', title: 'Only a title' }, { showId: 's1', ticketOptions: [{ ticketId: 'opt-x', title: 'X' }] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      ['shows.0.configuration', 'shows.0.date', 'shows.0.images', 'shows.0.ticketOptions', 'shows.1.ticketOptions.0.currency', 'shows.1.ticketOptions.0.description'].sort(),
    );
    expect(res.body.errors.every((e: { code: string }) => e.code === 'missing_field')).toBe(true);
    // Nothing half-written.
    const ev = (await t.request('GET', '/v1/events/tour', { key: p.keys.private })).body.data;
    expect(ev.shows).toHaveLength(2);
  });

  it('answers 404 for an unknown event and for another partner’s event alike', async () => {
    const { t } = await seeded();
    const other = await t.partner('Other');
    const unknown = await t.request('PUT', '/v1/events', { key: other.keys.private, body: { externalReferenceId: 'nope', title: 'x' } });
    const foreign = await t.request('PUT', '/v1/events', { key: other.keys.private, body: { externalReferenceId: 'tour', title: 'x' } });
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0].code).toBe(unknown.body.errors[0].code);
    expect(foreign.body.errors[0].message).toBe("No event 'tour' was found");
  });

  it('cancels a show whose status is set to CANCELLED and refuses to revive it', async () => {
    const { t, p } = await seeded();
    const seen: string[] = [];
    t.deps.bus.on('show.cancelled', (_tx, e) => void seen.push(e.showId));
    const res = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 's2', status: 'CANCELLED' }] } });
    expect(res.body.data.shows[1]).toMatchObject({ status: 'CANCELLED', cancelledAt: '2026-03-01T12:00:00.000Z' });
    expect(seen).toEqual(['s2']);
    const revive = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 's2', status: 'LIVE' }] } });
    expect(revive.status).toBe(409);
    expect(revive.body.errors[0].code).toBe('conflict');
  });
});

describe('POST /v1/events/:externalReferenceId/cancellation', () => {
  it('cancels every show, raises show.cancelled once per show, and is harmless twice', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { shows: [showBody('s1'), showBody('s2')] }) });
    const seen: string[] = [];
    t.deps.bus.on('show.cancelled', (_tx, e) => void seen.push(`${e.externalReferenceId}/${e.showId}`));
    const res = await t.request('POST', '/v1/events/tour/cancellation', { key: p.keys.private });
    expect(res.status).toBe(200);
    expect(res.body.data.shows.map((s: { status: string }) => s.status)).toEqual(['CANCELLED', 'CANCELLED']);
    const again = await t.request('POST', '/v1/events/tour/cancellation', { key: p.keys.private });
    expect(again.status).toBe(200);
    expect(seen).toEqual(['tour/s1', 'tour/s2']);
  });

  it('cancels only the show named by showId', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { shows: [showBody('s1'), showBody('s2')] }) });
    const res = await t.request('POST', '/v1/events/tour/cancellation?showId=s2', { key: p.keys.private });
    expect(res.body.data.shows.map((s: { status: string }) => s.status)).toEqual(['LIVE', 'CANCELLED']);
    expect((await t.request('POST', '/v1/events/tour/cancellation?showId=s9', { key: p.keys.private })).status).toBe(404);
  });

  it('rolls the cancellation back when a subscriber fails, so nothing is half-done', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { shows: [showBody('s1'), showBody('s2')] }) });
    t.deps.bus.on('show.cancelled', (_tx, e) => {
      if (e.showId === 's2') throw new Error('refund provider down');
    });
    const res = await t.request('POST', '/v1/events/tour/cancellation', { key: p.keys.private });
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toMatch(/refund provider|at .*\.ts/);
    const ev = (await t.request('GET', '/v1/events/tour', { key: p.keys.private })).body.data;
    expect(ev.shows.map((s: { status: string }) => s.status)).toEqual(['LIVE', 'LIVE']);
  });

  it('answers 404 for unknown and foreign events', async () => {
    const t = createTestApp();
    const a = await t.partner('A');
    const b = await t.partner('B');
    await t.request('POST', '/v1/events', { key: a.keys.private, body: eventBody('tour') });
    expect((await t.request('POST', '/v1/events/tour/cancellation', { key: b.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/events/tour', { key: a.keys.private })).body.data.shows[0].status).toBe('LIVE');
  });
});

describe('ANNOUNCED shows', () => {
  it('become ON_SALE once dates.salesStartAt is reached', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await t.db.transact(async (tx) =>
      await t.deps.events.upsert(tx, p.id, { ...eventBody('feed'), shows: [{ ...showBody('s1'), status: 'ANNOUNCED', dates: { salesStartAt: '2026-03-02T09:00:00Z' } }] } as never, 'feed'),
    );
    expect(await t.deps.events.promoteAnnounced()).toBe(0);
    t.clock.set('2026-03-02T09:00:00Z');
    expect(await t.deps.events.promoteAnnounced()).toBe(1);
    expect((await t.deps.events.get(t.db, p.id, 'feed')).shows[0]!.status).toBe('ON_SALE');
  });
});
