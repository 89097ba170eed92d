import { inOrder } from '../../../lib/in-order.js';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../testing/harness.js';
import { eventBody, showBody, ticketBody, withEvent } from '../../../testing/factories.js';
import { leads } from '../../../domain/marketdata/leads.table.js';
import { completeCodeFlow, csrfOf, formAction, inputValue, TestBrowser } from '../auth/auth.testing.js';
import { buyIntentions } from '../../../domain/intentions/intentions.table.js';
import { ownershipEndpoint } from '../../../testing/platform.js';

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [ticketBody('m1', { section: 'A', row: '2', seat: '7' }), ticketBody('m2', { orderId: 'o', ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard' }), ticketBody('m3', { orderId: 'o', ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard' }), ticketBody('m4')],
  });
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (ids: string[], price: number) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(ids[0]!)).ownerPk, ticketPks: await inOrder(ids, async (i) => (await ticket(i)).id), priceMinor: price }));
  const page = async (query = '') => {
    const res = await t.app.request(`/market/${p.id}/tour${query}`);
    return { status: res.status, html: await res.text() };
  };
  return { t, p, list, page };
}

describe('market page', () => {
  it('shows the show’s offers by category, cheapest first, with the buyer fee included', async () => {
    const { list, page } = await setup();
    await list(['m4'], 5000);
    await list(['m1'], 4000);
    const pack = await list(['m2', 'm3'], 10000);
    const { status, html } = await page('?showId=show-1');
    expect(status).toBe(200);
    expect(html).toContain('<h1>The Big Tour 2026</h1>');
    expect(html.indexOf('€44.00')).toBeLessThan(html.indexOf('€55.00'));
    expect(html).toContain('Field · General field');
    expect(html).toContain('Lounge · VIP');
    expect(html).toContain('Section A · Row 2 · Seat 7');
    // What the offer is (its price, its seats), then the way to buy it.
    expect(html).toMatch(/Section A · Row 2 · Seat 7<\/li><\/ul><form method="post"/);
    expect(html).toContain('2 tickets, sold together');
    const shared = await page(`?showId=show-1&listingId=${pack.id}`);
    expect(shared.html).toContain('aria-current="true"');
    expect(shared.html).toContain('The ticket you were sent');
  });

  it('filters by ticket option, marks a shared ticket, and links the other dates', async () => {
    const { list, page } = await setup();
    await list(['m1'], 4000);
    const filtered = await page('?showId=show-1&ticketOptionId=opt-vip');
    expect(filtered.html).toContain('No tickets are for sale for this show right now.');
    const byTicket = await page('?showId=show-1&ticketId=m1&lang=es');
    expect(byTicket.html).toContain('La entrada que te han enviado');
    expect(byTicket.html).toContain('Otras fechas');
    expect(byTicket.html).toContain('showId=show-2');
  });

  it('says when a show is cancelled, and answers 404 for unknown or foreign events', async () => {
    const { t, p, list, page } = await setup();
    await list(['m1'], 4000);
    await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private });
    const cancelled = await page('?showId=show-1');
    expect(cancelled.html).toContain('This show has been cancelled.');
    expect(cancelled.html).not.toContain('€44.00');
    expect((await t.app.request(`/market/${p.id}/nope`)).status).toBe(404);
    expect((await t.app.request('/market/ptr_nope/tour')).status).toBe(404);
    const other = await t.partner('Other');
    expect((await t.app.request(`/market/${other.id}/tour`)).status).toBe(404);
  });
});

