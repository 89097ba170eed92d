import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db, Tx } from '../../db/client.js';
import { ENGINE } from '../../db/engine.js';
import { DomainEvents } from '../../lib/domain-events.js';
import { eventBody, showBody, ticketBody, withEvent } from '../../testing/factories.js';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { sameDatabase } from '../../testing/postgres.js';
import { refusal, everyRow, sqlExec, sqlRows } from '../../testing/sql.js';
import { WaitingListConflict, type JoinInput, type SettingsInput } from './waitinglist.model.js';
import { HISTORY_EXPORT_COLUMNS, WaitingListService } from './waitinglist.service.js';
import { waitinglistEntries, waitinglistHistory, waitinglistOffers, waitinglistSettings } from './waitinglist.table.js';

/**
 * The waiting list's domain service on a real database (SQLite here, PostgreSQL in the server-pg
 * project): settings, joining and leaving, positions, the order under concurrency, the offer
 * bookkeeping and its refusals, the append-only history and the partial unique indexes.
 */

const SHOW_1 = { externalReferenceEventId: 'tour', showId: 'show-1' };
const SHOW_2 = { externalReferenceEventId: 'tour', showId: 'show-2' };
const ON: SettingsInput = { enabled: true, priceCap: 'RULES' };
const SEATING = { image: 'https://partner.example/img/chart.png' };

/** Another process's handle on the same database (PostgreSQL); SQLite is served by one process. */
function otherProcess(db: Db): Db {
  return ENGINE === 'postgres' ? sameDatabase(db) : db;
}


async function setup(opts: { seated?: boolean } = {}) {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')], ...(opts.seated ? { seating: SEATING } : {}) }));
  return { t, p, ...helpers(t, p) };
}

function helpers(t: TestApp, p: TestPartner) {
  // A bus of its own: these tests drive the bookkeeping by hand, without the offers' reactions.
  const svc = new WaitingListService({ clock: t.clock, bus: new DomainEvents(), events: t.deps.events });
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  const fan = async (name: string) => (await tx(async (tx) => await t.deps.users.resolve(tx, p.id, { email: `${name}@example.com` }))).id;
  const settings = async (input: SettingsInput = ON, show = SHOW_1) => await tx(async (tx) => await svc.putSettings(tx, p.id, show, input));
  const join = async (userPk: string, over: Partial<JoinInput> = {}) => await tx(async (tx) => await svc.join(tx, p.id, { ...SHOW_1, userPk, quantity: 1, maxPerBuyer: 4, together: false, ...over }));
  const entry = async (entryId: string) => await t.db.read(async (tx) => await svc.get(tx, p.id, entryId));
  const stored = async () => await t.db.read(async (tx) => (await tx.select().from(waitinglistSettings))[0]);
  let tickets = 0;
  /** A buy intention holding one new listing for `buyerPk`, as the offer flow would make it. */
  const hold = async (buyerPk: string) => {
    const ticketId = `tk-${++tickets}`;
    // On show-2, whose list is off: a listing of show-1 would be offered to its line by the offers' flow.
    await tx(async (tx) => await t.deps.tickets.syncCreate(tx, p.id, [ticketBody(ticketId, { showId: 'show-2', buyer: `seller-${tickets}@example.com` })]));
    const partner = await t.deps.partners.get(p.id);
    return await tx(async (tx) => {
      const ticket = await t.deps.tickets.get(tx, p.id, ticketId);
      const listing = await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 });
      const intention = await t.deps.intentions.open(tx, partner, { listings: [listing], buyerPk });
      await t.deps.listings.reserve(tx, p.id, [listing.id], intention.id);
      return { intentionId: intention.id, listingIds: [listing.id] };
    });
  };
  const offer = async (entryId: string, held: { intentionId: string; listingIds: string[] }, quantity = 1) =>
    await tx(async (tx) => await svc.recordOffer(tx, { entryId, ...held, quantity, notifyAt: t.clock.now(), expiresAt: t.clock.now() + 15 * 60_000 }));
  const kinds = async () => (await t.db.read(async (tx) => await svc.exportHistory(tx, p.id, SHOW_1))).map((r) => `${r.seq}:${r.kind}`);
  return { svc, tx, fan, settings, join, entry, stored, hold, offer, kinds };
}

