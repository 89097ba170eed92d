import { describe, expect, it } from 'vitest';
import type { Tx } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import { listings } from '../../domain/listings/listings.table.js';
import type { SettingsInput } from '../../domain/waitinglist/waitinglist.model.js';
import { priceCapOf } from '../../domain/waitinglist/waitinglist.queries.js';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { channelListingBody, ticketBody, withEvent } from '../../testing/factories.js';

/**
 * The waiting list's face-value cap on listing prices (issue 35): with `priceCap` FACE_VALUE on
 * an enabled list, a listing published while fans wait for its option (or for any option) sells
 * at face value at most: the quote says so before publishing, and `create`, `reprice` and a
 * channel's listing refuse more (400 `out_of_range` on `price`, reason `price_rejected`), nothing
 * written. Show-1's opt-field has a face value of 45.50 EUR; show-2 is the standard show.
 *
 * Fans join for 4 tickets: no listing here has 4, so the offers' flow never holds the listings
 * under test (they stay ACTIVE and can be repriced).
 */

const SHOW_1 = { externalReferenceEventId: 'tour', showId: 'show-1' };
const FACE: SettingsInput = { enabled: true, priceCap: 'FACE_VALUE' };

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p);
  const synced = await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [ticketBody('a1'), ticketBody('a2'), ticketBody('a3'), ticketBody('v1', { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 })],
  });
  expect(synced.status).toBe(200);
  return { t, p, ...helpers(t, p) };
}

function helpers(t: TestApp, p: TestPartner) {
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (id: string, priceMinor: number | null) => await tx(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor }));
  const quote = async (id: string, priceMinor: number | null = null) => await tx(async (tx) => await t.deps.listings.quote(tx, await ticket(id), priceMinor));
  const settings = async (input: SettingsInput, show = SHOW_1) => await tx(async (tx) => await t.deps.waitingList.putSettings(tx, p.id, show, input));
  let fans = 0;
  /** A fan joins show-1's line for 4 tickets of `ticketOptionId` (null: any option). */
  const join = async (ticketOptionId: string | null, show = SHOW_1) =>
    await tx(async (tx) => {
      const user = await t.deps.users.resolve(tx, p.id, { email: `waiting-${++fans}@example.com` });
      return await t.deps.waitingList.join(tx, p.id, { ...show, userPk: user.id, quantity: 4, maxPerBuyer: 4, together: false, ticketOptionId });
    });
  const listingCount = async () => (await t.db.read(async (tx) => await tx.select().from(listings))).length;
  /** The ApiError a promise rejects with. */
  const refusal = async (p: Promise<unknown>) => {
    const e = await p.then(
      () => null,
      (err: unknown) => err as ApiError,
    );
    expect(e).toBeInstanceOf(ApiError);
    return e!;
  };
  return { tx, ticket, list, quote, settings, join, listingCount, refusal };
}

describe('waiting-list price cap: when it applies', () => {
  it('only with FACE_VALUE on an enabled list and fans waiting for the option or any option', async () => {
    const { t, settings, join, quote, ticket } = await setup();
    const [a, v] = [await ticket('a1'), await ticket('v1')];
    const [show, field, vip] = [a.showPk, a.ticketOptionPk, v.ticketOptionPk];
    const cap = async (option = field) => await t.db.read(async (tx) => await priceCapOf(tx, show, option));
    // No settings at all; FACE_VALUE with nobody waiting.
    expect(await cap()).toBeNull();
    await settings(FACE);
    expect(await cap()).toBeNull();
    // A fan waits for VIP: the cap is VIP's, not the field's.
    await join('opt-vip');
    expect(await cap(vip)).toEqual({ fans: 1 });
    expect(await cap(field)).toBeNull();
    expect((await quote('a1')).limits.cap).toBeNull();
    // A fan waiting for any option counts for every option.
    await join(null);
    expect(await cap(vip)).toEqual({ fans: 2 });
    expect(await cap(field)).toEqual({ fans: 1 });
    await join('opt-field');
    expect(await cap(field)).toEqual({ fans: 2 });
    expect((await quote('a1')).limits).toEqual({ originalMinor: 4550, minMinor: null, maxMinor: 4550, fixedMinor: null, cap: { reason: 'waiting_list', fans: 2, capMinor: 4550 } });
    // RULES: no extra cap; a disabled list neither.
    await settings({ enabled: true, priceCap: 'RULES' });
    expect(await cap()).toBeNull();
    expect((await quote('a1')).limits).toEqual({ originalMinor: 4550, minMinor: null, maxMinor: null, fixedMinor: null, cap: null });
    await settings({ enabled: false, priceCap: 'FACE_VALUE' });
    expect(await cap()).toBeNull();
  });
});

