import { describe, expect, it } from 'vitest';
import type { Tx } from '../db/client.js';
import { listingsByIds } from '../domain/listings/listings.queries.js';
import { intentionById } from '../domain/intentions/intentions.queries.js';
import { FreePool, type FreeListing } from '../domain/waitinglist/waitinglist.match.js';
import type { JoinInput, SettingsInput } from '../domain/waitinglist/waitinglist.model.js';
import { MAX_INTENTION_ITEMS } from '../domain/intentions/intentions.service.js';
import { eventBody, showBody, ticketBody, withEvent } from '../testing/factories.js';
import { createTestApp } from '../testing/harness.js';
import { sqlExec, sqlRows } from '../testing/sql.js';
import { completePurchase } from './complete-purchase.js';
import { offers as marketOffers } from './market.queries.js';
import { reserveListings } from './reserve-listings.js';
import { sweepWaitingLists } from './waiting-list-offers.js';

/**
 * The waiting list's offers (flows/waiting-list-offers.ts) through the real services and their
 * reactions, on SQLite here and PostgreSQL in the server-pg project: a listing made available is
 * offered in the same transaction to the earliest entry it fits, and each way an offer ends
 * passes the tickets on.
 */

const SHOW = { externalReferenceEventId: 'tour', showId: 'show-1' };
const ON: SettingsInput = { enabled: true, priceCap: 'RULES' };
const SEATING = { image: 'https://partner.example/img/chart.png' };

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')], seating: SEATING }));
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  const wl = t.deps.waitingList;
  const fan = async (name: string) => (await tx(async (tx) => await t.deps.users.resolve(tx, p.id, { email: `${name}@example.com` }))).id;
  const settings = async (input: SettingsInput = ON) => await tx(async (tx) => await wl.putSettings(tx, p.id, SHOW, input));
  const join = async (userPk: string, over: Partial<JoinInput> = {}) => await tx(async (tx) => await wl.join(tx, p.id, { ...SHOW, userPk, quantity: 1, maxPerBuyer: 4, together: false, ...over }));
  const entry = async (entryId: string) => await t.db.read(async (tx) => await wl.get(tx, p.id, entryId));
  let n = 0;
  /** Publishes one listing of `seats` (one ticket each; several make one order, a pack) by a seller of its own. */
  const publish = async (seats: readonly (readonly [string, string, string] | null)[], opts: { showId?: string; seller?: string } = {}) => {
    const i = ++n;
    const seller = opts.seller ?? `seller-${i}@example.com`;
    const ids = seats.map((_, k) => `t-${i}-${k}`);
    await tx(async (tx) =>
      await t.deps.tickets.syncCreate(
        tx,
        p.id,
        seats.map((s, k) => ticketBody(ids[k]!, { showId: opts.showId ?? 'show-1', buyer: seller, ...(seats.length > 1 ? { orderId: `o-${i}` } : {}), ...(s ? { props: { seating: { section: s[0], row: s[1], seat: s[2] } } } : {}) })),
      ),
    );
    return await tx(async (tx) => {
      const tickets = [];
      for (const id of ids) tickets.push(await t.deps.tickets.get(tx, p.id, id));
      return await t.deps.listings.create(tx, p.id, { sellerPk: tickets[0]!.ownerPk, ticketPks: tickets.map((x) => x.id), priceMinor: 4000 });
    });
  };
  const listing = async (id: string) => (await t.db.read(async (tx) => await listingsByIds(tx, p.id, [id])))[0]!;
  const intention = async (id: string) => (await t.db.read(async (tx) => await intentionById(tx, id)))!;
  const hooks = async (action: string) => (await sqlRows<{ payload: string }>(t.db, `select payload from webhook_messages where action = '${action}' order by created_at, id`)).map((r) => JSON.parse(r.payload).data as Record<string, any>);
  const mails = async () => await sqlRows<{ to: string; text: string }>(t.db, `select "to", text from messages where template = 'waitingListOffer' order by created_at, id`);
  const kinds = async () => (await t.db.read(async (tx) => await wl.exportHistory(tx, p.id, SHOW))).map((r) => `${r.kind}:${r.entryId}`);
  return { t, p, tx, wl, fan, settings, join, entry, publish, listing, intention, hooks, mails, kinds };
}