describe('waiting-list settings', () => {
  it('answers the defaults until set, then what was set, the quiet hours in the venue’s zone', async () => {
    const { p, svc, tx, settings } = await setup();
    expect(await tx(async (tx) => await svc.getSettings(tx, p.id, SHOW_1))).toMatchObject({ enabled: false, offerMinutes: 15, quietHours: null, priceCap: 'RULES', waiting: 0, updatedAt: null });
    const set = await settings({ enabled: true, priceCap: 'FACE_VALUE', quietHours: { start: '22:00', end: '08:00' } });
    expect(set).toMatchObject({ enabled: true, offerMinutes: 15, priceCap: 'FACE_VALUE', quietHours: { start: '22:00', end: '08:00', timeZone: 'Europe/Madrid' }, waiting: 0 });
    expect(await tx(async (tx) => await svc.getSettings(tx, p.id, SHOW_1))).toEqual(set);
    // A PUT: what is not sent takes its default again; a zone sent is kept.
    expect(await settings({ enabled: true, priceCap: 'RULES', offerMinutes: 30, quietHours: { start: '23:30', end: '07:00', timeZone: 'America/New_York' } })).toMatchObject({
      offerMinutes: 30,
      quietHours: { start: '23:30', end: '07:00', timeZone: 'America/New_York' },
    });
    expect(await settings({ enabled: false, priceCap: 'RULES' })).toMatchObject({ enabled: false, offerMinutes: 15, quietHours: null });
    // The other show has its own.
    expect(await tx(async (tx) => await svc.getSettings(tx, p.id, SHOW_2))).toMatchObject({ enabled: false, updatedAt: null });
  });

  it('names every invalid field at once and writes nothing', async () => {
    const { t, p, svc, tx, settings, stored } = await setup();
    const bad = { enabled: 'yes', offerMinutes: 4, quietHours: { start: '25:00', end: '8:00', timeZone: 'Mars/Olympus_Mons' }, priceCap: 'CHEAP' } as unknown as SettingsInput;
    await expect(settings(bad)).rejects.toMatchObject({
      status: 400,
      entries: [
        { code: 'invalid_type', path: 'enabled' },
        { code: 'out_of_range', path: 'offerMinutes' },
        { code: 'invalid_format', path: 'quietHours.start' },
        { code: 'invalid_format', path: 'quietHours.end' },
        { code: 'invalid_value', path: 'quietHours.timeZone' },
        { code: 'invalid_value', path: 'priceCap' },
      ],
    });
    for (const offerMinutes of [0, 4, 4.5, 1441, Number.NaN]) await expect(settings({ ...ON, offerMinutes }), String(offerMinutes)).rejects.toMatchObject({ entries: [{ code: 'out_of_range', path: 'offerMinutes' }] });
    expect(await settings({ ...ON, offerMinutes: 5 })).toMatchObject({ offerMinutes: 5 });
    expect(await settings({ ...ON, offerMinutes: 1440 })).toMatchObject({ offerMinutes: 1440 });
    await expect(settings({ ...ON, quietHours: { start: '22:00', end: '22:00' } })).rejects.toMatchObject({ entries: [{ code: 'invalid_value', path: 'quietHours.end' }] });
    const before = await stored();

    // A venue without a time zone: quiet hours need one sent.
    await withEvent(t, p, eventBody('nozone', { location: { city: 'Madrid', venueName: 'Arena Norte', country: 'ES' } }));
    const noZone = { externalReferenceEventId: 'nozone', showId: 'show-1' };
    await expect(settings({ ...ON, quietHours: { start: '22:00', end: '08:00' } }, noZone)).rejects.toMatchObject({ entries: [{ code: 'missing_field', path: 'quietHours.timeZone' }] });
    expect(await settings({ ...ON, quietHours: { start: '22:00', end: '08:00', timeZone: 'Europe/Lisbon' } }, noZone)).toMatchObject({ quietHours: { timeZone: 'Europe/Lisbon' } });
    expect(await stored()).toEqual(before);
    expect(await tx(async (tx) => await svc.getSettings(tx, p.id, SHOW_1))).toMatchObject({ offerMinutes: 1440 });
  });

  it('keeps the line’s counters when the organiser sets again, and answers 404 for an unknown or another partner’s show', async () => {
    const { t, p, svc, tx, fan, settings, join } = await setup();
    await settings();
    await join(await fan('ana'));
    expect(await settings({ enabled: true, priceCap: 'FACE_VALUE', offerMinutes: 20 })).toMatchObject({ waiting: 1 });
    const [row] = await sqlRows<{ next_seq: number }>(t.db, 'select next_seq from waitinglist_settings');
    expect(Number(row!.next_seq)).toBe(1);
    await expect(tx(async (tx) => await svc.getSettings(tx, p.id, { externalReferenceEventId: 'tour', showId: 'show-9' }))).rejects.toMatchObject({ status: 404 });
    await expect(tx(async (tx) => await svc.getSettings(tx, p.id, { externalReferenceEventId: 'nope', showId: 'show-1' }))).rejects.toMatchObject({ status: 404 });
    const other = await t.partner('Other Tickets');
    await expect(tx(async (tx) => await svc.putSettings(tx, other.id, SHOW_1, ON))).rejects.toMatchObject({ status: 404 });
    await expect(tx(async (tx) => await svc.getSettings(tx, other.id, SHOW_1))).rejects.toMatchObject({ status: 404 });
  });
});

