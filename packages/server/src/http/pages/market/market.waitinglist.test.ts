import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { inOrder } from '../../../lib/in-order.js';
import { createTestApp, type TestApp, type TestPartner } from '../../../testing/harness.js';
import { eventBody, showBody, ticketBody, withEvent } from '../../../testing/factories.js';
import { leads } from '../../../domain/marketdata/leads.table.js';
import { buyIntentions } from '../../../domain/intentions/intentions.table.js';
import { waitinglistEntries } from '../../../domain/waitinglist/waitinglist.table.js';
import { everyRow } from '../../../testing/sql.js';
import { completeCodeFlow, csrfOf, TestBrowser } from '../auth/auth.testing.js';

/**
 * The waiting list on the fan's market page (SQLite here, PostgreSQL in server-pg): joining from
 * an empty market (signed in, or through sign-in), every refusal at once with the values kept,
 * "N fans waiting", the fan's place and leaving, and a live offer's banner whose No thanks passes
 * the tickets on. With the list off, the page is the wishlist's, as before.
 */

const OPTIONS = [
  { ticketId: 'opt-field', title: 'General field', description: 'Standing', currency: 'EUR', price: 45.5, area: 'Field' },
  { ticketId: 'opt-vip', title: 'VIP <b>"Lounge" & co</b>', description: 'Lounge access', currency: 'EUR', price: '120.00', area: 'Lounge' },
];

async function setup(opts: { seated?: boolean; on?: boolean } = {}) {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1', { ticketOptions: OPTIONS }), showBody('show-2')], ...(opts.seated ? { seating: { image: 'https://partner.example/img/chart.png' } } : {}) }));
  if (opts.on !== false) await setList(t, p, true);
  return { t, p, ...helpers(t, p) };
}

async function setList(t: TestApp, p: TestPartner, enabled: boolean) {
  const res = await t.request('PUT', '/v1/waitinglist/settings', { key: p.keys.private, body: { externalReferenceEventId: 'tour', showId: 'show-1', enabled, priceCap: 'RULES' } });
  expect(res.status).toBe(200);
}

function helpers(t: TestApp, p: TestPartner) {
  const market = `/market/${p.id}/tour?showId=show-1`;
  const join = `/market/${p.id}/tour/waitinglist`;
  const leave = `/market/${p.id}/tour/waitinglist/leave`;
  /** A browser signed in as `email` (the code sign-in), back on the market. */
  const signedIn = async (email: string) => {
    const browser = new TestBrowser(t.app);
    await completeCodeFlow(t, browser, `/auth/otp?p=${p.id}&returnTo=${encodeURIComponent(`http://resale.test${market}`)}`, email, email);
    return browser;
  };
  /** `email` joins from the market page (signed in), asking for `quantity`. */
  const joins = async (browser: TestBrowser, quantity = '1', extra: Record<string, string> = {}) => {
    const page = await browser.get(market);
    return await browser.post(join, { _csrf: csrfOf(page.text, `${join}?lang=en`)!, showId: 'show-1', quantity, ...extra });
  };
  const entries = async () => await t.db.select().from(waitinglistEntries);
  /** A fan sells `ids` (synchronised to `seller@example.com`): a listing that becomes available. */
  const sell = async (ids: string[], ticketOptionId = 'opt-field') => {
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ids.map((id) => ticketBody(id, { buyer: 'seller@example.com', ticketOptionId })) });
    const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
    return await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(ids[0]!)).ownerPk, ticketPks: await inOrder(ids, async (i) => (await ticket(i)).id), priceMinor: 4000 }));
  };
  return { market, join, leave, signedIn, joins, entries, sell };
}

