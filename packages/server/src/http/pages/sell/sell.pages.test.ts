import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../testing/harness.js';
import { ticketBody, withEvent } from '../../../testing/factories.js';
import { authService } from '../../../domain/auth/auth.service.js';
import { completeCodeFlow, formAction, inputValue, TestBrowser } from '../auth/auth.testing.js';
import { PayoutAccounts } from '../../../domain/payouts/payouts.accounts.js';

/** The partner platform's ownership endpoint: answers what `owned` says, or `status`. */
async function platform() {
  const state = { owned: new Map<string, unknown[]>(), status: 200, hits: 0 };
  const server: Server = createServer((req, res) => {
    state.hits++;
    const user = new URL(req.url!, 'http://x').searchParams.get('user') ?? '';
    if (state.status !== 200) return void res.writeHead(state.status).end();
    const list = state.owned.get(user);
    if (!list) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/owned` };
}
const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

const record = (ticketId: string, extra: Record<string, unknown> = {}) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field', ...extra });

async function setup() {
  const pf = await platform();
  const t = createTestApp();
  const p = await t.partner('Acme', { ownershipUrl: pf.url, loginUrl: 'https://partner.example/login' });
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('a1'), ticketBody('a2')] });
  pf.state.owned.set('fan@example.com', [record('a1'), record('a2'), record('new-1')]);
  const browser = new TestBrowser(t.app);
  /** Signs the fan in by a link; `payout` first saves where the fan is paid (publishing needs it). */
  const signIn = async (email = 'fan@example.com', opts: { payout?: boolean } = { payout: true }) => {
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email }));
    if (opts.payout) await t.db.transact(async (tx) => await new PayoutAccounts(t.deps).save(tx, p.id, user.id, { holderName: 'Fan', iban: 'DE89 3704 0044 0532 0130 00' }));
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, user.id, 'test'));
    const res = await browser.get(`/sell/${p.id}/ticket/a1?oneTimeToken=${token}`);
    expect(res.status).toBe(302);
    return user;
  };
  const page = `/sell/${p.id}/ticket/a1`;
  return { t, p, pf, browser, signIn, page };
}

describe('sell flow: publishing', () => {
  it('sends a visitor without a session to the partner’s login, coming back here', async () => {
    const { p, browser } = await setup();
    const res = await browser.get(`/sell/${p.id}/ticket/a1?lang=es`);
    expect(res.status).toBe(302);
    const login = new URL(res.location!);
    expect(login.origin + login.pathname).toBe('https://partner.example/login');
    expect(login.searchParams.get('returnTo')).toBe(`http://resale.test/sell/${p.id}/ticket/a1?lang=es`);
  });

  it('shows the price form with the allowed range, calculates, and publishes within the rules', async () => {
    const { t, p, browser, signIn, page } = await setup();
    await t.request('POST', '/v1/rules', { key: p.keys.private, body: [{ externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', ruleType: 'maxPriceSellConfig', rules: { type: 'PERCENTAGE', value: 100 } }] });
    const user = await signIn('fan@example.com', { payout: false });
    // Signed in by a link, the seller is not stepped up: no payout fields, a way to confirm it's you.
    const unproven = await browser.get(page);
    expect(unproven.text).not.toContain('<label for="iban">');
    // Nothing is published before the seller says where to be paid (which needs the step-up first).
    const unpaid = await browser.post(page, { _csrf: inputValue(unproven.text, '_csrf')!, price: '40', intent: 'publish' });
    expect(unpaid.status).toBe(400);
    expect(unpaid.text).toContain('Add where we pay you before publishing: confirm it’s you with the button below');
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');
    const asked = await browser.post(page, { _csrf: inputValue(unproven.text, '_csrf')!, price: '41', intent: 'stepup' });
    expect(asked.status).toBe(303);
    expect(asked.location).toContain('/auth/step-up?');
    const proven = await completeCodeFlow(t, browser, asked.location!, 'fan@example.com');
    // Back on the form, with the price typed before the step-up.
    expect(proven.location).toBe(`http://resale.test${page}?lang=en&price=41`);
    const back = await browser.get(proven.location!);
    expect(inputValue(back.text, 'price')).toBe('41');
    // …and its money calculated again.
    expect(back.text).toContain('You receive');
    expect(back.text).toContain('€38.95');
    const form = await browser.get(page);
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="iban">');
    expect(form.text).toContain('<label for="price">Price per ticket (EUR)</label>');
    expect(form.text).toContain('At most €45.50.');
    expect(inputValue(form.text, 'price')).toBe('45.50');
    // The prefilled price's money is shown at once (the pages' script keeps it live as the seller types).
    expect(form.text).toContain('<table aria-label="What happens to the money" class="money" id="payout-table">');
    expect(form.text).not.toContain('id="payout-table" hidden');
    expect(form.text).toContain('€43.22'); // 45.50 less the 5 % service fee
    // The ticket is named once: its category, then its place.
    expect(form.text).not.toContain('Category:');
    const csrf = inputValue(form.text, '_csrf')!;
    expect(formAction(form.text)).toBe(page);

    const preview = await browser.post(page, { _csrf: csrf, price: '40,00', intent: 'preview' });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('You receive');
    expect(preview.text).toContain('€38.00');
    expect(preview.text).toContain('€44.00');

    const tooHigh = await browser.post(page, { _csrf: csrf, price: '46', intent: 'publish' });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.text).toContain('The price must be at most 45.5 EUR');
    expect(tooHigh.text).toContain('aria-invalid="true"');
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');

    const noAccount = await browser.post(page, { _csrf: csrf, price: '40', intent: 'publish' });
    expect(noAccount.status).toBe(400);
    expect(noAccount.text).toContain('Add where we pay you before publishing: nobody can buy a listing until we know where to send the money.');
    expect(noAccount.text).toContain('<legend>Where we pay you <span class="muted">(required)</span></legend>');
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');

    const badIban = await browser.post(page, { _csrf: csrf, price: '40', intent: 'publish', holderName: 'Ana García', iban: 'ES00 1234' });
    expect(badIban.status).toBe(400);
    expect(badIban.text).toContain('Enter a valid IBAN');
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');

    const done = await browser.post(page, { _csrf: csrf, price: '40', intent: 'publish', holderName: 'Ana García', iban: 'ES91 2100 0418 4502 0005 1332' });
    expect(done.status).toBe(303);
    const listing = await t.deps.listings.getByTicket(t.db, p.id, 'a1');
    expect(listing).toMatchObject({ state: 'ACTIVE', priceMinor: 4000, payoutMinor: 3800, sellerPk: user.id });
    expect(done.location).toBe(`/sell/${p.id}/listings/${listing.id}?lang=en&published=1`);
    const confirmation = await browser.get(done.location!);
    expect(confirmation.text).toContain('Your ticket is on sale.');
    expect(confirmation.text).toContain(`listingId=${listing.id}`);

    // Back on the sell page: the listing is managed, not listed twice.
    const again = await browser.get(page);
    expect(again.location).toBe(`/sell/${p.id}/listings/${listing.id}?lang=en`);
    // The payout account is kept: the next form says where the money goes.
    const second = await browser.get(`/sell/${p.id}/ticket/a2`);
    expect(second.text).toContain('Payouts go to the account ending in 1332 (Ana García).');
  });

  it('shows money that adds up, the face value and that no limit is set, and asks before publishing far above face value', async () => {
    const { t, p, browser, signIn, page } = await setup();
    await signIn();
    const asked = await browser.post(page, { _csrf: inputValue((await browser.get(page)).text, '_csrf')!, price: '45.50', intent: 'stepup' });
    await completeCodeFlow(t, browser, asked.location!, 'fan@example.com');
    const form = await browser.get(page);
    // Before typing: the face value, and that the organiser set no range (no cap rule here).
    expect(form.text).toContain('Face value: €45.50. The organiser sets no price limit.');
    // As the seller types, the pages' script calculates with the fees that apply (the server's, see page-script.test.ts).
    expect(inputValue(form.text, 'price')).toBe('45.50');
    const fees = /data-payout="payout-table" data-payout-fees="([^"]+)" data-payout-currency="EUR" data-payout-digits="2"/.exec(form.text)?.[1];
    expect(JSON.parse(fees!.replace(/&quot;/g, '"'))).toEqual({ buyerPercent: 10, buyerFixedMinor: 0, sellerPercent: 5, sellerFixedMinor: 0 });
    expect(form.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(form.text).toMatch(/<script src="\/assets\/pages-[\w-]+\.js" defer><\/script>/);
    const csrf = inputValue(form.text, '_csrf')!;

    // €500: the buyer pays price + buyer fee, the seller receives price − service fee.
    const preview = await browser.post(page, { _csrf: csrf, price: '500', intent: 'preview' });
    const rows = [...preview.text.matchAll(/<th scope="row">([^<]+)<\/th><td[^>]*>([^<]+)/g)].map((m) => `${m[1]}: ${m[2]}`);
    expect(rows).toEqual(['Your price: €500.00', 'Buyer’s fee: + €50.00', 'The buyer pays: €550.00', 'Your price: €500.00', 'Your service fee: − €25.00', 'You receive: €475.00']);
    // Above face value, the form carries the confirmation box.
    expect(preview.text).toContain('My price is above the face value of €45.50: publish it anyway.');

    // 8× face value is not published at once: the seller must tick that they mean it.
    const payout = { holderName: 'Ana García', iban: 'ES91 2100 0418 4502 0005 1332' };
    const unconfirmed = await browser.post(page, { _csrf: csrf, price: '364', intent: 'publish', ...payout });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('Your price is 8× the face value of €45.50. Tick the box below to publish it anyway, or lower the price.');
    expect(unconfirmed.text).toContain('aria-invalid="true"');
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');
    // A little above face value says so in percent.
    const slightly = await browser.post(page, { _csrf: csrf, price: '50', intent: 'publish', ...payout });
    expect(slightly.text).toContain('Your price is 10 % above the face value of €45.50.');

    const confirmed = await browser.post(page, { _csrf: csrf, price: '364', intent: 'publish', aboveFace: '1', ...payout });
    expect(confirmed.status).toBe(303);
    expect(await t.deps.listings.getByTicket(t.db, p.id, 'a1')).toMatchObject({ state: 'ACTIVE', priceMinor: 36400 });
    // At or below face value nothing is asked.
    const second = `/sell/${p.id}/ticket/a2`;
    const atFace = await browser.post(second, { _csrf: inputValue((await browser.get(second)).text, '_csrf')!, price: '45.50', intent: 'publish' });
    expect(atFace.status).toBe(303);
  });

  it('says every problem at once with what was typed kept (the IBAN too), and keeps Publish off with why until a payout account can exist', async () => {
    const { t, p, browser, signIn, page } = await setup();
    await signIn('fan@example.com', { payout: false });
    // No payout account and no fresh code: Publish is off, and the page says why.
    const blocked = await browser.get(page);
    expect(blocked.text).toMatch(/<button type="submit" name="intent" value="publish" disabled="" aria-describedby="publish-blocked">/);
    expect(blocked.text).toContain('To publish, add where we pay you first: we send you a code to confirm it is you.');

    const asked = await browser.post(page, { _csrf: inputValue(blocked.text, '_csrf')!, price: '45.50', intent: 'stepup' });
    await completeCodeFlow(t, browser, asked.location!, 'fan@example.com');
    const form = await browser.get(page);
    expect(form.text).not.toContain('id="publish-blocked"');
    // Far above face value, unconfirmed, and a mistyped IBAN: both said at once, the IBAN kept to correct.
    const res = await browser.post(page, { _csrf: inputValue(form.text, '_csrf')!, price: '364', intent: 'publish', holderName: 'Ana García', iban: 'ES91 2100 0418 4502 0005 1333' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Tick the box below to publish it anyway, or lower the price.');
    expect(res.text).toMatch(/<p class="error" id="iban-error">[^<]+<\/p>/);
    expect(inputValue(res.text, 'iban')).toBe('ES91 2100 0418 4502 0005 1333');
    expect(inputValue(res.text, 'holderName')).toBe('Ana García');
    // Nothing half-written: no listing, no payout account.
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');
    expect(res.text).toContain('name="iban"');
  });

  it('refuses a form without its CSRF token', async () => {
    const { browser, signIn, page } = await setup();
    await signIn();
    const res = await browser.post(page, { price: '40', intent: 'publish' });
    expect(res.status).toBe(403);
  });

  it('checks ownership live before listing: a ticket that moved is refused, a platform down fails safely', async () => {
    const { t, p, pf, browser, signIn, page } = await setup();
    await signIn();
    const csrf = inputValue((await browser.get(page)).text, '_csrf')!;
    pf.state.owned.set('fan@example.com', [record('a2')]);
    const moved = await browser.post(page, { _csrf: csrf, price: '40', intent: 'publish' });
    expect(moved.status).toBe(403);
    expect(moved.text).toContain('This ticket is not in your account');
    pf.state.status = 500;
    const down = await browser.post(page, { _csrf: csrf, price: '40', intent: 'publish' });
    expect(down.status).toBe(503);
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');
    pf.state.status = 200;
    pf.state.owned.delete('fan@example.com');
    const noAccount = await browser.get(page);
    expect(noAccount.status).toBe(302);
    expect(noAccount.location).toMatch(/^https:\/\/partner\.example\/login/);
  });

  it('synchronises a ticket the service did not know, and sells it', async () => {
    const { t, p, browser, signIn } = await setup();
    await signIn();
    const res = await browser.get(`/sell/${p.id}/ticket/new-1?sync=1`);
    expect(res.status).toBe(200);
    expect(await t.deps.tickets.get(t.db, p.id, 'new-1')).toMatchObject({ state: 'VALID' });
    const csrf = inputValue(res.text, '_csrf')!;
    expect((await browser.post(`/sell/${p.id}/ticket/new-1`, { _csrf: csrf, price: '30', intent: 'publish' })).status).toBe(303);
  });
});

describe('sell flow: managing a listing', () => {
  async function listed() {
    const s = await setup();
    await s.signIn();
    const csrf = inputValue((await s.browser.get(s.page)).text, '_csrf')!;
    const done = await s.browser.post(s.page, { _csrf: csrf, price: '40', intent: 'publish' });
    return { ...s, listingPage: done.location!.split('&published')[0]! };
  }

  it('names the ticket as a fan knows it (category, place, date), never by the platform’s id', async () => {
    const { t, p, browser, signIn } = await setup();
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('a1', { section: 'A', row: '2', seat: '7' })] });
    await signIn();
    const form = await browser.get(`/sell/${p.id}/ticket/a1`);
    const done = await browser.post(`/sell/${p.id}/ticket/a1`, { _csrf: inputValue(form.text, '_csrf')!, price: '40', intent: 'publish' });
    const view = await browser.get(done.location!);
    expect(view.text).toContain('<li>General field · Section A · Row 2 · Seat 7</li>');
    expect(view.text).not.toContain('a1</');
    expect(view.text).toMatch(/The Big Tour 2026<\/strong> · [^<]+ · \w+day, \d+ \w+ 2026 at \d\d:\d\d \w+/);
    expect(view.text).toContain('<p role="status" class="notice ok">Your ticket is on sale.</p>');
  });

  it('changes the price within the rules and removes the listing', async () => {
    const { t, p, browser, listingPage } = await listed();
    const view = await browser.get(listingPage);
    // The share link, with a copy button the pages' script shows where it can copy.
    expect(view.text).toContain('<button type="button" class="secondary" hidden="" data-copy-target="share-url" data-copy-done="Copied">Copy link</button>');
    expect(view.text).toMatch(/<a class="long" id="share-url" href="[^"]+listingId=/);
    const priceAction = /action="([^"]*\/price)"/.exec(view.text)![1]!;
    const csrf = /name="_csrf" value="([^"]*)"/.exec(view.text.slice(view.text.indexOf(priceAction)))![1]!;
    const changed = await browser.post(priceAction, { _csrf: csrf, price: '42.50' });
    expect(changed.status).toBe(303);
    expect((await t.deps.listings.getByTicket(t.db, p.id, 'a1')).priceMinor).toBe(4250);
    expect((await browser.get(changed.location!)).text).toContain('The price was changed.');
    const bad = await browser.post(priceAction, { _csrf: csrf, price: 'cheap' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter the price as a number');

    const view2 = await browser.get(listingPage);
    const removeAction = /action="([^"]*\/remove[^"]*)"/.exec(view2.text)![1]!;
    const csrf2 = /name="_csrf" value="([^"]*)"/.exec(view2.text.slice(view2.text.indexOf(removeAction)))![1]!;
    // The button asks first: nothing is removed until the seller confirms.
    expect(view2.text).toContain('class="danger-outline"');
    const asked = await browser.post(removeAction, { _csrf: csrf2 });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<h1>Remove your listing?</h1>');
    expect(asked.text).toContain('Keep it on sale');
    expect((await t.deps.listings.getByTicket(t.db, p.id, 'a1')).state).toBe('ACTIVE');
    const confirmAction = formAction(asked.text)!;
    const removed = await browser.post(confirmAction, { _csrf: inputValue(asked.text, '_csrf')!, confirm: inputValue(asked.text, 'confirm')! });
    expect(removed.status).toBe(303);
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');
    expect((await browser.get(removed.location!)).text).toContain('Your listing was removed.');
  });

  it('shows another seller’s listing as not found, and is localised', async () => {
    const { t, p, listingPage } = await listed();
    const stranger = new TestBrowser(t.app);
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'other@example.com' }));
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, user.id, 'test'));
    await stranger.get(`${listingPage}&oneTimeToken=${token}`);
    expect((await stranger.get(listingPage)).status).toBe(404);
  });

  it('speaks Spanish', async () => {
    const { browser, listingPage } = await listed();
    const es = await browser.get(listingPage.replace('lang=en', 'lang=es'));
    expect(es.text).toContain('<html lang="es">');
    expect(es.text).toContain('Tu anuncio');
    expect(es.text).toContain('Retirar el anuncio');
  });
});