describe('joining and leaving', () => {
  it('numbers fans in join order, tells each their position, and moves them up when one ahead leaves', async () => {
    const { t, p, svc, tx, fan, settings, join, entry, stored, kinds } = await setup();
    await settings();
    const [ana, ben, cat] = [await fan('ana'), await fan('ben'), await fan('cat')];
    const a = await join(ana, { quantity: 2, source: 'market' });
    t.clock.advance(1000);
    const b = await join(ben, { ticketOptionId: 'opt-vip' });
    const c = await join(cat, { quantity: 4 });
    expect([a, b, c].map((e) => [e.seq, e.position, e.state])).toEqual([
      [1, 1, 'WAITING'],
      [2, 2, 'WAITING'],
      [3, 3, 'WAITING'],
    ]);
    expect(a).toMatchObject({ quantity: 2, together: false, ticketOptionPk: null, source: 'market', joinedAt: Date.parse('2026-03-01T12:00:00Z'), offer: null, userPk: ana });
    expect(b.ticketOptionPk).toMatch(/^opt_/);
    expect(b.id).toMatch(/^wle_/);
    expect((await stored())!.waiting).toBe(3);

    const left = await tx(async (tx) => await svc.leave(tx, p.id, b.id));
    expect(left).toMatchObject({ entry: { state: 'LEFT', position: null, endReason: 'left' }, cancelIntentionId: null });
    expect((await entry(a.id)).position).toBe(1);
    expect((await entry(c.id)).position).toBe(2);
    expect((await stored())!.waiting).toBe(2);
    // Leaving twice: the entry has ended.
    await expect(tx(async (tx) => await svc.leave(tx, p.id, b.id))).rejects.toMatchObject({ status: 409, refusal: 'waitinglist_ended' });
    // Rejoining puts the fan at the back, with a new entry.
    const again = await join(ben);
    expect(again).toMatchObject({ seq: 5, position: 3 });
    expect(again.id).not.toBe(b.id);

    // The fan's own entries, newest first; live ones only when asked; of one show when asked.
    const mine = await t.db.read(async (tx) => await svc.entriesOf(tx, p.id, ben));
    expect(mine.map((e) => [e.id, e.state, e.position])).toEqual([
      [again.id, 'WAITING', 3],
      [b.id, 'LEFT', null],
    ]);
    expect((await t.db.read(async (tx) => await svc.entriesOf(tx, p.id, ben, { live: true }))).map((e) => e.id)).toEqual([again.id]);
    expect(await t.db.read(async (tx) => await svc.entriesOf(tx, p.id, ben, { show: SHOW_2 }))).toEqual([]);
    // Only that fan's entry, with the fan named.
    await expect(tx(async (tx) => await svc.leave(tx, p.id, c.id, { userPk: ana }))).rejects.toMatchObject({ status: 404 });
    await expect(t.db.read(async (tx) => await svc.get(tx, p.id, c.id, { userPk: ana }))).rejects.toMatchObject({ status: 404 });
    expect((await tx(async (tx) => await svc.leave(tx, p.id, c.id, { userPk: cat, reason: 'partner' }))).entry).toMatchObject({ state: 'LEFT', endReason: 'partner' });

    expect((await entry(b.id)).history.map((h) => h.kind)).toEqual(['joined', 'left']);
    expect(await kinds()).toEqual(['1:joined', '2:joined', '3:joined', '4:left', '5:joined', '6:left']);
  });

  it('refuses a second live entry of the same fan for the show, writing nothing even when the transaction goes on', async () => {
    const { t, p, svc, fan, settings, join } = await setup();
    await settings();
    await settings(ON, SHOW_2);
    const ana = await fan('ana');
    const first = await join(ana);
    const before = await everyRow(t.db);
    await t.db.transact(async (tx) => {
      const err = await svc.join(tx, p.id, { ...SHOW_1, userPk: ana, quantity: 2, maxPerBuyer: 4, together: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WaitingListConflict);
      expect(err).toMatchObject({ status: 409, code: 'conflict', refusal: 'already_waiting', entryId: first.id, entries: [{ path: 'user' }] });
    });
    expect(await everyRow(t.db)).toBe(before);
    // Another show is another line.
    expect(await join(ana, { showId: 'show-2' })).toMatchObject({ seq: 1, position: 1 });
  });

  it('refuses a list that is not enabled, a closed or started show, and bad input all at once, writing nothing', async () => {
    const { t, p, tx, fan, settings, join } = await setup();
    const ana = await fan('ana');
    const before = await everyRow(t.db);
    await expect(join(ana)).rejects.toMatchObject({ status: 409, refusal: 'waitinglist_closed' });
    await settings({ enabled: false, priceCap: 'RULES' });
    const off = await everyRow(t.db);
    await expect(join(ana)).rejects.toMatchObject({ status: 409, refusal: 'waitinglist_closed' });
    expect(await everyRow(t.db)).toBe(off);
    expect(off).not.toBe(before);
    await settings();

    await expect(join(ana, { quantity: 0, ticketOptionId: 'opt-nope', together: true })).rejects.toMatchObject({
      status: 400,
      entries: [
        { code: 'out_of_range', path: 'quantity', in: 'body' },
        { code: 'invalid_value', path: 'ticketOptionId' },
        { code: 'invalid_value', path: 'together' },
      ],
    });
    for (const quantity of [5, 1.5, -1]) await expect(join(ana, { quantity }), String(quantity)).rejects.toMatchObject({ status: 400, entries: [{ path: 'quantity' }] });
    expect(await join(ana, { quantity: 4 })).toMatchObject({ quantity: 4 });

    // Unknown show or event: 404; a cancelled show, a started one: 409 with the existing reasons.
    const ben = await fan('ben');
    await expect(join(ben, { showId: 'show-9' })).rejects.toMatchObject({ status: 404 });
    await expect(join(ben, { externalReferenceEventId: 'nope' })).rejects.toMatchObject({ status: 404 });
    await settings(ON, SHOW_2);
    await tx(async (tx) => await t.deps.events.cancel(tx, p.id, 'tour', 'show-2'));
    await expect(join(ben, { showId: 'show-2' })).rejects.toMatchObject({ status: 409, reason: 'resale_closed' });
    t.clock.set('2026-05-01T19:00:00Z');
    const late = await everyRow(t.db);
    await expect(join(ben)).rejects.toMatchObject({ status: 409, reason: 'show_started' });
    expect(await everyRow(t.db)).toBe(late);
  });

  it('lets fans ask for seats together only where the show has seats', async () => {
    const { fan, settings, join } = await setup({ seated: true });
    await settings();
    expect(await join(await fan('ana'), { quantity: 3, together: true })).toMatchObject({ together: true, quantity: 3 });
  });

  it('keeps partners apart: another partner’s show, user or entry reads as unknown', async () => {
    const { t, p, svc, tx, fan, settings, join } = await setup();
    await settings();
    const ana = await fan('ana');
    const entry = await join(ana);
    const other = await t.partner('Other Tickets');
    const theirs = helpers(t, other);
    const bob = await theirs.fan('bob');
    // No event 'tour' for them.
    await expect(theirs.join(bob)).rejects.toMatchObject({ status: 404 });
    // With an event of the same id of their own, their line is their own…
    await withEvent(t, other, eventBody('tour', { shows: [showBody('show-1')] }));
    await theirs.settings();
    expect(await theirs.join(bob)).toMatchObject({ seq: 1, position: 1 });
    // …and they cannot act for our fan, nor we for theirs.
    await expect(theirs.join(ana)).rejects.toMatchObject({ status: 404, entries: [{ message: 'No user was found' }] });
    await expect(join(bob)).rejects.toMatchObject({ status: 404 });
    await expect(tx(async (tx) => await svc.leave(tx, other.id, entry.id))).rejects.toMatchObject({ status: 404 });
    await expect(t.db.read(async (tx) => await svc.get(tx, other.id, entry.id))).rejects.toMatchObject({ status: 404 });
    expect(await t.db.read(async (tx) => await svc.entriesOf(tx, other.id, ana))).toEqual([]);
    expect((await t.db.read(async (tx) => await svc.exportHistory(tx, other.id, SHOW_1))).map((r) => r.userId)).toEqual(['bob@example.com']);
    expect((await t.db.read(async (tx) => await svc.exportHistory(tx, p.id, SHOW_1))).map((r) => r.userId)).toEqual(['ana@example.com']);
  });
});

describe('the order of the line under concurrency', () => {
  it('makes a join wait for the one holding the show’s line, and numbers it after', async () => {
    const { t, p, svc, fan, settings } = await setup();
    await settings();
    const [ana, ben] = [await fan('ana'), await fan('ben')];
    const other = otherProcess(t.db);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = t.db.transact(async (tx) => {
      const e = await svc.join(tx, p.id, { ...SHOW_1, userPk: ana, quantity: 1, maxPerBuyer: 4, together: false });
      entered();
      await gate;
      return e;
    });
    await inside;
    let secondDone = false;
    const second = other.transact(async (tx) => await svc.join(tx, p.id, { ...SHOW_1, userPk: ben, quantity: 1, maxPerBuyer: 4, together: false })).then((e) => ((secondDone = true), e));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(secondDone).toBe(false);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect([a.seq, a.position, b.seq, b.position]).toEqual([1, 1, 2, 2]);
  });

  it('gives many fans joining at once, from two processes, distinct places with no gap, and one fan only one entry', async () => {
    const { t, p, svc, fan, settings, stored, kinds } = await setup();
    await settings();
    const fans: string[] = [];
    for (let i = 0; i < 24; i++) fans.push(await fan(`fan${i}`));
    const other = otherProcess(t.db);
    const joinOn = (db: Db, userPk: string, quantity = 1) => db.transact(async (tx) => await svc.join(tx, p.id, { ...SHOW_1, userPk, quantity, maxPerBuyer: 4, together: false }));
    const entries = await Promise.all(fans.map((userPk, i) => joinOn(i % 2 ? other : t.db, userPk, 1 + (i % 4))));
    expect(entries.map((e) => e.seq).sort((x, y) => x - y)).toEqual(fans.map((_, i) => i + 1));
    // Each answered the place it was given under the lock: nobody joined between its number and its answer.
    for (const e of entries) expect(e.position).toBe(e.seq);
    expect((await stored())!.waiting).toBe(24);
    expect(await kinds()).toEqual(fans.map((_, i) => `${i + 1}:joined`));

    // One fan, ten attempts at once: one entry, nine refusals naming it.
    const eve = await fan('eve');
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => joinOn(i % 2 ? other : t.db, eve)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const id = (won[0] as PromiseFulfilledResult<{ id: string }>).value.id;
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 409, refusal: 'already_waiting', entryId: id });
    const [n] = await sqlRows<{ n: number }>(t.db, 'select count(*) as n from waitinglist_entries');
    expect(Number(n!.n)).toBe(25);
  });
});