describe('market page: the waiting list', () => {
  it('offers “Join the waiting list” on an empty market (not the wishlist); a signed-out fan joins on the way back from signing in', async () => {
    const { t, p, market, join, entries } = await setup();
    const anon = new TestBrowser(t.app);
    const empty = await anon.get(market);
    expect(empty.text).toContain('Join the waiting list');
    expect(empty.text).not.toContain('Tell me when tickets appear');
    expect(empty.text).toContain('max="10"');
    // An unseated event: no "seats together"; the show's categories, escaped.
    expect(empty.text).not.toContain('Seats together');
    expect(empty.text).toContain('<option value="opt-vip">VIP &lt;b&gt;&quot;Lounge&quot; &amp; co&lt;/b&gt;</option>');
    expect(empty.text).not.toContain('<b>"Lounge"');
    expect(empty.text).not.toContain('fans waiting');

    const asked = await anon.post(join, { _csrf: csrfOf(empty.text, `${join}?lang=en`)!, showId: 'show-1', quantity: '2', ticketOptionId: 'opt-vip' });
    expect(asked.status).toBe(302);
    expect(asked.location).toContain('/auth/otp?');
    expect(await entries()).toHaveLength(0);
    const back = await completeCodeFlow(t, anon, asked.location!, 'fan@example.com', 'fan@example.com');
    expect(back.location).toContain(`/market/${p.id}/tour/waitinglist/continue?`);
    const done = await anon.get(back.location!);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/market/${p.id}/tour?showId=show-1&lang=en&waitinglist=joined#waitinglist`);
    expect(await entries()).toMatchObject([{ state: 'WAITING', quantity: 2, together: false, source: 'market', seq: 1 }]);
    expect(await t.db.select().from(leads)).toMatchObject([{ type: 'WISHLIST', buyerEmail: 'fan@example.com' }]);
    const mine = await anon.get(done.location!);
    expect(mine.text).toContain('Done: we will e-mail you as soon as tickets are held for you.');
    expect(mine.text).toContain('You are #1 in line for 2 tickets.');
    expect(mine.text).toContain('1 fan waiting');
    expect(mine.text).toContain('Leave the waiting list');
    expect(mine.text).not.toContain('>Join the waiting list</button>');
    // The continue link, opened again: already waiting, said on the page, nothing more written.
    const before = await everyRow(t.db);
    const again = await anon.get(back.location!);
    expect(again.status).toBe(409);
    expect(await everyRow(t.db)).toBe(before);
  });

  it('joins a signed-in fan at once; shows “N fans waiting” whether or not tickets are on sale, and each fan their place', async () => {
    const { t, market, signedIn, joins, sell } = await setup();
    const first = await signedIn('first@example.com');
    const joined = await joins(first, '2', { ticketOptionId: 'opt-vip' });
    expect(joined.status).toBe(303);
    const second = await signedIn('second@example.com');
    expect((await joins(second, '3', { ticketOptionId: 'opt-vip' })).status).toBe(303);
    expect((await second.get(market)).text).toContain('You are #2 in line for 3 tickets.');
    expect((await first.get(market)).text).toContain('You are #1 in line for 2 tickets.');
    const anon = await new TestBrowser(t.app).get(market);
    expect(anon.text).toContain('2 fans waiting');
    // A field ticket fits nobody (both wait for VIP): on public sale, and the count still shows.
    await sell(['f1'], 'opt-field');
    const onSale = await new TestBrowser(t.app).get(market);
    expect(onSale.text).toContain('>Buy</button>');
    expect(onSale.text).toContain('2 fans waiting');
    expect(onSale.text).not.toContain('>Join the waiting list</button>');
    expect((await first.get(market)).text).toContain('You are #1 in line for 2 tickets.');
    // Spanish.
    const es = await first.get(`${market}&lang=es`);
    expect(es.text).toContain('2 fans esperando');
    expect(es.text).toContain('Eres el n.º 1 de la lista para 2 entradas.');
    expect(es.text).toContain('Salir de la lista de espera');
  });

  it('refuses a bad form with every error at once and the values kept, nothing written; already waiting and a closed list said on the page', async () => {
    const { t, p, market, join, signedIn, joins, entries } = await setup();
    const fan = await signedIn('fan@example.com');
    const before = await everyRow(t.db);
    const bad = await joins(fan, '11', { ticketOptionId: 'opt-nope', together: '1' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('You were not added to the waiting list');
    expect(bad.text).toContain('Choose from 1 to 10 tickets.');
    expect(bad.text).toContain('Choose one of the categories of this show, or any.');
    expect(bad.text).toContain('This show has no numbered seats: seats together cannot be asked for.');
    expect(bad.text).toContain('value="11"');
    expect(bad.text).toMatch(/<input type="checkbox" id="wl-together" name="together" value="1" checked=""/);
    expect(bad.text).toContain('aria-invalid="true"');
    expect(await everyRow(t.db)).toBe(before);
    // Signed out, a bad quantity is said before any sign-in.
    const anon = new TestBrowser(t.app);
    const page = await anon.get(market);
    const zero = await anon.post(join, { _csrf: csrfOf(page.text, `${join}?lang=en`)!, showId: 'show-1', quantity: '0' });
    expect(zero.status).toBe(400);
    expect(zero.text).toContain('Choose from 1 to 10 tickets.');
    expect((await anon.post(join, { _csrf: csrfOf(page.text, `${join}?lang=en`)!, showId: 'show-1\u0000', quantity: '1' })).status).toBe(404);
    expect((await anon.post(join, { showId: 'show-1', quantity: '1' })).status).toBe(403);
    // In Spanish.
    const es = await anon.post(`${join}?lang=es`, { _csrf: csrfOf(page.text, `${join}?lang=en`)!, showId: 'show-1', quantity: 'x' });
    expect(es.status).toBe(400);
    expect(es.text).toContain('Elige de 1 a 10 entradas.');
    expect(es.text).toContain('value="x"');

    // Already waiting: a stale form sent again.
    const token = csrfOf((await fan.get(market)).text, `${join}?lang=en`)!;
    expect((await fan.post(join, { _csrf: token, showId: 'show-1', quantity: '1' })).status).toBe(303);
    const twice = await fan.post(join, { _csrf: token, showId: 'show-1', quantity: '4' });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain('You are already on the waiting list for this show.');
    expect(await entries()).toHaveLength(1);

    // The list turned off: the page is the wishlist's again.
    await setList(t, p, false);
    const off = await (await signedIn('other@example.com')).get(market);
    expect(off.text).toContain('Tell me when tickets appear');
    expect(off.text).not.toContain('Join the waiting list');
    expect(off.text).not.toContain('fans waiting');
    expect(await entries()).toHaveLength(1);
  });

  it('says a closed list on the page when a join arrives after it closed', async () => {
    const { t, p, market, join, signedIn } = await setup();
    const fan = await signedIn('fan@example.com');
    const token = csrfOf((await fan.get(market)).text, `${join}?lang=en`)!;
    await setList(t, p, false);
    const res = await fan.post(join, { _csrf: token, showId: 'show-1', quantity: '1' });
    expect(res.status).toBe(409);
    expect(res.text).toContain('The waiting list of this show is closed.');
    expect(res.text).toContain('Tell me when tickets appear');
    expect((await fan.post(join, { _csrf: token, showId: 'show-9', quantity: '1' })).status).toBe(404);
  });

  it('offers “seats together” only for a seated event, in Spanish too', async () => {
    const { t, market, signedIn, joins, entries } = await setup({ seated: true });
    const es = await new TestBrowser(t.app).get(`${market}&lang=es`);
    expect(es.text).toContain('Apúntate a la lista de espera');
    expect(es.text).toContain('Asientos juntos');
    expect(es.text).toContain('Cualquier categoría');
    const fan = await signedIn('fan@example.com');
    expect((await joins(fan, '2', { together: '1' })).status).toBe(303);
    expect(await entries()).toMatchObject([{ quantity: 2, together: true }]);
  });

  it('lets a fan leave the line (theirs only, with the form’s token): the fans behind move up', async () => {
    const { p, market, leave, signedIn, joins, entries } = await setup();
    const first = await signedIn('first@example.com');
    await joins(first);
    const second = await signedIn('second@example.com');
    await joins(second);
    const [a] = (await entries()).sort((x, y) => x.seq - y.seq);
    // Another fan's entry, with a valid token of their own: nothing happens.
    const page2 = await second.get(market);
    const foreign = await second.post(leave, { _csrf: csrfOf(page2.text, `${leave}?lang=en`)!, showId: 'show-1', entryId: a!.id });
    expect(foreign.status).toBe(303);
    expect(foreign.location).not.toContain('waitinglist=left');
    expect((await entries()).every((e) => e.state === 'WAITING')).toBe(true);
    // Without the token: refused.
    expect((await first.post(leave, { showId: 'show-1', entryId: a!.id })).status).toBe(403);

    const page1 = await first.get(market);
    const left = await first.post(leave, { _csrf: csrfOf(page1.text, `${leave}?lang=en`)!, showId: 'show-1', entryId: a!.id });
    expect(left.status).toBe(303);
    expect(left.location).toBe(`/market/${p.id}/tour?showId=show-1&lang=en&waitinglist=left#waitinglist`);
    expect((await entries()).find((e) => e.id === a!.id)!.state).toBe('LEFT');
    const after = await first.get(left.location!);
    expect(after.text).toContain('You have left the waiting list.');
    expect(after.text).toContain('>Join the waiting list</button>');
    expect(after.text).toContain('1 fan waiting');
    expect((await second.get(market)).text).toContain('You are #1 in line for 1 ticket.');
  });

  it('shows a fan their live offer (held until, Buy, No thanks); No thanks declines it and the tickets pass to the next fan', async () => {
    const { t, p, market, leave, signedIn, joins, entries, sell } = await setup();
    const first = await signedIn('first@example.com');
    await joins(first);
    const second = await signedIn('second@example.com');
    await joins(second);
    const listing = await sell(['o1']);
    const [a, b] = (await entries()).sort((x, y) => x.seq - y.seq);
    expect([a!.state, b!.state]).toEqual(['OFFERED', 'WAITING']);
    const intentionOf = async (entryId: string) => (await t.deps.waitingList.get(t.db, p.id, entryId)).offer!.intentionId;
    const firstIntention = await intentionOf(a!.id);

    const offered = await first.get(market);
    expect(offered.text).toContain('Tickets are held for you');
    // 15 minutes from the test clock's 12:00 UTC (13:00 CET in Madrid).
    expect(offered.text).toContain('1 ticket is held for you until 13:15 CET.');
    expect(offered.text).toContain(`<a class="button" href="/checkout/${p.id}/${firstIntention}?lang=en">Buy</a>`);
    expect(offered.text).toContain('data-countdown="2026-03-01T12:15:00.000Z"');
    expect(offered.text).toContain('No thanks');
    // Shown as the offer, not as a checkout of theirs to release.
    expect(offered.text).not.toContain('You have tickets reserved');
    expect(offered.headers.get('content-security-policy')).toContain("script-src 'self'");
    const behind = (await second.get(market)).text;
    expect(behind).not.toContain('Tickets are held for you');
    expect(behind).toContain('You are #2 in line for 1 ticket.');
    // The held ticket goes to the next fan, not back on sale: said so, not "may be back at".
    expect(behind).toContain('1 ticket is held for a fan on the waiting list until 13:15 CET: if they do not buy it, it goes to the next fan in line.');
    expect(behind).not.toContain('reserved by another fan');
    expect((await first.get(`${market}&lang=es`)).text).toContain('Tienes 1 entrada reservada hasta las 13:15 CET.');

    const declined = await first.post(leave, { _csrf: csrfOf(offered.text, `${leave}?lang=en`)!, showId: 'show-1', entryId: a!.id, intent: 'decline' });
    expect(declined.status).toBe(303);
    expect(declined.location).toContain('waitinglist=declined');
    expect((await first.get(declined.location!)).text).toContain('Declined: the tickets go to the next fan in line.');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, firstIntention)))[0]).toMatchObject({ state: 'CANCELLED', endReason: 'declined' });
    // Passed on: the second fan now holds the same listing.
    const now = (await entries()).find((e) => e.id === b!.id)!;
    expect(now.state).toBe('OFFERED');
    const secondOffer = (await t.deps.waitingList.get(t.db, p.id, b!.id)).offer!;
    expect(secondOffer.listingIds).toEqual([listing.id]);
    const theirs = await second.get(market);
    expect(theirs.text).toContain('1 ticket is held for you until 13:15 CET.');
    expect(theirs.text).toContain(`href="/checkout/${p.id}/${secondOffer.intentionId}?lang=en"`);
  });

  it('keeps the wishlist when the show’s list is not enabled', async () => {
    const { t, market } = await setup({ on: false });
    const page = await new TestBrowser(t.app).get(market);
    expect(page.text).toContain('Tell me when tickets appear');
    expect(page.text).not.toContain('waiting list');
    expect((await new TestBrowser(t.app).get(`/market/${(await t.partner('Other')).id}/tour`)).status).toBe(404);
  });
});