describe('waiting-list offers', () => {
  it('offers a published listing in the same commit to the earliest entry it fits, announced once as RESERVED, with one e-mail and one webhook', async () => {
    const { t, p, fan, settings, join, entry, publish, intention, hooks, mails } = await setup();
    await settings();
    const [ana, ben, cat] = [await fan('ana'), await fan('ben'), await fan('cat')];
    const a = await join(ana, { quantity: 2 });
    const b = await join(ben);
    const c = await join(cat);
    expect((await hooks('waitinglist.joined')).map((d) => d.entryId)).toEqual([a.id, b.id, c.id]);

    const l = await publish([['A', '1', '1']]);
    // Ana waits for two: the single ticket goes to Ben, the earliest entry it fits.
    expect(l.state).toBe('RESERVED');
    const bOffered = await entry(b.id);
    expect(bOffered).toMatchObject({ state: 'OFFERED', offer: { listingIds: [l.id], quantity: 1, state: 'LIVE' } });
    expect(await entry(a.id)).toMatchObject({ state: 'WAITING' });
    expect(await entry(c.id)).toMatchObject({ state: 'WAITING' });
    const held = await intention(l.intentionId!);
    expect(held).toMatchObject({ kind: 'waitinglist', buyerPk: ben, state: 'PENDING', listingIds: [l.id], expiresAt: t.clock.now() + 15 * 60_000 });
    // Never on public sale: the market does not count it.
    expect(await t.db.read(async (tx) => await marketOffers(tx, l.showPk))).toEqual([]);
    // The partner hears of the listing once, RESERVED.
    expect((await hooks('listing.created')).map((d) => d.state)).toEqual(['RESERVED']);
    expect(await hooks('listing.updated')).toEqual([]);
    const [offered] = await hooks('waitinglist.offered');
    expect(await hooks('waitinglist.offered')).toHaveLength(1);
    expect(offered).toMatchObject({ entryId: b.id, offerId: bOffered.offer!.id, intentionId: held.id, listingIds: [l.id], ticketIds: ['t-1-0'], seats: [{ section: 'A', row: '1', seat: '1' }], quantity: 1, together: false, user: { email: 'ben@example.com' } });
    expect(JSON.stringify(offered)).not.toMatch(/oneTimeToken/);
    const sent = await mails();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to).toBe('ben@example.com');
    expect(sent[0]!.text).toContain(`/checkout/${p.id}/${held.id}?lang=`);
    expect(sent[0]!.text).toMatch(/oneTimeToken=/);
  });

  it('makes an offer in the show’s quiet hours at once, and tells the fan when they end (the hold counted from then)', async () => {
    const { t, fan, settings, join, entry, publish, intention, hooks } = await setup();
    await settings({ ...ON, quietHours: { start: '22:00', end: '08:00', timeZone: 'Europe/Madrid' } });
    const b = await join(await fan('ben'));
    // 23:30 in Madrid (UTC+2 in April): inside the window, which ends at 08:00 the next morning.
    t.clock.set('2026-04-20T21:30:00Z');
    const l = await publish([['A', '1', '1']]);
    expect(l.state).toBe('RESERVED');
    const told = Date.parse('2026-04-21T06:00:00Z');
    expect(await entry(b.id)).toMatchObject({ state: 'OFFERED' });
    expect((await intention(l.intentionId!)).expiresAt).toBe(told + 15 * 60_000);
    expect((await hooks('waitinglist.offered'))[0]).toMatchObject({ offeredAt: '2026-04-20T21:30:00.000Z', notifyAt: '2026-04-21T06:00:00.000Z', expiresAt: '2026-04-21T06:15:00.000Z' });
    const outbox = async () => await sqlRows<{ state: string; next_attempt_at: number | string }>(t.db, `select state, next_attempt_at from messages where template = 'waitingListOffer'`);
    expect(Number((await outbox())[0]!.next_attempt_at)).toBe(told);
    // Nothing goes out during the night; at 08:00 it does.
    t.clock.set('2026-04-21T05:59:00Z');
    expect((await t.deps.messages.deliverDue()).sent).toBe(0);
    t.clock.set('2026-04-21T06:00:00Z');
    expect((await t.deps.messages.deliverDue()).sent).toBe(1);
    expect((await outbox())[0]!.state).toBe('sent');
    // Outside the window an offer is told at once.
    t.clock.set('2026-04-21T10:00:00Z');
    const c = await join(await fan('cat'));
    await publish([['A', '1', '2']]);
    expect((await hooks('waitinglist.offered')).find((h) => h.entryId === c.id)).toMatchObject({ offeredAt: '2026-04-21T10:00:00.000Z', notifyAt: '2026-04-21T10:00:00.000Z' });
  });

  it('leaves on public sale what no fan could be told of before the show begins (quiet hours ending after its start)', async () => {
    const { t, fan, settings, join, entry, publish } = await setup();
    await settings({ ...ON, quietHours: { start: '20:00', end: '08:00', timeZone: 'Europe/Madrid' } });
    const b = await join(await fan('ben'));
    // 20:30 in Madrid on the show's day; the show starts at 21:00 and the window ends at 08:00.
    t.clock.set('2026-05-01T18:30:00Z');
    const l = await publish([['A', '1', '1']]);
    expect(l.state).toBe('ACTIVE');
    expect(await entry(b.id)).toMatchObject({ state: 'WAITING' });
  });

  it('sweeps: offers stock on sale an offer round missed, and closes the line of a show that began, withdrawing its live offer', async () => {
    const { t, fan, settings, join, entry, publish, listing, intention } = await setup();
    await settings();
    const ben = await join(await fan('ben'));
    // Paused and resumed behind the offers' back (as a lost event would leave it): the listing stays on sale.
    await sqlExec(t.db, `update waitinglist_settings set enabled = false`);
    const missed = await publish([['A', '1', '1']]);
    expect(missed.state).toBe('ACTIVE');
    await sqlExec(t.db, `update waitinglist_settings set enabled = true`);
    expect(await sweepWaitingLists(t.deps)).toEqual({ closed: 0, swept: 1 });
    expect((await listing(missed.id)).state).toBe('RESERVED');
    expect(await entry(ben.id)).toMatchObject({ state: 'OFFERED', offer: { listingIds: [missed.id] } });
    const held = (await listing(missed.id)).intentionId!;
    const cat = await join(await fan('cat'));
    // The show begins (21:00 in Madrid): both entries closed, Ben's offer withdrawn, its checkout ended and the ticket released.
    t.clock.set('2026-05-01T19:00:00Z');
    expect(await sweepWaitingLists(t.deps)).toEqual({ closed: 2, swept: 0 });
    expect(await entry(ben.id)).toMatchObject({ state: 'CLOSED', endReason: 'show_started' });
    expect(await entry(cat.id)).toMatchObject({ state: 'CLOSED' });
    expect(await intention(held)).toMatchObject({ state: 'CANCELLED', endReason: 'waitinglist_closed' });
    expect((await listing(missed.id)).state).toBe('ACTIVE');
    // Nothing live is left to sweep.
    expect(await sweepWaitingLists(t.deps)).toEqual({ closed: 0, swept: 0 });
  });

  it('keeps to the quantity and to seats together, and leaves on sale what fits nobody', async () => {
    const { fan, settings, join, entry, publish, listing, hooks } = await setup();
    await settings();
    const dan = await fan('dan');
    const d = await join(dan, { quantity: 2, together: true });
    const one = await publish([['A', '1', '1']]);
    const far = await publish([['A', '1', '5']]);
    // Neither makes two seats side by side: both on sale.
    expect([(await listing(one.id)).state, (await listing(far.id)).state]).toEqual(['ACTIVE', 'ACTIVE']);
    expect((await hooks('listing.created')).map((h) => h.state)).toEqual(['ACTIVE', 'ACTIVE']);
    const next = await publish([['A', '1', '2']]);
    expect((await entry(d.id)).offer?.listingIds.sort()).toEqual([one.id, next.id].sort());
    expect([(await listing(one.id)).state, (await listing(next.id)).state, (await listing(far.id)).state]).toEqual(['RESERVED', 'RESERVED', 'ACTIVE']);
    // A pack of three fits nobody (one entry of two, together): on sale.
    const pack = await publish([['B', '1', '1'], ['B', '1', '2'], ['B', '1', '3']]);
    expect(pack.state).toBe('ACTIVE');
  });

  it('passes an expired offer to the next fitting entry in the expiry’s transaction, then a declined one, then on sale', async () => {
    const { t, p, tx, fan, settings, join, entry, publish, listing, hooks } = await setup();
    await settings({ ...ON, offerMinutes: 10 });
    const [ana, ben, cat] = [await fan('ana'), await fan('ben'), await fan('cat')];
    const a = await join(ana);
    const b = await join(ben, { quantity: 3 });
    const c = await join(cat);
    const l = await publish([['A', '1', '1']]);
    expect((await entry(a.id)).state).toBe('OFFERED');

    t.clock.advance(10 * 60_000);
    expect(await t.deps.intentions.expireDue()).toBe(1);
    expect(await entry(a.id)).toMatchObject({ state: 'EXPIRED', endReason: 'timeout' });
    expect(await entry(b.id)).toMatchObject({ state: 'WAITING' });
    const toCat = (await entry(c.id)).offer!;
    expect(toCat.listingIds).toEqual([l.id]);
    expect((await listing(l.id)).intentionId).toBe(toCat.intentionId);
    expect(await hooks('waitinglist.expired')).toMatchObject([{ entryId: a.id, reason: 'timeout', entryState: 'EXPIRED' }]);

    // Cat says no thanks (cancels the checkout): declined, and nobody else fits: on sale again.
    await tx(async (tx) => await t.deps.intentions.cancel(tx, p.id, toCat.intentionId));
    expect(await entry(c.id)).toMatchObject({ state: 'DECLINED' });
    expect(await listing(l.id)).toMatchObject({ state: 'ACTIVE', intentionId: null });
    expect((await hooks('waitinglist.expired')).map((h) => [h.reason, h.entryState])).toEqual([['timeout', 'EXPIRED'], ['declined', 'DECLINED']]);
    // Told ACTIVE once at the end, RESERVED for each holder before.
    expect((await hooks('listing.updated')).map((h) => h.state)).toEqual(['RESERVED', 'ACTIVE']);
  });

  it('puts the entry back in its place when its offer is withdrawn (the listing delisted), and converts on payment', async () => {
    const { t, p, tx, fan, settings, join, entry, publish, listing, hooks, kinds } = await setup();
    await settings();
    const [ana, ben] = [await fan('ana'), await fan('ben')];
    const a = await join(ana);
    const l1 = await publish([null], { showId: 'show-1' });
    expect((await entry(a.id)).offer?.listingIds).toEqual([l1.id]);
    await tx(async (tx) => await t.deps.listings.delist(tx, p.id, { ...SHOW }));
    expect(await listing(l1.id)).toMatchObject({ state: 'DELISTED' });
    expect(await entry(a.id)).toMatchObject({ state: 'WAITING', position: 1, offer: null });
    expect(await hooks('waitinglist.expired')).toMatchObject([{ entryId: a.id, reason: 'withdrawn', entryState: 'WAITING' }]);

    const b = await join(ben);
    const l2 = await publish([null]);
    // Ana kept her place: the next listing is hers, not Ben's.
    const offer = (await entry(a.id)).offer!;
    expect(offer.listingIds).toEqual([l2.id]);
    expect(await tx(async (tx) => await completePurchase(t.deps, tx, offer.intentionId, { provider: 'sandbox', providerRef: 'ch_1' }))).toBe(true);
    expect(await entry(a.id)).toMatchObject({ state: 'CONVERTED' });
    expect(await listing(l2.id)).toMatchObject({ state: 'SOLD' });
    expect(await hooks('waitinglist.converted')).toMatchObject([{ entryId: a.id, offerId: offer.id, intentionId: offer.intentionId, listingIds: [l2.id], ticketIds: ['t-2-0'] }]);
    expect(await entry(b.id)).toMatchObject({ state: 'WAITING', position: 1 });
    expect(await kinds()).toEqual([`joined:${a.id}`, `offered:${a.id}`, `withdrawn:${a.id}`, `joined:${b.id}`, `offered:${a.id}`, `bought:${a.id}`]);
  });

  it('offers stock on sale to a fan who joins, and to the line when it is turned on', async () => {
    const { fan, settings, join, entry, publish, listing } = await setup();
    const early = await publish([null]);
    const [ana, ben] = [await fan('ana'), await fan('ben')];
    await settings({ ...ON, enabled: false });
    // Turning the list on offers nothing while nobody waits; a fan joining gets the stock at once.
    await settings();
    expect((await listing(early.id)).state).toBe('ACTIVE');
    const a = await join(ana);
    expect(a).toMatchObject({ state: 'OFFERED', offer: { listingIds: [early.id] } });
    const b = await join(ben);
    // Off: a listing published meanwhile stays on sale; on again: the line gets what is on sale.
    await settings({ ...ON, enabled: false });
    const late = await publish([null]);
    expect((await listing(late.id)).state).toBe('ACTIVE');
    await settings();
    expect(await entry(b.id)).toMatchObject({ state: 'OFFERED', offer: { listingIds: [late.id] } });
  });

  it('leaves an ordinary checkout alone, on a show with a line', async () => {
    const { t, p, tx, fan, settings, join, entry, publish, listing, intention, kinds } = await setup();
    await settings();
    const ana = await fan('ana');
    const a = await join(ana, { quantity: 3 });
    const l = await publish([null]);
    expect(l.state).toBe('ACTIVE');
    const partner = await t.deps.partners.get(p.id);
    const buyer = await fan('buyer');
    const held = await tx(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [l.id], buyerPk: buyer }));
    expect((await intention(held.id)).kind).toBe('checkout');
    await tx(async (tx) => await t.deps.intentions.cancel(tx, p.id, held.id));
    expect((await listing(l.id)).state).toBe('ACTIVE');
    expect(await entry(a.id)).toMatchObject({ state: 'WAITING' });
    expect(await kinds()).toEqual([`joined:${a.id}`]);
  });
});