describe('market page: seat map and a pick of several listings', () => {
  async function seated() {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p, eventBody('tour', { seating: { svgCode: '<svg viewBox="0 0 10 10"><rect data-area="Field"/></svg>' } }));
    await t.request('POST', '/v1/sync/tickets', {
      key: p.keys.private,
      body: [ticketBody('a1', { buyer: 'seller@example.com', section: 'A', row: '1', seat: '1' }), ticketBody('a2', { buyer: 'seller@example.com', section: 'A', row: '1', seat: '2' }), ticketBody('v1', { ticketOptionId: 'opt-vip' })],
    });
    const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
    const list = async (ids: string[], price: number) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(ids[0]!)).ownerPk, ticketPks: await inOrder(ids, async (i) => (await ticket(i)).id), priceMinor: price }));
    return { t, p, list };
  }

  it('embeds the seat map (widget script from the service, data from a same-origin route) only for a seated event with offers', async () => {
    const { t, p, list } = await seated();
    const empty = await t.app.request(`/market/${p.id}/tour?showId=show-1`);
    expect(await empty.text()).not.toContain('<resale-seat-map');
    await list(['a1'], 4000);
    const res = await t.app.request(`/market/${p.id}/tour?showId=show-1&lang=es`);
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/widgets/v1/resale.js"></script>');
    expect(html).toContain(`<resale-seat-map lang="es" src="/market/${p.id}/tour/seatmap.json?showId=show-1&amp;lang=es"></resale-seat-map>`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe');
    const data = await t.app.request(`/market/${p.id}/tour/seatmap.json?showId=show-1&lang=es`);
    expect(data.status).toBe(200);
    const body = (await data.json()) as { data: { listings: unknown[]; selectUrl: string } };
    expect(body.data.listings).toHaveLength(1);
    expect(body.data.selectUrl).toBe(`http://resale.test/market/${p.id}/tour/buy/pick?showId=show-1&lang=es`);
    // The page's way back to the partner travels with the map's Continue; a foreign one does not.
    await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { allowedOrigins: ['https://partner.example'] } } });
    const back = encodeURIComponent('https://partner.example/ev');
    const withBack = await (await t.app.request(`/market/${p.id}/tour?showId=show-1&returnTo=${back}`)).text();
    expect(withBack).toContain(`src="/market/${p.id}/tour/seatmap.json?showId=show-1&amp;lang=en&amp;returnTo=${back}"`);
    const carried = (await (await t.app.request(`/market/${p.id}/tour/seatmap.json?showId=show-1&returnTo=${back}`)).json()) as { data: { selectUrl: string } };
    expect(new URL(carried.data.selectUrl).searchParams.get('returnTo')).toBe('https://partner.example/ev');
    const foreign = await (await t.app.request(`/market/${p.id}/tour?showId=show-1&returnTo=${encodeURIComponent('https://evil.example/')}`)).text();
    expect(foreign).not.toContain('evil.example');
    // An unseated event's page carries no script at all.
    await withEvent(t, p, eventBody('plain'));
    expect(await (await t.app.request(`/market/${p.id}/plain`)).text()).not.toContain('<script');
    expect((await t.app.request(`/market/${p.id}/tour/seatmap.json?showId=show-9`)).status).toBe(404);
    expect((await t.app.request(`/market/ptr_nope/tour/seatmap.json?showId=show-1`)).status).toBe(404);
  });

  it('shows the listings picked on the map with their total, reserves them together, and says when one is gone', async () => {
    const { t, p, list } = await seated();
    const one = await list(['a1'], 4000);
    const two = await list(['a2'], 4000);
    const browser = new TestBrowser(t.app);
    // Holds are never anonymous: the buyer signs in (by code, this partner has no login page).
    await completeCodeFlow(t, browser, `/auth/otp?p=${p.id}`, 'buyer@example.com', 'buyer@example.com');
    const page = await browser.get(`/market/${p.id}/tour?showId=show-1&listingIds=${one.id},${two.id}`);
    expect(page.text).toContain('Your selection');
    expect(page.text).toContain('€88.00');
    expect(page.text).not.toContain('no longer for sale');
    const form = new URLSearchParams({ _csrf: csrfOf(page.text, `/market/${p.id}/tour/buy`)! });
    form.append('listingId', one.id);
    form.append('listingId', two.id);
    const res = await browser.post(`/market/${p.id}/tour/buy`, form);
    expect(res.status).toBe(303);
    const intentionId = /\/checkout\/[^/]+\/(bi_[^?]+)/.exec(res.location!)![1]!;
    expect((await t.deps.listings.get(t.db, p.id, one.id)).state).toBe('RESERVED');
    expect((await t.deps.listings.get(t.db, p.id, two.id)).state).toBe('RESERVED');
    expect(intentionId).toMatch(/^bi_/);
    const gone = await browser.get(`/market/${p.id}/tour?showId=show-1&listingIds=${one.id}`);
    expect(gone.text).toContain('Some of the tickets you picked are no longer for sale.');
  });

  it('reserves a pick continued from the seat map at once when a person follows it from the partner’s pages or the service’s, and shows it to press otherwise', async () => {
    const { t, p, list } = await seated();
    const one = await list(['a1'], 4000);
    const two = await list(['a2'], 4000);
    await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { allowedOrigins: ['https://partner.example'] } } });
    const back = encodeURIComponent('https://partner.example/ev');
    const pick = `/market/${p.id}/tour/buy/pick?showId=show-1&lang=en&returnTo=${back}&listingIds=${one.id},${two.id}`;
    const fromPartner = { referer: 'https://partner.example/ev' };
    const browser = new TestBrowser(t.app);
    // Signed out: nothing held; sign in, and the way back (signed for this browser) holds the pick.
    const signIn = await browser.get(pick, fromPartner);
    expect(signIn.status).toBe(302);
    expect(signIn.location).toContain('/auth/otp');
    expect((await t.deps.listings.get(t.db, p.id, one.id)).state).toBe('ACTIVE');
    const continued = decodeURIComponent(new URL(signIn.location!, 'http://resale.test').searchParams.get('returnTo') ?? '');
    expect(continued).toContain(`/market/${p.id}/tour/buy/continue?`);
    await completeCodeFlow(t, browser, signIn.location!, 'buyer@example.com', 'buyer@example.com');
    const held = await browser.get(continued);
    expect(held.status).toBe(303);
    const checkout = held.location!;
    expect(checkout).toMatch(new RegExp(`^/checkout/${p.id}/bi_[^?]+\\?`));
    expect((await t.deps.listings.get(t.db, p.id, one.id)).state).toBe('RESERVED');
    expect((await t.deps.listings.get(t.db, p.id, two.id)).state).toBe('RESERVED');
    // Followed again (the back button, a reload): the checkout it made, not a second hold.
    const again = await browser.get(pick, fromPartner);
    expect(again.location).toBe(checkout);
    expect(await t.db.read(async (tx) => (await tx.select().from(buyIntentions)).length)).toBe(1);
    // The way back to the partner stays with the checkout.
    expect((await browser.get(checkout)).text).toContain('href="https://partner.example/ev"');

    // Another site's link, a page without a Referer, or a prefetch: the pick is shown, nothing held.
    const three = await list(['v1'], 9000);
    const other = `/market/${p.id}/tour/buy/pick?showId=show-1&listingIds=${three.id}`;
    for (const headers of <Record<string, string>[]>[{ referer: 'https://evil.example/' }, {}, { referer: 'not a url' }, { ...fromPartner, 'sec-purpose': 'prefetch' }, { 'sec-fetch-site': 'cross-site' }]) {
      const shown = await browser.get(other, headers);
      expect(shown.status).toBe(303);
      expect(shown.location).toBe(`/market/${p.id}/tour?showId=show-1&lang=en&listingIds=${three.id}`);
    }
    expect((await t.deps.listings.get(t.db, p.id, three.id)).state).toBe('ACTIVE');
    // The service's own page (the market's map: no Referer, fetch metadata same-origin) holds at once.
    const own = await browser.get(other, { 'sec-fetch-site': 'same-origin' });
    expect(own.location).toMatch(new RegExp(`^/checkout/${p.id}/bi_`));
    expect((await t.deps.listings.get(t.db, p.id, three.id)).state).toBe('RESERVED');
    // No listing named, an unknown partner: not found.
    expect((await browser.get(`/market/${p.id}/tour/buy/pick?showId=show-1`, fromPartner)).status).toBe(404);
    // A NUL anywhere in a query is refused before any route (400).
    expect((await browser.get(`/market/${p.id}/tour/buy/pick?listingIds=%00`, fromPartner)).status).toBe(400);
    expect((await browser.get(`/market/ptr_nope/tour/buy/pick?listingIds=${one.id}`, fromPartner)).status).toBe(404);
  });

  it('refuses a pick across ticket options with a clear page, reserving nothing', async () => {
    const { t, p, list } = await seated();
    const field = await list(['a1'], 4000);
    const vip = await list(['v1'], 9000);
    const browser = new TestBrowser(t.app);
    // Holds are never anonymous: the buyer signs in (by code, this partner has no login page).
    await completeCodeFlow(t, browser, `/auth/otp?p=${p.id}`, 'buyer@example.com', 'buyer@example.com');
    const page = await browser.get(`/market/${p.id}/tour?showId=show-1&listingIds=${field.id},${vip.id}`);
    const form = new URLSearchParams({ _csrf: csrfOf(page.text, `/market/${p.id}/tour/buy`)! });
    form.append('listingId', field.id);
    form.append('listingId', vip.id);
    const res = await browser.post(`/market/${p.id}/tour/buy`, form);
    expect(res.status).toBe(400);
    expect(res.text).toContain('One checkout holds listings of one show and one ticket option');
    expect((await t.deps.listings.get(t.db, p.id, field.id)).state).toBe('ACTIVE');
    expect((await t.deps.listings.get(t.db, p.id, vip.id)).state).toBe('ACTIVE');
  });

  it('tells a seller who picks their own listing that nothing was reserved, with the way back to the market', async () => {
    const { t, p, list } = await seated();
    const own = await list(['a1'], 4000);
    const seller = new TestBrowser(t.app);
    const owner = (await t.deps.users.get(t.db, p.id, own.sellerPk)).email!;
    await completeCodeFlow(t, seller, `/auth/otp?p=${p.id}`, owner, owner);
    const page = await seller.get(`/market/${p.id}/tour?showId=show-1`);
    const res = await seller.post(`/market/${p.id}/tour/buy`, { _csrf: csrfOf(page.text, `/market/${p.id}/tour/buy`)!, listingId: own.id, showId: 'show-1' });
    expect(res.status).toBe(409);
    expect(res.text).toContain('You cannot buy your own tickets');
    expect(res.text).toContain('nothing was reserved');
    expect(res.text).toContain(`href="/market/${p.id}/tour?showId=show-1&amp;lang=en"`);
    expect((await t.deps.listings.get(t.db, p.id, own.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(buyIntentions)).toEqual([]);
  });

  it('answers a buy form without a listing (a hand-made post) with the not-found page, reserving nothing', async () => {
    const { t, p, list } = await seated();
    const one = await list(['a1'], 4000);
    const browser = new TestBrowser(t.app);
    const page = await browser.get(`/market/${p.id}/tour?showId=show-1`);
    const res = await browser.post(`/market/${p.id}/tour/buy`, { _csrf: inputValue(page.text, '_csrf')!, returnTo: 'https://partner.example/ev' });
    expect(res.status).toBe(404);
    expect(res.text).toContain('<h1>');
    expect((await t.deps.listings.get(t.db, p.id, one.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(buyIntentions)).toEqual([]);
  });
});

describe('market page: one seat rule with the seat map, and the map’s selection', () => {
  /** Row 1 of section A: seat 4 in the chart only (not for sale), seats 5 and 6 for sale, one listing each. */
  async function row() {
    const t = createTestApp();
    // The seller still owns the tickets when the checkout asks the partner's platform.
    const owned = new Map<string, unknown[]>([['seller@example.com', ['a5', 'a6'].map((ticketId) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field' }))]]);
    const p = await t.partner('Acme', { ownershipUrl: await ownershipEndpoint(owned) });
    const svgCode = '<svg viewBox="0 0 40 10"><g data-area="Field" data-section="A" data-row="1"><circle data-seat="4"/><circle data-seat="5"/><circle data-seat="6"/></g></svg>';
    await withEvent(t, p, eventBody('tour', { seating: { svgCode } }));
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ['4', '5', '6'].map((seat) => ticketBody(`a${seat}`, { buyer: 'seller@example.com', section: 'A', row: '1', seat })) });
    const list = async (id: string) => {
      const ticket = await t.deps.tickets.get(t.db, p.id, id);
      return await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }));
    };
    const a5 = await list('a5');
    const a6 = await list('a6');
    const browser = new TestBrowser(t.app);
    await completeCodeFlow(t, browser, `/auth/otp?p=${p.id}`, 'buyer@example.com', 'buyer@example.com');
    return { t, p, a5, a6, browser };
  }

  it('refuses A6 bought alone from the list (it would strand A5, as the map says), in words, reserving nothing', async () => {
    const { t, p, a6, browser } = await row();
    const page = await browser.get(`/market/${p.id}/tour?showId=show-1&lang=es`);
    const res = await browser.post(`/market/${p.id}/tour/buy?lang=es`, { _csrf: csrfOf(page.text, `/market/${p.id}/tour/buy`)!, listingId: a6.id, showId: 'show-1' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('No se ha reservado nada: quedaría un asiento suelto');
    expect(res.text).toContain('Añade el asiento de al lado');
    expect(res.text).toContain(`href="/market/${p.id}/tour?showId=show-1&amp;lang=es"`);
    expect((await t.deps.listings.get(t.db, p.id, a6.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(buyIntentions)).toEqual([]);
  });

  it('offers A6 only with A5 in the list (its own Buy would strand A5), and that pair reaches the checkout', async () => {
    const { t, p, a5, a6, browser } = await row();
    const page = await browser.get(`/market/${p.id}/tour?showId=show-1&lang=en`);
    const cards = page.text.split('<li class="card"').slice(1);
    const card = (id: string) => cards.find((c) => c.includes(`value="${id}"`) && !c.includes(`value="${id === a5.id ? a6.id : a5.id}"`));
    // A5 alone strands nothing (A6 is at the row's end): its own Buy.
    expect(card(a5.id)).toContain('aria-label="Buy ·');
    const a6Card = cards.find((c) => c.includes('Bought on its own, this seat would leave a single empty seat beside it'))!;
    expect(a6Card).toBeDefined();
    expect(a6Card).not.toContain('aria-label="Buy ·');
    expect(a6Card).toContain(`<input type="hidden" name="listingId" value="${a6.id}"/><input type="hidden" name="listingId" value="${a5.id}"/>`);
    expect(a6Card).toContain('Buy with Section A · Row 1 · Seat 5');
    expect(a6Card).toContain('Together: €88.00');
    const form = new URLSearchParams({ _csrf: csrfOf(page.text, `/market/${p.id}/tour/buy`)!, showId: 'show-1' });
    form.append('listingId', a6.id);
    form.append('listingId', a5.id);
    const res = await browser.post(`/market/${p.id}/tour/buy`, form);
    expect(res.status).toBe(303);
    expect((await t.deps.listings.get(t.db, p.id, a6.id)).state).toBe('RESERVED');
  });

  it('gives every listing its own Buy where the partner allows orphan seats', async () => {
    const { t, p, browser } = await row();
    expect((await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { buyAccessLayer: { integratedMap: { allowOrphanTicketSelection: true } } } } })).status).toBe(200);
    const page = await browser.get(`/market/${p.id}/tour?showId=show-1&lang=en`);
    expect(page.text).not.toContain('Bought on its own');
    expect(page.text.match(/aria-label="Buy ·/g)).toHaveLength(2);
  });

  it('hands the page’s selection to the map, and the pair reserved from it reaches the checkout with its seats named', async () => {
    const { p, a5, a6, browser } = await row();
    const page = await browser.get(`/market/${p.id}/tour?showId=show-1&listingIds=${a6.id},${a5.id}`);
    expect(page.text).toContain(`selected="${a6.id},${a5.id}"></resale-seat-map>`);
    const plain = await browser.get(`/market/${p.id}/tour?showId=show-1`);
    expect(plain.text).toMatch(/<resale-seat-map [^>]*src="[^"]*"><\/resale-seat-map>/);
    expect(plain.text).not.toContain('selected=');
    const form = new URLSearchParams({ _csrf: csrfOf(page.text, `/market/${p.id}/tour/buy`)!, showId: 'show-1' });
    form.append('listingId', a6.id);
    form.append('listingId', a5.id);
    const res = await browser.post(`/market/${p.id}/tour/buy`, form);
    expect(res.status).toBe(303);
    const checkout = await browser.get(res.location!);
    expect(checkout.status).toBe(200);
    // Both seats, named by section, row and seat (whatever words the checkout puts between them).
    for (const seat of ['6', '5']) expect(checkout.text).toMatch(new RegExp(`A\\W+(?:\\p{L}+\\s+)?1\\W+(?:\\p{L}+\\s+)?${seat}\\b`, 'u'));
  });
});

describe('market page: who is buying', () => {
  async function withLogin() {
    const t = createTestApp();
    const p = await t.partner('Acme Tickets', { loginUrl: 'https://tickets.acme.example/login' });
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('w1')] });
    return { t, p };
  }

  it('lets the form’s redirects reach the partner’s sign-in page (form-action), and no other origin', async () => {
    const { t, p } = await withLogin();
    const res = await t.app.request(`/market/${p.id}/tour?showId=show-1`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' https://tickets.acme.example;");
    const other = await t.partner('No Login');
    await withEvent(t, other);
    const plain = await t.app.request(`/market/${other.id}/tour?showId=show-1`);
    expect(plain.headers.get('content-security-policy')).toContain("form-action 'self';");
  });

  it('says who is signed in and signs out back to the same page', async () => {
    const { t, p } = await withLogin();
    const browser = new TestBrowser(t.app);
    expect((await browser.get(`/market/${p.id}/tour?showId=show-1`)).text).not.toContain('Not you?');
    const token = await t.request('GET', '/v1/auth/oneTimeToken?user=buyer-1', { key: p.keys.private });
    expect(token.status).toBe(200);
    const redeemed = await browser.get(`/market/${p.id}/tour?showId=show-1&oneTimeToken=${token.body.data}`);
    expect(redeemed.status).toBe(302);
    const page = await browser.get(redeemed.location!);
    expect(page.text).toContain('You are signed in as buyer-1. Not you?');
    const out = await browser.post(formAction(page.text)!, { _csrf: inputValue(page.text, '_csrf')!, returnTo: inputValue(page.text, 'returnTo')! });
    expect(out.status).toBe(303);
    expect(out.location).toBe(`http://resale.test/market/${p.id}/tour?showId=show-1`);
    expect((await browser.get(`/market/${p.id}/tour?showId=show-1`)).text).not.toContain('Not you?');
  });
});

describe('market page: holds', () => {
  /** A browser signed in as `email` (the code sign-in), back on the market. */
  async function signedIn(t: ReturnType<typeof createTestApp>, partnerId: string, email: string): Promise<TestBrowser> {
    const browser = new TestBrowser(t.app);
    const back = await completeCodeFlow(t, browser, `/auth/otp?p=${partnerId}&returnTo=${encodeURIComponent(`http://resale.test/market/${partnerId}/tour?showId=show-1`)}`, email, email);
    expect(back.status).toBe(303);
    return browser;
  }

  it('shows the holder their own hold (continue, release, the time left) and everyone else when it may be back, not just “none for sale”', async () => {
    const { t, p, list } = await setup();
    const l = await list(['m1'], 4000);
    const buyer = await signedIn(t, p.id, 'buyer@example.com');
    const market = await buyer.get(`/market/${p.id}/tour?showId=show-1`);
    const bought = await buyer.post(`/market/${p.id}/tour/buy`, { _csrf: csrfOf(market.text, `/market/${p.id}/tour/buy`)!, listingId: l.id, showId: 'show-1' });
    expect(bought.status).toBe(303);
    const checkout = bought.location!;
    const intentionId = /\/(bi_[^/?]+)/.exec(checkout)![1]!;

    const mine = await buyer.get(`/market/${p.id}/tour?showId=show-1`);
    expect(mine.text).toContain('You have tickets reserved');
    // The hold is 10 minutes from the test clock's 12:00 UTC (13:00 CET in Madrid).
    expect(mine.text).toContain('1 ticket is reserved for you until 13:10 CET.');
    expect(mine.text).toContain(`href="/checkout/${p.id}/${intentionId}?lang=en"`);
    expect(mine.text).toContain(`action="/checkout/${p.id}/${intentionId}/release"`);
    expect(mine.text).toContain('data-countdown="2026-03-01T12:10:00.000Z"');
    expect(mine.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(mine.text).not.toContain('reserved by another fan');

    const other = await new TestBrowser(t.app).get(`/market/${p.id}/tour?showId=show-1`);
    expect(other.text).toContain('No tickets are for sale for this show right now.');
    expect(other.text).toContain('1 ticket is reserved by another fan right now: if they do not pay, it may be back at 13:10 CET.');
    expect(other.text).not.toContain('You have tickets reserved');
    expect(other.text).not.toContain('/release');
  });

  it('releases the holder’s checkout from the market: for sale again at once; nobody else may release it', async () => {
    const { t, p, list } = await setup();
    const l = await list(['m1'], 4000);
    const buyer = await signedIn(t, p.id, 'buyer@example.com');
    const market = await buyer.get(`/market/${p.id}/tour?showId=show-1`);
    const bought = await buyer.post(`/market/${p.id}/tour/buy`, { _csrf: csrfOf(market.text, `/market/${p.id}/tour/buy`)!, listingId: l.id, showId: 'show-1' });
    const intentionId = /\/(bi_[^/?]+)/.exec(bought.location!)![1]!;
    const release = `/checkout/${p.id}/${intentionId}/release`;

    // Another signed-in fan, with a valid form of their own: not theirs to release.
    const thief = await signedIn(t, p.id, 'thief@example.com');
    const thiefForm = await thief.get(`/market/${p.id}/tour?showId=show-1`);
    const refused = await thief.post(release, { _csrf: inputValue(thiefForm.text, '_csrf') ?? 'x' });
    expect([403, 404]).toContain(refused.status);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('RESERVED');
    // Without the form's token: refused.
    expect((await buyer.post(release, {})).status).toBe(403);

    const page = await buyer.get(`/market/${p.id}/tour?showId=show-1`);
    const released = await buyer.post(release, { _csrf: csrfOf(page.text, release)! });
    expect(released.status).toBe(303);
    expect(released.location).toBe(`/market/${p.id}/tour?showId=show-1&lang=en&released=1`);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    expect((await t.db.select().from(buyIntentions))[0]!.state).toBe('CANCELLED');
    const after = await buyer.get(released.location!);
    expect(after.text).toContain('Released: the tickets are for sale again.');
    expect(after.text).not.toContain('You have tickets reserved');
    expect(after.text).toContain('>Buy</button>');
  });
});

describe('market page: when nothing is for sale', () => {
  it('offers “tell me when tickets appear”: a signed-in fan joins the show’s wishlist at once, a signed-out one on the way back from signing in; and links the primary sale', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1', { primarySalesUrl: 'https://primary.example/tour/show-1' }), showBody('show-2')] }));
    const market = `/market/${p.id}/tour?showId=show-1`;
    const anon = new TestBrowser(t.app);
    const empty = await anon.get(market);
    expect(empty.text).toContain('No tickets are for sale for this show right now.');
    expect(empty.text).toContain('Tell me when tickets appear');
    expect(empty.text).toContain('href="https://primary.example/tour/show-1"');
    const action = `/market/${p.id}/tour/notify`;

    // Signed out: to sign in first, nothing recorded; back from it, on the list with no second press.
    const asked = await anon.post(action, { _csrf: csrfOf(empty.text, action)!, showId: 'show-1' });
    expect(asked.status).toBe(302);
    expect(asked.location).toContain('/auth/otp?');
    expect(await t.db.select().from(leads)).toHaveLength(0);
    const back = await completeCodeFlow(t, anon, asked.location!, 'fan@example.com', 'fan@example.com');
    expect(back.location).toContain(`/market/${p.id}/tour/notify/continue?`);
    const done = await anon.get(back.location!);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/market/${p.id}/tour?showId=show-1&lang=en#notify`);
    expect(await t.db.select().from(leads)).toMatchObject([{ type: 'WISHLIST', buyerKey: 'email:fan@example.com', buyerEmail: 'fan@example.com', notifiedAt: null }]);
    const listed = await anon.get(market);
    expect(listed.text).toContain('You are on the list: we will e-mail fan@example.com once, as soon as tickets for this show are for sale.');
    expect(listed.text).not.toContain('E-mail me when tickets appear');

    // Signed in: one press. Twice is still one lead.
    const other = await anon.get(`/market/${p.id}/tour?showId=show-2`);
    expect(other.text).not.toContain('See the tickets of the primary sale');
    // (The same form sent twice: a double click, a resent form.)
    const token = csrfOf(other.text, action)!;
    for (let i = 0; i < 2; i++) expect((await anon.post(action, { _csrf: token, showId: 'show-2' })).status).toBe(303);
    expect((await anon.get(`/market/${p.id}/tour?showId=show-2`)).text).toContain('You are on the list');
    expect(await t.db.select().from(leads)).toHaveLength(2);
    // An unknown show, or no token: nothing recorded.
    expect((await anon.post(action, { _csrf: token, showId: 'show-9' })).status).toBe(404);
    expect((await anon.post(action, { _csrf: token, showId: 'show-1\u0000' })).status).toBe(404);
    expect((await anon.post(action, { showId: 'show-1' })).status).toBe(403);
    expect(await t.db.select().from(leads)).toHaveLength(2);
  });

  it('records nothing from a “tell me” link opened in another browser or past its time', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const anon = new TestBrowser(t.app);
    const empty = await anon.get(`/market/${p.id}/tour?showId=show-1`);
    const action = `/market/${p.id}/tour/notify`;
    const asked = await anon.post(action, { _csrf: csrfOf(empty.text, action)!, showId: 'show-1' });
    const continueUrl = new URL(new URL(asked.location!, 'http://x').searchParams.get('returnTo')!).href.replace(/^https?:\/\/[^/]+/, '');
    const stranger = new TestBrowser(t.app);
    await completeCodeFlow(t, stranger, `/auth/otp?p=${p.id}&returnTo=${encodeURIComponent('http://resale.test/')}`, 'stranger@example.com', 'stranger@example.com');
    expect((await stranger.get(continueUrl)).status).toBe(400);
    await completeCodeFlow(t, anon, asked.location!, 'fan@example.com', 'fan@example.com');
    t.clock.advance(16 * 60_000);
    expect((await anon.get(continueUrl)).status).toBe(410);
    expect(await t.db.select().from(leads)).toHaveLength(0);
  });
});
