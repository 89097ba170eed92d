import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeServers } from '../../../testing/servers.js';
import { checkoutSetup } from '../../../domain/payments/checkout.testing.js';
import { ticketBody } from '../../../testing/factories.js';
import { authService } from '../../../domain/auth/auth.service.js';
import { completeCodeFlow, csrfOf, inputValue, TestBrowser } from '../auth/auth.testing.js';
import { buyIntentions } from '../../../domain/intentions/intentions.table.js';
import { payments } from '../../../domain/payments/payments.table.js';
import { payouts } from '../../../domain/payouts/payouts.table.js';
import { completePurchase } from '../../../flows/complete-purchase.js';
import { SANDBOX_CARDS } from '../../../domain/payments/payments.provider.js';
import { MAX_DECLINED_ATTEMPTS } from '../../../flows/checkout.js';
import { PAGE_SCRIPT_PATH } from '../page-script.js';
import { parseExpiry } from '../../../domain/payments/checkout.card.js';

const servers: Server[] = [];
afterEach(() => closeServers(servers));
const setup = (opts: { logger?: Logger } = {}) => checkoutSetup(servers, opts);

describe('checkout', () => {
  it('pays with the success card: listing SOLD, ticket to the buyer, payout scheduled, webhook and e-mails', async () => {
    const { t, p, list, ticket, checkout, pay, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    expect(page.status).toBe(200);
    expect(page.text).toContain('€44.00');
    expect(page.text).toContain('<label for="cardNumber">Card number</label>');
    const res = await pay(path, page.text, SANDBOX_CARDS.success);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/checkout/${p.id}/${bi.id}/done?lang=en`);
    expect((await browser.get(res.location!)).text).toContain('Thank you: the tickets are yours');

    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]).toMatchObject({ state: 'PAID', paidAt: t.clock.now() });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
    const buyer = (await t.deps.users.find(t.db, p.id, 'buyer@example.com'))!;
    expect(await ticket('s1')).toMatchObject({ ownerPk: buyer.id, state: 'VALID' });
    expect(await t.db.select().from(payments)).toMatchObject([{ state: 'succeeded', amountMinor: 4400, cardLast4: '4242' }]);
    expect(await t.db.select().from(payouts)).toMatchObject([{ state: 'SCHEDULED', amountMinor: 3800, dueAt: Date.parse('2026-05-01T19:00:00Z') + 7 * 86_400_000 }]);
    const hook = (await t.deps.webhooks.list(p.id, { action: 'ticket.update' }))[0]!.message.payload as { data: Record<string, any> };
    expect(hook.data).toMatchObject({
      resaleId: bi.id,
      eventId: 'tour',
      showId: 'show-1',
      total: 44,
      currency: 'EUR',
      buyer: { email: 'buyer@example.com' },
      tickets: [{ ticketId: 's1', ticketOptionId: 'opt-field', seating: { section: 'A', row: '1', seat: 's1' }, pricePaid: 44, previousOwner: { email: 'seller@example.com' } }],
    });
    const mails = await t.deps.messages.list();
    expect(mails.map((m) => `${m.template}:${m.to}`).sort()).toEqual(['listingSold:seller@example.com', 'purchaseConfirmed:buyer@example.com']);
    // A repeated completion changes nothing.
    expect(await t.db.transact(async (tx) => await completePurchase(t.deps, tx, bi.id, { provider: 'sandbox', providerRef: 'sbx_test' }))).toBe(false);
    expect(await t.db.select().from(payouts)).toHaveLength(1);
    // The sold listing shows as SOLD to its seller in the access layer.
    const layer = await t.request('POST', '/v1/wrapper/accesslayer', {
      key: p.keys.private,
      body: { user: 'seller@example.com', includeTicketSales: true, tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 's1', ticketOptionId: 'opt-field' }] },
    });
    expect(layer.body.data.soldTickets.map((s: { ticketId: string }) => s.ticketId)).toEqual(['s1']);
    expect(layer.body.data.tickets[0]).toMatchObject({ status: 'SOLD', callToActions: [{ key: 'DETAILS' }, { key: 'PENDING_PAYOUT_INFO' }] });
    // To its buyer, the ticket is theirs to resell.
    const mine = await t.request('POST', '/v1/wrapper/accesslayer', { key: p.keys.private, body: { user: 'buyer@example.com', tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 's1', ticketOptionId: 'opt-field' }] } });
    expect(mine.body.data.tickets[0]).toMatchObject({ status: 'SELLABLE', sync: true });
  });

  it('a declined card keeps the reservation: the buyer stays on the checkout with the reason in words, and pays with another card', async () => {
    const { t, p, list, checkout, pay, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    const res = await pay(path, page.text, SANDBOX_CARDS.declined);
    expect(res.status).toBe(303);
    expect(res.location).toMatch(new RegExp(`^/checkout/${p.id}/${bi.id}\\?lang=en&declined=pmt_[0-9a-z]+#declined$`));
    const again = await browser.get(res.location!);
    expect(again.status).toBe(200);
    expect(again.text).toContain('Your card was declined');
    // In the buyer's words, never the provider's code; the hold goes on, said with its time zone.
    expect(again.text).toContain('Nothing was charged: the bank declined the card. Your tickets are still reserved for you: try again with another card.');
    expect(again.text).toContain('These tickets are reserved for you until Sunday, 1 March 2026 at 13:10 CET.');
    expect(again.text).not.toContain('card_declined');
    expect(again.text).toContain('<label for="cardNumber">Card number</label>');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]!.state).toBe('PENDING');
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('RESERVED');
    // Another card, same checkout: paid.
    const paid = await pay(path, again.text, SANDBOX_CARDS.success);
    expect(paid.status).toBe(303);
    expect(paid.location).toBe(`/checkout/${p.id}/${bi.id}/done?lang=en`);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
    expect((await t.db.select().from(payments)).map((x) => [x.state, x.cardLast4])).toEqual([
      ['declined', '0002'],
      ['succeeded', '4242'],
    ]);
    expect((await t.deps.messages.list()).filter((m) => m.template === 'purchaseConfirmed')).toHaveLength(1);
  });

  it('ignores a ?declined= naming an unknown payment or one of another checkout', async () => {
    const { p, list, checkout, pay, browser } = await setup();
    const first = await checkout((await list('s1')).id);
    const declined = await pay(first.path, first.page.text, SANDBOX_CARDS.declined);
    const paymentId = /declined=(pmt_[0-9a-z]+)/.exec(declined.location!)![1]!;
    const second = await checkout((await list('s2')).id);
    for (const id of [paymentId, 'pmt_nope', '']) {
      const page = await browser.get(`${second.path}?lang=en&declined=${id}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('Your card was declined');
    }
    expect((await browser.get(`/checkout/${p.id}/${first.bi.id}?lang=en&declined=${paymentId}`)).text).toContain('Your card was declined');
  });

  it('after too many declined cards, cancels the reservation for the buyer’s safety and puts the tickets back on sale', async () => {
    const { t, p, list, checkout, pay, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    let html = page.text;
    for (let i = 1; i < MAX_DECLINED_ATTEMPTS; i++) {
      const res = await pay(path, html, SANDBOX_CARDS.declined);
      expect(res.status).toBe(303);
      html = (await browser.get(res.location!)).text;
    }
    expect(html).toContain('You can try 1 more time.');
    const last = await pay(path, html, SANDBOX_CARDS.declined);
    expect(last.status).toBe(402);
    expect(last.text).toContain('Too many declined payments');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]).toMatchObject({ state: 'FAILED', endReason: 'too_many_declines' });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    // Nothing more is charged for it.
    expect((await pay(path, html, SANDBOX_CARDS.success)).status).toBe(409);
    expect(await t.db.select().from(payments)).toHaveLength(MAX_DECLINED_ATTEMPTS);
  });

  it('refuses a retry once the hold has expired, charging nothing', async () => {
    const { t, p, list, checkout, pay, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    const declined = await browser.get((await pay(path, page.text, SANDBOX_CARDS.declined)).location!);
    t.clock.set(bi.expiresAt);
    const late = await pay(path, declined.text, SANDBOX_CARDS.success);
    expect(late.status).toBe(409);
    expect(late.text).toContain('This reservation has ended');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]).toMatchObject({ state: 'EXPIRED' });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['declined']);
  });

  it('charges the same attempt once when the form is submitted twice at the same time', async () => {
    const { t, p, list, checkout, pay } = await setup();
    const charge = vi.spyOn(t.deps.payments.cardForm, 'charge');
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    const [a, b] = await Promise.all([pay(path, page.text, SANDBOX_CARDS.success), pay(path, page.text, SANDBOX_CARDS.success)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect([a.location, b.location]).toEqual([`/checkout/${p.id}/${bi.id}/done?lang=en`, `/checkout/${p.id}/${bi.id}/done?lang=en`]);
    // Charged under one idempotency key, however the two requests interleaved.
    expect(new Set(charge.mock.calls.map(([input]) => input.idempotencyKey)).size).toBe(1);
    // One payment, kept (never refunded as if it came late), one purchase.
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['succeeded']);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
    expect((await t.deps.messages.list()).filter((m) => m.template === 'purchaseConfirmed')).toHaveLength(1);
    // Submitted again later: nothing is charged; the buyer lands on the receipt.
    const later = await pay(path, page.text, SANDBOX_CARDS.success);
    expect(later.status).toBe(303);
    expect(later.location).toBe(`/checkout/${p.id}/${bi.id}/done?lang=en`);
    expect(await t.db.select().from(payments)).toHaveLength(1);
  });

  it('the verification card asks the buyer, then pays on approval; a cancelled verification keeps the reservation for another card', async () => {
    const { t, p, list, checkout, pay, browser } = await setup();
    const l1 = await list('s1');
    const first = await checkout(l1.id);
    const asked = await pay(first.path, first.page.text, SANDBOX_CARDS.verification);
    expect(asked.status).toBe(303);
    expect(asked.location).toMatch(new RegExp(`^/checkout/${p.id}/verify/pmt_`));
    const verify = await browser.get(asked.location!);
    expect(verify.text).toContain('Confirm the payment');
    expect(verify.text).toContain('These tickets are reserved for you until');
    const path = asked.location!.split('?')[0]!;
    const ok = await browser.post(path, { _csrf: inputValue(verify.text, '_csrf')!, answer: 'approve' });
    expect(ok.status).toBe(303);
    expect((await t.deps.listings.get(t.db, p.id, l1.id)).state).toBe('SOLD');
    // Answering twice changes nothing.
    const again = await browser.post(path, { _csrf: inputValue(verify.text, '_csrf')!, answer: 'reject' });
    expect(again.status).toBe(303);
    expect((await t.deps.listings.get(t.db, p.id, l1.id)).state).toBe('SOLD');
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['succeeded']);

    const l2 = await list('s2');
    const second = await checkout(l2.id);
    const asked2 = await pay(second.path, second.page.text, SANDBOX_CARDS.verification);
    const verify2 = await browser.get(asked2.location!);
    const no = await browser.post(asked2.location!.split('?')[0]!, { _csrf: inputValue(verify2.text, '_csrf')!, answer: 'reject' });
    expect(no.status).toBe(303);
    expect(no.location).toMatch(new RegExp(`^/checkout/${p.id}/${second.bi.id}\\?lang=en&declined=pmt_`));
    const back = await browser.get(no.location!);
    expect(back.text).toContain('The payment was not confirmed');
    expect(back.text).toContain('Nothing was charged: the card’s verification was not completed.');
    expect(back.text).not.toContain('authentication_failed');
    expect((await t.deps.listings.get(t.db, p.id, l2.id)).state).toBe('RESERVED');
    // The verify page of the cancelled attempt now sends the buyer back to the checkout.
    expect((await browser.get(asked2.location!)).location).toMatch(/declined=pmt_/);
    expect((await pay(second.path, back.text, SANDBOX_CARDS.success)).location).toBe(`/checkout/${p.id}/${second.bi.id}/done?lang=en`);
    expect((await t.deps.listings.get(t.db, p.id, l2.id)).state).toBe('SOLD');
  });

  it('re-checks the seller’s ownership live: a ticket that moved cancels the reservation, a platform down fails safely', async () => {
    const { t, p, state, list, checkout, pay } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    state.status = 503;
    const down = await pay(path, page.text, SANDBOX_CARDS.success);
    expect(down.status).toBe(503);
    expect(await t.db.select().from(payments)).toHaveLength(0);
    state.status = 200;
    state.owned.set('seller@example.com', [{ eventId: 'tour', showId: 'show-1', ticketId: 's2', ticketOptionId: 'opt-field' }]);
    const moved = await pay(path, page.text, SANDBOX_CARDS.success);
    expect(moved.status).toBe(409);
    expect(moved.text).toContain('These tickets are no longer available');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]).toMatchObject({ state: 'CANCELLED', endReason: 'ticket_moved' });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('TERMINATED');
    expect(await t.db.select().from(payments)).toHaveLength(0);
  });

  it('refuses bad card fields, a missing CSRF token, and another buyer', async () => {
    const { t, p, list, checkout, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    const bad = await browser.post(path, { _csrf: inputValue(page.text, '_csrf')!, cardNumber: '12', expiry: '13/30', cvc: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a valid card number.');
    expect(bad.text).toContain('Enter the expiry date as MM/YY, for example 12/29.');
    // Missing fields are errors too, never a 500.
    const empty = await browser.post(path, { _csrf: inputValue(page.text, '_csrf')! });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Enter the 3 or 4 digit security code.');
    expect((await browser.post(path, { cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123' })).status).toBe(403);
    const other = new TestBrowser(t.app);
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'other@example.com' }));
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, user.id, 'test'));
    await other.get(`${path}?oneTimeToken=${token}`);
    expect((await other.get(path)).status).toBe(403);
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]!.state).toBe('PENDING');
  });

  it('buys from the market page: Buy sends a signed-out buyer to sign in first, holding nothing, then holds the pick on the way back and opens the checkout', async () => {
    const { t, p, list } = await setup();
    const l = await list('s1');
    const anon = new TestBrowser(t.app);
    const market = await anon.get(`/market/${p.id}/tour?showId=show-1`);
    expect(market.text).toContain('>Buy</button>');
    const res = await anon.post(`/market/${p.id}/tour/buy`, { _csrf: inputValue(market.text, '_csrf')!, listingId: l.id, showId: 'show-1' });
    expect(res.status).toBe(302);
    expect(res.location).toContain(`/auth/otp?p=${p.id}`);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(buyIntentions)).toHaveLength(0);
    // Signed in, the Buy continues: the pick is held and the checkout opens, no second press.
    const back = await completeCodeFlow(t, anon, res.location!, 'buyer@example.com', 'buyer@example.com');
    expect(back.status).toBe(303);
    expect(back.location).toContain(`/market/${p.id}/tour/buy/continue?`);
    const continued = await anon.get(back.location!);
    expect(continued.status).toBe(303);
    expect(continued.location).toMatch(new RegExp(`^/checkout/${p.id}/bi_`));
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('RESERVED');
    expect((await anon.get(continued.location!)).status).toBe(200);
    // A reload (or the back button) goes to the same checkout, holding nothing more.
    const again = await anon.get(back.location!);
    expect(again.location).toBe(continued.location);
    expect(await t.db.select().from(buyIntentions)).toHaveLength(1);
    // The market's Buy on a held listing is refused as taken.
    const form = new URLSearchParams({ _csrf: csrfOf((await anon.get(`/market/${p.id}/tour?showId=show-1`)).text, `/market/${p.id}/tour/buy`) ?? inputValue(market.text, '_csrf')!, listingId: l.id });
    expect((await anon.post(`/market/${p.id}/tour/buy`, form)).status).toBe(409);
  });

  it('holds nothing from a continued Buy opened in another browser, changed, or past its 15 minutes', async () => {
    const { t, p, list } = await setup();
    const l = await list('s1');
    const two = await list('s2');
    const anon = new TestBrowser(t.app);
    const market = await anon.get(`/market/${p.id}/tour?showId=show-1`);
    const res = await anon.post(`/market/${p.id}/tour/buy`, { _csrf: inputValue(market.text, '_csrf')!, listingId: l.id, showId: 'show-1' });
    const continueUrl = decodeURIComponent(new URL(res.location!, 'http://x').searchParams.get('returnTo')!).replace(/^https?:\/\/[^/]+/, '');
    expect(continueUrl).toContain('/buy/continue?');

    // Someone else, signed in, opening that link (sent to them, or loaded by a page they visit).
    const other = new TestBrowser(t.app);
    await completeCodeFlow(t, other, (await other.post(`/market/${p.id}/tour/buy`, { _csrf: inputValue((await other.get(`/market/${p.id}/tour?showId=show-1`)).text, '_csrf')!, listingId: two.id })).location!, 'other@example.com', 'other@example.com');
    const foreign = await other.get(continueUrl);
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('This link holds nothing here');
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');

    // The pick changed in the address: refused the same way.
    await completeCodeFlow(t, anon, res.location!, 'buyer@example.com', 'buyer@example.com');
    const changed = await anon.get(continueUrl.replace(`l=${l.id}`, `l=${two.id}`));
    expect(changed.status).toBe(400);
    expect((await t.deps.listings.get(t.db, p.id, two.id)).state).not.toBe('RESERVED');

    // Past its 15 minutes: nothing held, the way to the market.
    t.clock.advance(16 * 60_000);
    const late = await anon.get(continueUrl);
    expect(late.status).toBe(410);
    expect(late.text).toContain('Your pick has expired');
    expect(late.text).toContain(`href="/market/${p.id}/tour?showId=show-1&amp;lang=en"`);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
  });
});

describe('the checkout page', () => {
  it('shows the order summary, and the hold with its end in the show’s time zone and a countdown for the pages’ script', async () => {
    const { list, checkout } = await setup();
    const { page } = await checkout((await list('s1')).id);
    expect(page.status).toBe(200);
    for (const text of [
      '<h2 id="summary-title">Order summary</h2>',
      'The Big Tour 2026',
      'Night show-1',
      'Friday, 1 May 2026 at 21:00 CEST',
      'Arena Norte, Madrid',
      'Section A · Row 1 · Seat s1',
      'Face value €45.50 per ticket',
      '<th scope="row">Price (1 × €40.00)</th><td>€40.00</td>',
      '<th scope="row">Service fee (1 × €4.00)</th><td>€4.00</td>',
      '<th scope="row">Total</th><td>€44.00</td>',
      // Without script: the end time with its zone. With it: the clock, and a polite live region.
      'These tickets are reserved for you until Sunday, 1 March 2026 at 13:10 CET.',
      'data-countdown="2026-03-01T12:10:00.000Z" data-countdown-now="2026-03-01T12:00:00.000Z"',
      'data-countdown-one="{n} minute left to pay" data-countdown-other="{n} minutes left to pay"',
      'aria-live="polite" data-countdown-live',
      `<script src="${PAGE_SCRIPT_PATH}" defer></script>`,
      // Who takes the payment and where the receipt goes, under the pay button; the fields' examples.
      'Test payment by the sandbox: no money moves.',
      'We will e-mail the receipt to buyer@example.com.',
      'placeholder="MM/YY"',
    ]) {
      expect(page.text).toContain(text);
    }
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)/);
  });

  it('in Spanish too', async () => {
    const { list, checkout, browser } = await setup();
    const { path } = await checkout((await list('s1')).id);
    const es = await browser.get(`${path}?lang=es`);
    expect(es.text).toContain('Resumen del pedido');
    expect(es.text).toContain('Estas entradas están reservadas para ti hasta el domingo, 1 de marzo de 2026, 13:10 CET.');
    expect(es.text).toContain('Sector A · Fila 1 · Asiento s1');
    expect(es.text).toContain('data-countdown-other="Quedan {n} minutos para pagar"');
  });

  it('says each field’s error next to it and in a summary at the top, keeping what was typed but the security code', async () => {
    const { t, list, checkout, browser } = await setup();
    const charge = vi.spyOn(t.deps.payments.cardForm, 'charge');
    const { page, path } = await checkout((await list('s1')).id);
    const bad = await browser.post(path, { _csrf: inputValue(page.text, '_csrf')!, cardNumber: '4242 4242 4242 4241', expiry: '1229', cvc: '12', cardName: 'Ana <García>' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/<div class="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title" data-autofocus[^>]*><h2 id="error-summary-title">There is a problem<\/h2><ul><li><a href="#cardNumber">Enter a valid card number.<\/a><\/li><li><a href="#cvc">Enter the 3 or 4 digit security code.<\/a><\/li><\/ul><\/div>/);
    expect(bad.text).toContain('<p class="field-error" id="cardNumber-error">Enter a valid card number.</p><input type="text" id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" spellcheck="false" value="4242 4242 4242 4241" placeholder="1234 1234 1234 1234" aria-invalid="true" aria-describedby="cardNumber-error cardNumber-brand" data-card-brand="cardNumber-brand"/>');
    // The card's network, named from what was typed (and, with script, as it is typed).
    expect(bad.text).toContain('<p class="hint card-brand" id="cardNumber-brand" aria-live="polite">Visa</p>');
    expect(bad.text).toContain('<p class="field-error" id="cvc-error">Enter the 3 or 4 digit security code.</p><input type="text" id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" spellcheck="false" placeholder="123" aria-invalid="true" aria-describedby="cvc-error"/>');
    // The right fields kept, unmarked; the name escaped.
    expect(bad.text).toContain('id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" spellcheck="false" value="1229" placeholder="MM/YY"/>');
    expect(bad.text).toContain('value="Ana &lt;García&gt;"');
    expect(bad.text).not.toContain('value="12"');
    expect(charge).not.toHaveBeenCalled();
  });

  it('accepts the expiry as MM/YY, MMYY, MM / YY or MM-YY, and refuses a past date in words', async () => {
    const { t, p, list, checkout, browser } = await setup();
    for (const [i, expiry] of ['1229', '12 / 29', '12-29'].entries()) {
      const { bi, page, path } = await checkout((await list(`s${i + 1}`)).id);
      const res = await browser.post(path, { _csrf: inputValue(page.text, '_csrf')!, cardNumber: SANDBOX_CARDS.success, expiry, cvc: '123' });
      expect(res.location, expiry).toBe(`/checkout/${p.id}/${bi.id}/done?lang=en`);
    }
    const now = t.clock.now(); // 2026-03-01
    expect(parseExpiry('02/26', now)).toEqual({ ok: false, error: 'expiredCard' });
    expect(parseExpiry('3/26', now)).toEqual({ ok: true, month: 3, year: 2026 });
    expect(parseExpiry('12/2029', now)).toEqual({ ok: true, month: 12, year: 2029 });
    expect(parseExpiry(' 12 - 29 ', now)).toEqual({ ok: true, month: 12, year: 2029 });
    expect(parseExpiry('13/29', now)).toEqual({ ok: false, error: 'badExpiry' });
    expect(parseExpiry('129', now)).toEqual({ ok: false, error: 'badExpiry' });
    expect(parseExpiry('12/99', now)).toEqual({ ok: false, error: 'expiryTooFar' });
    expect(parseExpiry('', now)).toEqual({ ok: false, error: 'badExpiry' });
  });

  it('refuses an expired card as a field error, before any charge', async () => {
    const { t, list, checkout, browser } = await setup();
    const { page, path } = await checkout((await list('s1')).id);
    const res = await browser.post(path, { _csrf: inputValue(page.text, '_csrf')!, cardNumber: SANDBOX_CARDS.success, expiry: '02/26', cvc: '123' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<a href="#expiry">This card has expired. Check the date or use another card.</a>');
    expect(await t.db.select().from(payments)).toEqual([]);
  });
  it('never writes the card number or its security code to the log, whatever the outcome', async () => {
    const lines: string[] = [];
    const { list, checkout, pay, browser } = await setup({ logger: pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) }) });
    for (const [i, card] of [SANDBOX_CARDS.declined, SANDBOX_CARDS.verification, SANDBOX_CARDS.success].entries()) {
      const { page, path } = await checkout((await list(`s${i + 1}`)).id);
      await pay(path, page.text, card);
      // And a form with a wrong field, on the checkout the declined card left open.
      if (i === 0) expect((await browser.post(path, { _csrf: inputValue(page.text, '_csrf')!, cardNumber: '4242 4242 4242 4241', expiry: '12/29', cvc: '987' })).status).toBe(400);
    }
    expect(lines.length).toBeGreaterThan(0);
    const log = lines.join('\n');
    for (const card of [SANDBOX_CARDS.declined, SANDBOX_CARDS.verification, SANDBOX_CARDS.success, '4242 4242 4242 4241']) {
      expect(log).not.toContain(card);
      expect(log).not.toContain(card.replace(/\s/g, ''));
    }
    // The security code as a value of its own (a timestamp or an id may hold the digits).
    expect(log).not.toMatch(/(?<!\d)987(?!\d)/);
  });

  it('answers an unknown checkout, and a verification of an unknown or someone else’s payment, with not found', async () => {
    const { t, p, list, checkout, pay, browser } = await setup();
    const { page, path } = await checkout((await list('s1')).id);
    const asked = await pay(path, page.text, SANDBOX_CARDS.verification);
    expect((await browser.get(`/checkout/${p.id}/bi_nope`)).status).toBe(404);
    expect((await browser.get(`/checkout/${p.id}/verify/pmt_nope`)).status).toBe(404);
    const other = new TestBrowser(t.app);
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'other@example.com' }));
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, user.id, 'test'));
    await other.get(`${asked.location!}&oneTimeToken=${token}`);
    expect((await other.get(asked.location!)).status).toBe(404);
  });
});


describe('the receipt', () => {
  it('shows the seat, the amount with its fees, the card’s last four, the order reference, dates in the show’s time zone, a link to the secure ticket and the way back', async () => {
    const { t, p, list, checkout, pay, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    await t.db.update(buyIntentions).set({ returnTo: 'https://partner.example/events/tour' }).where(eq(buyIntentions.id, bi.id));
    const paid = await pay(path, page.text, SANDBOX_CARDS.success);
    const receipt = await browser.get(paid.location!);
    expect(receipt.status).toBe(200);
    for (const text of [
      'Thank you: the tickets are yours',
      `<code>${bi.id}</code>`,
      '<dt>Paid on</dt><dd>Sunday, 1 March 2026 at 13:00 CET</dd>',
      '<dt>Paid with</dt><dd>Card ending in 4242</dd>',
      '<dt>Amount paid</dt><dd><strong>€44.00</strong></dd>',
      '<th scope="row">Service fee (1 × €4.00)</th><td>€4.00</td>',
      'Friday, 1 May 2026 at 21:00 CEST',
      'Arena Norte, Madrid',
      'Section A · Row 1 · Seat s1',
      // The receipt's way back says what the header's does.
      '<a class="button" href="https://partner.example/events/tour">Back to Acme</a>',
      '<a class="back" href="https://partner.example/events/tour">Back to Acme</a>',
    ]) {
      expect(receipt.text).toContain(text);
    }
    const view = /href="(\/tickets\/view\/[^"]+)"/.exec(receipt.text)?.[1];
    expect(view).toBeDefined();
    const opened = await new TestBrowser(t.app).get(view!);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('The Big Tour 2026');
    // The same address, a week later: the buyer signs in again, and it is still their receipt.
    t.clock.advance(7 * 86_400_000);
    const signIn = await browser.get(paid.location!);
    expect(signIn.status).toBe(302);
    expect(signIn.location).toContain('/auth/otp');
    const buyer = (await t.deps.users.find(t.db, p.id, 'buyer@example.com'))!;
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, buyer.id, 'test'));
    await browser.get(`${paid.location!}&oneTimeToken=${token}`);
    expect((await browser.get(paid.location!)).text).toContain('<dt>Paid with</dt><dd>Card ending in 4242</dd>');
    // In Spanish.
    expect((await browser.get(`/checkout/${p.id}/${bi.id}/done?lang=es`)).text).toContain('Tarjeta terminada en 4242');
  });

  it('answers only its signed-in buyer: a stranger is refused, a signed-out visitor signs in first, another partner’s or an unknown id is not found', async () => {
    const { t, p, list, checkout, pay } = await setup();
    const { bi, page, path } = await checkout((await list('s1')).id);
    const done = `/checkout/${p.id}/${bi.id}/done?lang=en`;
    await pay(path, page.text, SANDBOX_CARDS.success);
    const stranger = new TestBrowser(t.app);
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'other@example.com' }));
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, user.id, 'test'));
    await stranger.get(`${done}&oneTimeToken=${token}`);
    const refused = await stranger.get(done);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('4242');
    const anonymous = await new TestBrowser(t.app).get(done);
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toContain('/auth/otp');
    expect((await stranger.get(`/checkout/${p.id}/bi_nope/done`)).status).toBe(404);
    // Signed in with another partner, its id in the path: this receipt is not found there.
    const other = await t.partner('Other');
    const otherUser = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, other.id, { email: 'buyer@example.com' }));
    const otherToken = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, other.id, otherUser.id, 'test'));
    await stranger.get(`/checkout/${other.id}/${bi.id}/done?oneTimeToken=${otherToken}`);
    expect((await stranger.get(`/checkout/${other.id}/${bi.id}/done`)).status).toBe(404);
  });

  it('sends a buyer whose checkout is not paid yet back to it', async () => {
    const { p, list, checkout, browser } = await setup();
    const { bi } = await checkout((await list('s1')).id);
    const res = await browser.get(`/checkout/${p.id}/${bi.id}/done?lang=en`);
    expect(res.status).toBe(302);
    expect(res.location).toBe(`/checkout/${p.id}/${bi.id}?lang=en`);
  });
});

describe('risk at checkout', () => {
  it('stops a purchase whose card had a chargeback, charging nothing and releasing the tickets', async () => {
    const { t, p, list, checkout, pay } = await setup();
    const first = await checkout((await list('s1')).id);
    await pay(first.path, first.page.text, SANDBOX_CARDS.success);
    await t.request('POST', '/v1/risk/feedback', { key: p.keys.private, body: { transactionId: first.bi.id, userId: 'buyer@example.com', result: 'chargeback' } });
    const l2 = await list('s2');
    const second = await checkout(l2.id);
    const res = await pay(second.path, second.page.text, SANDBOX_CARDS.success);
    expect(res.status).toBe(402);
    expect(res.text).toContain('We could not accept this payment');
    expect((await t.deps.listings.get(t.db, p.id, l2.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(payments)).toHaveLength(1);
  });
});

describe('cancellation after resale', () => {
  it('refunds resale buyers, stops undelivered payouts, and never touches a delivered one', async () => {
    const { t, p, state, list, checkout, pay } = await setup();
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('o1', { buyer: 'seller@example.com', showId: 'show-2' })] });
    state.owned.get('seller@example.com')!.push({ eventId: 'tour', showId: 'show-2', ticketId: 'o1', ticketOptionId: 'opt-field' });
    // show-1 a month after show-2, so that only show-2's payout is due first.
    await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-1', date: '2026-06-01T21:00:00+02:00' }] } });
    const sold1 = await list('s1');
    const first = await checkout(sold1.id);
    await pay(first.path, first.page.text, SANDBOX_CARDS.success);
    const other = await list('o1');
    const second = await checkout(other.id);
    expect((await pay(second.path, second.page.text, SANDBOX_CARDS.success)).status).toBe(303);

    // show-2's payout falls due and is delivered; then both shows are cancelled.
    const o1Payout = (await t.db.select().from(payouts).where(eq(payouts.listingId, other.id)).limit(1))[0]!;
    t.clock.set(o1Payout.dueAt);
    expect(await t.deps.payouts.deliverDue()).toBe(1);
    expect((await t.deps.webhooks.list(p.id, { action: 'payouts.delivered' }))[0]!.message.payload).toMatchObject({ data: { listingIds: [other.id], amount: 38, currency: 'EUR', sellerId: 'seller@example.com' } });
    t.clock.set('2026-03-02T12:00:00Z');
    await t.request('POST', '/v1/events/tour/cancellation', { key: p.keys.private });

    const rows = await t.db.select().from(payouts);
    expect(rows.find((r) => r.listingId === sold1.id)!.state).toBe('CANCELLED');
    expect(rows.find((r) => r.listingId === other.id)!.state).toBe('DELIVERED');
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['refund_pending', 'refund_pending']);
    expect(await t.deps.payments.runRefunds()).toBe(2);
    expect(await t.deps.payments.runRefunds()).toBe(0);
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['refunded', 'refunded']);
    expect((await t.deps.messages.list()).filter((m) => m.template === 'refund').map((m) => m.to)).toEqual(['buyer@example.com', 'buyer@example.com']);
    expect(await t.deps.payouts.deliverDue()).toBe(0);
  });
});