describe('waiting-list offers under concurrency', () => {
  it('1,000 entries and 200 listings published at once: one live offer per listing and per entry, join order kept, nothing left on sale that fits a waiting fan', async () => {
    const { t, p, tx, wl, settings } = await setup();
    await settings();
    // A fixed pseudo-random sequence: the same scenario on every run.
    let seed = 35;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const FANS = 1000;
    const fans = await tx(async (tx) => {
      const out: string[] = [];
      for (let i = 0; i < FANS; i++) out.push((await t.deps.users.resolve(tx, p.id, { email: `fan-${i}@example.com` })).id);
      return out;
    });
    await tx(async (tx) => {
      for (const [i, userPk] of fans.entries()) await wl.join(tx, p.id, { ...SHOW, userPk, quantity: 1 + Math.floor(rand() * 4), maxPerBuyer: 4, together: i % 10 < 3 });
    });

    // 200 listings of 1–4 seats side by side in rows of 24 (a seat left out now and then).
    const LISTINGS = 200;
    const bodies: ReturnType<typeof ticketBody>[] = [];
    const packs: string[][] = [];
    let row = 1;
    let seat = 1;
    for (let i = 0; i < LISTINGS; i++) {
      const q = 1 + Math.floor(rand() * 4);
      if (seat + q > 25) [row, seat] = [row + 1, 1];
      if (rand() < 0.15) seat++;
      const ids: string[] = [];
      for (let k = 0; k < q; k++) {
        const id = `c-${i}-${k}`;
        ids.push(id);
        bodies.push(ticketBody(id, { buyer: `seller-${i}@example.com`, ...(q > 1 ? { orderId: `co-${i}` } : {}), props: { seating: { section: 'A', row: String(row), seat: String(seat++) } } }));
      }
      packs.push(ids);
    }
    await tx(async (tx) => await t.deps.tickets.syncCreate(tx, p.id, bodies));
    // Published by 8 concurrent writers (PostgreSQL: 8 connections at once, within the test pool's size).
    const queue = [...packs];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let ids = queue.shift(); ids; ids = queue.shift()) {
          const pack = ids;
          await tx(async (tx) => {
            const tickets = [];
            for (const id of pack) tickets.push(await t.deps.tickets.get(tx, p.id, id));
            return await t.deps.listings.create(tx, p.id, { sellerPk: tickets[0]!.ownerPk, ticketPks: tickets.map((x) => x.id), priceMinor: 4000 });
          });
        }
      }),
    );

    // Replay the history by its sequence: the order things happened under the show's lock.
    const history = await sqlRows<{ seq: number; kind: string; entry_id: string; offer_id: string | null; data: string | Record<string, unknown> }>(t.db, `select seq, kind, entry_id, offer_id, data from waitinglist_history order by seq`);
    const entries = new Map((await sqlRows<{ id: string; seq: number; quantity: number; together: boolean | number; user_pk: string }>(t.db, 'select id, seq, quantity, together, user_pk from waitinglist_entries')).map((e) => [e.id, { ...e, together: Boolean(e.together) }]));
    const listingRows = await sqlRows<{ id: string; seller_pk: string; state: string; quantity: number; created_at: number; ticket_option_pk: string }>(t.db, `select id, seller_pk, state, quantity, created_at, ticket_option_pk from listings`);
    const sellerOf = new Map(listingRows.map((l) => [l.id, l.seller_pk]));
    const state = new Map<string, string>();
    const liveListing = new Map<string, string>();
    const liveOfEntry = new Map<string, string>();
    const offerListings = new Map<string, string[]>();
    let offers = 0;
    for (const h of history) {
      const data = (typeof h.data === 'string' ? JSON.parse(h.data) : h.data) as { listingIds?: string[] };
      const e = entries.get(h.entry_id)!;
      if (h.kind === 'joined') state.set(e.id, 'WAITING');
      else if (h.kind === 'offered') {
        offers++;
        const listingIds = data.listingIds!;
        expect(state.get(e.id)).toBe('WAITING');
        expect(liveOfEntry.has(e.id)).toBe(false);
        for (const l of listingIds) expect(liveListing.has(l)).toBe(false);
        const sellers = new Set(listingIds.map((l) => sellerOf.get(l)));
        // No earlier WAITING entry these very listings satisfy (same quantity; a together
        // offer satisfies any entry of its quantity, a loose one every loose entry).
        for (const other of entries.values()) {
          if (other.seq >= e.seq || state.get(other.id) !== 'WAITING' || other.quantity !== e.quantity || sellers.has(other.user_pk)) continue;
          if (other.together && !e.together) continue;
          expect.fail(`offer to entry ${e.seq} passed over entry ${other.seq} (quantity ${other.quantity}, together ${other.together})`);
        }
        state.set(e.id, 'OFFERED');
        for (const l of listingIds) liveListing.set(l, h.offer_id!);
        liveOfEntry.set(e.id, h.offer_id!);
        offerListings.set(h.offer_id!, listingIds);
      } else {
        const offerId = liveOfEntry.get(e.id);
        if (offerId) for (const l of offerListings.get(offerId)!) liveListing.delete(l);
        liveOfEntry.delete(e.id);
        state.set(e.id, h.kind === 'withdrawn' ? 'WAITING' : h.kind);
      }
    }
    expect(offers).toBeGreaterThan(50);
    // Every RESERVED listing is held by exactly the one live offer the history says.
    for (const l of listingRows) expect(l.state === 'RESERVED').toBe(liveListing.has(l.id));

    // Nothing left on sale fits a WAITING entry.
    const seats = new Map<string, { section: string | null; row: string | null; seat: string | null }[]>();
    for (const s of await sqlRows<{ listing_id: string; section: string | null; row: string | null; seat: string | null }>(t.db, 'select lt.listing_id, t.section, t.row, t.seat from listing_tickets lt join tickets t on t.id = lt.ticket_pk')) {
      seats.set(s.listing_id, [...(seats.get(s.listing_id) ?? []), { section: s.section, row: s.row, seat: s.seat }]);
    }
    const active: FreeListing[] = listingRows.filter((l) => l.state === 'ACTIVE').map((l) => ({ id: l.id, optionPk: l.ticket_option_pk, quantity: Number(l.quantity), seats: seats.get(l.id) ?? [], publishedAt: Number(l.created_at), sellerPk: l.seller_pk }));
    const pool = new FreePool(active, { maxListings: MAX_INTENTION_ITEMS });
    const waitingClasses = new Set([...entries.values()].filter((e) => state.get(e.id) === 'WAITING').map((e) => `${e.quantity}:${e.together}`));
    for (const cls of waitingClasses) {
      const [q, together] = cls.split(':');
      for (const l of active) expect(pool.fit({ quantity: Number(q), together: together === 'true', optionPk: null }, l.id), `listing ${l.id} fits a waiting ${cls}`).toBeNull();
    }
    // One e-mail and one webhook per offer.
    expect((await sqlRows(t.db, `select id from messages where template = 'waitingListOffer'`)).length).toBe(offers);
    expect((await sqlRows(t.db, `select id from webhook_messages where action = 'waitinglist.offered'`)).length).toBe(offers);
  }, 120_000);
});