describe('waiting-list price cap: publishing', () => {
  it('accepts a listing at face value and refuses one above it, naming why, with nothing written', async () => {
    const { settings, join, list, quote, listingCount, refusal, ticket } = await setup();
    await settings(FACE);
    await join('opt-field');
    await join(null);
    expect((await quote('a1', 5000)).limits.cap).toEqual({ reason: 'waiting_list', fans: 2, capMinor: 4550 });
    const before = await listingCount();
    const e = await refusal(list('a1', 4551));
    expect(e).toMatchObject({ status: 400, reason: 'price_rejected', message: '2 fans are waiting for this show: the organiser caps resale at face value: the price must be at most 45.5 EUR' });
    expect(e.entries[0]).toMatchObject({ code: 'out_of_range', path: 'price' });
    expect(await listingCount()).toBe(before);
    expect((await ticket('a1')).state).toBe('VALID');
    const ok = await list('a1', 4550);
    expect(ok).toMatchObject({ priceMinor: 4550, state: 'ACTIVE' });
    expect((await list('a2', 3000)).priceMinor).toBe(3000);
  });

  it('refuses a reprice above face value once fans wait; a reprice within it goes through', async () => {
    const { t, settings, join, list, tx, refusal } = await setup();
    await settings(FACE);
    // Listed at 60 before anyone waited: no cap then (the count is read when publishing).
    const listing = await list('a1', 6000);
    expect(listing.priceMinor).toBe(6000);
    await join(null);
    const e = await refusal(tx(async (tx) => await t.deps.listings.reprice(tx, listing, 5000)));
    expect(e).toMatchObject({ status: 400, reason: 'price_rejected', message: '1 fan is waiting for this show: the organiser caps resale at face value: the price must be at most 45.5 EUR' });
    expect(e.entries[0]).toMatchObject({ code: 'out_of_range', path: 'price' });
    expect((await t.db.read(async (tx) => await t.deps.listings.get(tx, listing.partnerId, listing.id))).priceMinor).toBe(6000);
    expect((await tx(async (tx) => await t.deps.listings.reprice(tx, listing, 4550))).priceMinor).toBe(4550);
  });

  it('lowers the rules’ limits above face value: a maximum and a fixed price', async () => {
    const { t, p, settings, join, list, quote, refusal } = await setup();
    const rule = (ruleType: string, rules: unknown) =>
      t.request('POST', '/v1/rules', { key: p.keys.private, body: [{ externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', ruleType, rules }] });
    expect((await rule('maxPriceSellConfig', { type: 'PERCENTAGE', value: 150 })).status).toBe(200);
    await settings(FACE);
    await join('opt-field');
    expect((await quote('a1')).limits).toMatchObject({ maxMinor: 4550, cap: { fans: 1, capMinor: 4550 } });
    // A maximum below face value stays: the cap only lowers.
    expect((await rule('maxPriceSellConfig', { type: 'PERCENTAGE', value: 80 })).status).toBe(200);
    expect((await quote('a1')).limits.maxMinor).toBe(3640);
    expect((await refusal(list('a1', 4000))).message).toBe('The price must be at most 36.4 EUR');
    expect((await rule('fixedListingPrice', { type: 'ABSOLUTE', value: 60 })).status).toBe(200);
    expect((await quote('a1')).limits).toMatchObject({ fixedMinor: 4550, cap: { capMinor: 4550 } });
    expect((await refusal(list('a1', 6000))).message).toBe('1 fan is waiting for this show: the organiser caps resale at face value: the price of this ticket is 45.5 EUR');
    expect((await list('a1', null)).priceMinor).toBe(4550);
  });

  it('caps a channel’s listing too: 400 with the envelope, nothing written', async () => {
    const { t, p, settings, join, listingCount } = await setup();
    const SHOW_2 = { externalReferenceEventId: 'tour', showId: 'show-2' };
    await settings(FACE, SHOW_2);
    await join(null, SHOW_2);
    const before = await listingCount();
    const high = await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, body: channelListingBody({ price: 45.51 }) });
    expect(high.status).toBe(400);
    expect(high.body.errors[0]).toMatchObject({ code: 'out_of_range', path: 'price', message: '1 fan is waiting for this show: the organiser caps resale at face value: the price must be at most 45.5 EUR' });
    expect(await listingCount()).toBe(before);
    const ok = await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, body: channelListingBody({ price: 45.5 }) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toMatchObject({ price: 45.5, state: 'ACTIVE' });
  });
});