describe('offers', () => {
  it('records an offer, and each way it ends moves the entry as decided, with one history row each', async () => {
    const { t, p, svc, tx, fan, settings, join, entry, stored, hold, offer, kinds } = await setup();
    await settings();
    const [ana, ben, cat] = [await fan('ana'), await fan('ben'), await fan('cat')];
    const a = await join(ana);
    const b = await join(ben);
    const c = await join(cat);

    // Offered, then withdrawn (not the fan's doing): back to WAITING, same place.
    const h1 = await hold(ana);
    const o1 = await offer(a.id, h1);
    expect(o1).toMatchObject({ entryId: a.id, intentionId: h1.intentionId, listingIds: h1.listingIds, quantity: 1, state: 'LIVE', messageId: null });
    expect(o1.id).toMatch(/^wlo_/);
    expect(await entry(a.id)).toMatchObject({ state: 'OFFERED', position: 1, offer: { id: o1.id, state: 'LIVE' } });
    // One live offer per entry: a second is refused, and so is an offer to an entry not WAITING.
    await expect(offer(a.id, await hold(ana))).rejects.toMatchObject({ status: 409, refusal: 'not_waiting' });
    await tx(async (tx) => await svc.noteOfferMessage(tx, o1.id, 'eml_1'));
    await tx(async (tx) => await svc.noteOfferMessage(tx, o1.id, 'eml_2'));
    expect((await entry(a.id)).offer).toMatchObject({ messageId: 'eml_1' });
    const withdrawn = await tx(async (tx) => await svc.endOffer(tx, h1.intentionId, 'WITHDRAWN', 'delisted'));
    expect(withdrawn).toMatchObject({ offer: { state: 'WITHDRAWN', endReason: 'delisted' }, entry: { state: 'WAITING', seq: a.seq, position: 1, endedAt: null } });
    expect((await stored())!.waiting).toBe(3);
    // Ended once: the same intention ending again changes nothing.
    expect(await tx(async (tx) => await svc.endOffer(tx, h1.intentionId, 'EXPIRED'))).toBeNull();

    // Offered again, expired: the entry ends; the fan may rejoin at the back.
    const h2 = await hold(ana);
    await offer(a.id, h2);
    t.clock.advance(15 * 60_000);
    expect(await tx(async (tx) => await svc.endOffer(tx, h2.intentionId, 'EXPIRED'))).toMatchObject({ offer: { state: 'EXPIRED', endReason: 'timeout' }, entry: { state: 'EXPIRED', position: null, endReason: 'timeout' } });
    expect((await entry(b.id)).position).toBe(1);
    expect((await stored())!.waiting).toBe(2);
    await expect(offer(a.id, await hold(ana))).rejects.toMatchObject({ status: 409, refusal: 'not_waiting' });

    // Declined, converted.
    const h3 = await hold(ben);
    await offer(b.id, h3);
    expect(await tx(async (tx) => await svc.endOffer(tx, h3.intentionId, 'DECLINED'))).toMatchObject({ entry: { state: 'DECLINED' } });
    const h4 = await hold(cat);
    await offer(c.id, h4);
    expect(await tx(async (tx) => await svc.endOffer(tx, h4.intentionId, 'CONVERTED'))).toMatchObject({ offer: { state: 'CONVERTED', endReason: 'paid' }, entry: { state: 'CONVERTED' } });
    expect((await stored())!.waiting).toBe(0);
    // An ordinary checkout is no offer.
    const ordinary = await hold(cat);
    expect(await tx(async (tx) => await svc.endOffer(tx, ordinary.intentionId, 'CONVERTED'))).toBeNull();

    expect(await kinds()).toEqual(['1:joined', '2:joined', '3:joined', '4:offered', '5:withdrawn', '6:offered', '7:expired', '8:offered', '9:declined', '10:offered', '11:bought']);
    const history = await t.db.read(async (tx) => await svc.exportHistory(tx, p.id, SHOW_1));
    expect(history[3]).toMatchObject({ kind: 'offered', entryId: a.id, entrySeq: 1, offerId: o1.id, userId: 'ana@example.com', email: 'ana@example.com', phone: null, ticketOptionId: null, quantity: 1, together: false, listingIds: h1.listingIds.join(' ') });
    expect(history[4]).toMatchObject({ kind: 'withdrawn', reason: 'delisted', at: '2026-03-01T12:00:00.000Z' });
    expect(Object.keys(history[0]!)).toEqual([...HISTORY_EXPORT_COLUMNS]);
  });

  it('refuses an offer that does not fit its entry, and answers 404 for an unknown one', async () => {
    const { t, svc, fan, settings, join, hold, tx } = await setup();
    await settings();
    const ana = await fan('ana');
    const a = await join(ana, { quantity: 2 });
    const held = await hold(ana);
    const base = { entryId: a.id, ...held, quantity: 2, notifyAt: t.clock.now(), expiresAt: t.clock.now() + 60_000 };
    const before = await everyRow(t.db);
    await expect(tx(async (tx) => await svc.recordOffer(tx, { ...base, quantity: 1 }))).rejects.toThrow(/waits for 2/);
    await expect(tx(async (tx) => await svc.recordOffer(tx, { ...base, listingIds: [] }))).rejects.toThrow(/at least one listing/);
    await expect(tx(async (tx) => await svc.recordOffer(tx, { ...base, expiresAt: t.clock.now() }))).rejects.toThrow(/ends after now/);
    await expect(tx(async (tx) => await svc.recordOffer(tx, { ...base, notifyAt: base.expiresAt + 1 }))).rejects.toThrow(/ends after now/);
    await expect(tx(async (tx) => await svc.recordOffer(tx, { ...base, entryId: 'wle_nope' }))).rejects.toMatchObject({ status: 404 });
    expect(await everyRow(t.db)).toBe(before);
  });

  it('declines a live offer when its fan leaves, and tells the caller which checkout to cancel', async () => {
    const { p, svc, tx, fan, settings, join, hold, offer, stored, kinds } = await setup();
    await settings();
    const ana = await fan('ana');
    const a = await join(ana);
    const held = await hold(ana);
    const o = await offer(a.id, held);
    const left = await tx(async (tx) => await svc.leave(tx, p.id, a.id, { userPk: ana }));
    expect(left).toMatchObject({ entry: { state: 'LEFT' }, cancelIntentionId: held.intentionId });
    // The checkout's end, when the caller cancels it, finds the offer ended already.
    expect(await tx(async (tx) => await svc.endOffer(tx, held.intentionId, 'DECLINED'))).toBeNull();
    const history = await tx(async (tx) => await svc.get(tx, p.id, a.id));
    expect(history.history.at(-1)).toMatchObject({ kind: 'left', offerId: o.id, data: { reason: 'left', declinedOfferId: o.id, listingIds: held.listingIds } });
    expect((await stored())!.waiting).toBe(0);
    expect(await kinds()).toEqual(['1:joined', '2:offered', '3:left']);
  });

  it('closes a show’s line: every live entry closed in order, live offers withdrawn and their checkouts named', async () => {
    const { t, p, svc, tx, fan, settings, join, hold, offer, stored, kinds, entry } = await setup();
    await settings();
    const [ana, ben, cat] = [await fan('ana'), await fan('ben'), await fan('cat')];
    const a = await join(ana);
    const b = await join(ben);
    await tx(async (tx) => await svc.leave(tx, p.id, b.id));
    const c = await join(cat);
    const held = await hold(cat);
    const o = await offer(c.id, held);
    const showPk = a.showPk;
    expect(await tx(async (tx) => await svc.close(tx, showPk, 'show_cancelled'))).toEqual({ closed: 2, cancelIntentionIds: [held.intentionId] });
    expect(await entry(a.id)).toMatchObject({ state: 'CLOSED', endReason: 'show_cancelled', position: null });
    expect(await entry(c.id)).toMatchObject({ state: 'CLOSED', offer: null, history: [{ kind: 'joined' }, { kind: 'offered' }, { kind: 'closed', offerId: o.id, data: { withdrawnOfferId: o.id } }] });
    expect((await t.db.select().from(waitinglistOffers).where(eq(waitinglistOffers.id, o.id)))[0]).toMatchObject({ state: 'WITHDRAWN', endReason: 'show_cancelled' });
    expect((await stored())!.waiting).toBe(0);
    expect(await kinds()).toEqual(['1:joined', '2:joined', '3:left', '4:joined', '5:offered', '6:closed', '7:closed']);
    expect(await tx(async (tx) => await svc.close(tx, showPk, 'show_cancelled'))).toEqual({ closed: 0, cancelIntentionIds: [] });
    // The settings stay: fans may join a new line.
    expect(await join(ana)).toMatchObject({ seq: 8, position: 1 });
  });
});