describe('sell flow: the waiting list’s face-value cap', () => {
  it('tells the seller before publishing that fans wait and the price is capped at face value, and refuses more', async () => {
    const { t, p, browser, signIn, page } = await setup();
    const SHOW_1 = { externalReferenceEventId: 'tour', showId: 'show-1' };
    await t.db.transact(async (tx) => await t.deps.waitingList.putSettings(tx, p.id, SHOW_1, { enabled: true, priceCap: 'FACE_VALUE' }));
    await signIn();
    // Nobody waits yet: the ordinary hint.
    expect((await browser.get(page)).text).toContain('Face value: €45.50. The organiser sets no price limit.');
    for (const [i, ticketOptionId] of [['1', 'opt-field'], ['2', null]] as const) {
      await t.db.transact(async (tx) => {
        const user = await t.deps.users.resolve(tx, p.id, { email: `waiting-${i}@example.com` });
        // Four tickets: no single ticket here satisfies them, so nothing is offered away.
        await t.deps.waitingList.join(tx, p.id, { ...SHOW_1, userPk: user.id, quantity: 4, maxPerBuyer: 4, together: false, ticketOptionId });
      });
    }
    const form = await browser.get(page);
    expect(form.status).toBe(200);
    expect(form.text).toContain('2 fans are waiting for this show: the organiser caps resale at face value (€45.50).');
    expect(form.text).not.toContain('The organiser sets no price limit.');
    const es = await browser.get(`${page}?lang=es`);
    expect(es.text).toContain('2 fans esperan entradas para este espectáculo: el organizador limita la reventa al valor facial (45,50\u00a0€).');
    const csrf = inputValue(form.text, '_csrf')!;
    const tooHigh = await browser.post(page, { _csrf: csrf, price: '46', intent: 'publish' });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.text).toContain('2 fans are waiting for this show: the organiser caps resale at face value: the price must be at most 45.5 EUR');
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('VALID');
    const published = await browser.post(page, { _csrf: csrf, price: '45.50', intent: 'publish' });
    expect(published.status).toBe(303);
    expect((await t.deps.tickets.get(t.db, p.id, 'a1')).state).toBe('LISTED');
  });
});