describe('what the database itself guarantees', () => {
  it('keeps the history append-only on this engine: UPDATE and DELETE are refused, whoever asks', async () => {
    const { t, fan, settings, join } = await setup();
    await settings();
    await join(await fan('ana'));
    const rows = await t.db.select().from(waitinglistHistory);
    expect(rows).toHaveLength(1);
    const id = rows[0]!.id;
    expect(await refusal(t.db.transact(async (tx) => await tx.update(waitinglistHistory).set({ kind: 'left' }).where(eq(waitinglistHistory.id, id))))).toMatch(/waitinglist_history is append-only/);
    expect(await refusal(t.db.transact(async (tx) => await tx.delete(waitinglistHistory).where(eq(waitinglistHistory.id, id))))).toMatch(/waitinglist_history is append-only/);
    expect(await refusal(sqlExec(t.db, 'update waitinglist_history set seq = seq + 100'))).toMatch(/waitinglist_history is append-only/);
    expect(await refusal(sqlExec(t.db, 'delete from waitinglist_history'))).toMatch(/waitinglist_history is append-only/);
    expect(await t.db.select().from(waitinglistHistory)).toEqual(rows);
  });

  it('holds one live entry per fan and show, and one live offer per entry, even for a writer that skips the service', async () => {
    const { t, fan, settings, join, hold, offer } = await setup();
    await settings();
    const ana = await fan('ana');
    const a = await join(ana);
    const [row] = await t.db.select().from(waitinglistEntries);
    const copy = (over: Partial<typeof row>) => ({ ...row!, id: `wle_copy_${Math.random()}`, ...over });
    // Another live entry of the fan: refused, WAITING or OFFERED; a final one is fine; another show's too.
    for (const state of ['WAITING', 'OFFERED'] as const) {
      expect(await refusal(t.db.transact(async (tx) => void (await tx.insert(waitinglistEntries).values(copy({ seq: 90, state })))))).toMatch(/unique|UNIQUE/);
    }
    await t.db.transact(async (tx) => void (await tx.insert(waitinglistEntries).values(copy({ seq: 91, state: 'LEFT' }))));
    // The same place in the line twice: refused.
    expect(await refusal(t.db.transact(async (tx) => void (await tx.insert(waitinglistEntries).values(copy({ seq: a.seq, state: 'LEFT' })))))).toMatch(/unique|UNIQUE/);

    const held = await hold(ana);
    const o = await offer(a.id, held);
    const [stored] = await t.db.select().from(waitinglistOffers);
    const other = await hold(ana);
    expect(await refusal(t.db.transact(async (tx) => void (await tx.insert(waitinglistOffers).values({ ...stored!, id: 'wlo_copy', intentionId: other.intentionId }))))).toMatch(/unique|UNIQUE/);
    // One offer per intention, whatever its state.
    expect(await refusal(t.db.transact(async (tx) => void (await tx.insert(waitinglistOffers).values({ ...stored!, id: 'wlo_copy2', state: 'EXPIRED' }))))).toMatch(/unique|UNIQUE/);
    await t.db.transact(async (tx) => void (await tx.insert(waitinglistOffers).values({ ...stored!, id: 'wlo_old', intentionId: other.intentionId, state: 'EXPIRED' })));
    expect(o.state).toBe('LIVE');
  });
});
