import { asc, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { journalsOfIntention } from '../../../domain/ledger/ledger.queries.js';
import { ledgerEntries } from '../../../domain/ledger/ledger.table.js';
import { payments } from '../../../domain/payments/payments.table.js';
import { payouts } from '../../../domain/payouts/payouts.table.js';
import { webhookMessages } from '../../../domain/webhooks/webhooks.table.js';
import { closeReceivers, receiver } from '../../../domain/webhooks/webhooks.testing.js';
import { setup as journeySetup } from '../../../flows/flows.testing.js';
import { hashSecret } from '../../../lib/crypto.js';
import { ticketBody } from '../../../testing/factories.js';
import type { TestApp } from '../../../testing/harness.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { confirmWithCode, decoded, signIn, submit, withOperators } from './console.testing.js';

afterEach(closeReceivers);

const OPERATOR = 'ops@resale.test';

/**
 * A partner (Acme) whose seller `seller@example.com` holds s1–s4 of show-1 and whose buyer is
 * `buyer@example.com` (flows.testing.ts), with a resale of s1 paid by card (€40 + €4 fee), a
 * checkout holding s2 and s3 listed; its partner admin, developer and viewer, and another
 * partner's admin, signed in to the console with the operator.
 */
async function setup() {
  const j = await journeySetup();
  const { t, p } = j;
  await withOperators(t, OPERATOR);
  const sold = await j.list('s1');
  const resale = await j.reserve(sold.id);
  expect((await j.pay(resale)).kind).toBe('paid');
  const heldListing = await j.list('s2');
  const hold = await j.reserve(heldListing.id);
  const active = await j.list('s3');
  const other = await t.partner('Other');
  const ops = await signIn(t, OPERATOR);
  const member = async (partnerId: string, email: string, role: string) => {
    const res = await submit(ops, `/console/partners/${partnerId}/team`, `/console/partners/${partnerId}/team`, { email, role });
    expect(res.status, res.text.slice(0, 300)).toBe(303);
    return await signIn(t, email);
  };
  const people = {
    operator: ops,
    partner_admin: await member(p.id, 'admin@acme.example', 'partner_admin'),
    developer: await member(p.id, 'dev@acme.example', 'developer'),
    viewer: await member(p.id, 'viewer@acme.example', 'viewer'),
  };
  const otherAdmin = await member(other.id, 'admin@other.example', 'partner_admin');
  return { j, t, p, other, resale, sold, hold, heldListing, active, people, otherAdmin };
}

const salesPage = (partnerId: string, rest = '') => `/console/partners/${partnerId}/sales${rest}`;

/** The CSRF token `browser`'s console session gives a form posting to `action` (for a form its page does not show). */
async function csrfFor(t: TestApp, browser: TestBrowser, action: string): Promise<string> {
  const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
  return csrfTokenFor(row.csrfSecret, action);
}

/** The orders (buy intentions) a page links to, in its order. */
const orderIds = (html: string) => [...new Set([...html.matchAll(/href="\/console\/partners\/[^/"]+\/sales\/(bi_[0-9a-z]+)"/g)].map((m) => m[1]!))];
/** The listings a page shows, in its order. */
const listingIds = (html: string) => [...html.matchAll(/<td><code>(lst_[0-9a-z]+)<\/code><\/td>/g)].map((m) => m[1]!);
/** The timeline's rows as text, oldest first. */
const timeline = (html: string) =>
  [...html.split('id="timeline"')[1]!.matchAll(/<tr data-kind="([a-zA-Z]+)"><td>[^<]*<\/td><td>([^<]*)<\/td>/g)].map((m) => `${m[1]}: ${m[2]!.replace(/&amp;/g, '&').replace(/&#39;/g, "'")}`);

const auditOf = (t: TestApp) => t.db.read(async (tx) => await tx.select().from(auditLog).orderBy(asc(auditLog.at), asc(auditLog.id)));

/** Every account's balance over the whole ledger, per currency (zero balances left out): each currency must sum to zero. */
async function balances(t: TestApp): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const row of await t.db.read(async (tx) => await tx.select().from(ledgerEntries))) {
    const c = (out[row.currency] ??= {});
    c[row.account] = (c[row.account] ?? 0) + Number(row.amountMinor);
  }
  for (const [currency, accounts] of Object.entries(out)) {
    expect(Object.values(accounts).reduce((a, b) => a + b, 0), `the ledger of ${currency} sums to zero`).toBe(0);
    for (const k of Object.keys(accounts)) if (accounts[k] === 0) delete accounts[k];
    if (Object.keys(accounts).length === 0) delete out[currency];
  }
  return out;
}

describe('console sales: the list', () => {
  it('shows every role of the partner its resales, holds and listings, newest first, and finds them by ticket id, e-mail or order', async () => {
    const { p, resale, hold, sold, heldListing, active, people } = await setup();
    for (const [role, browser] of Object.entries(people)) {
      const res = await browser.get(salesPage(p.id));
      expect(res.status, role).toBe(200);
      expect(res.text, role).toContain(`<a href="/console/partners/${p.id}/sales" aria-current="page">Sales</a>`);
      expect(orderIds(res.text), role).toEqual([resale.id]);
    }
    const { viewer } = people;
    const resales = await viewer.get(salesPage(p.id));
    expect(resales.text).toContain('buyer@example.com');
    expect(resales.text).toContain('seller@example.com');
    expect(resales.text).toContain('<code>s1</code>');
    expect(resales.text).toContain('€44.00');
    expect(resales.text).toContain('<td>paid</td>');
    expect(orderIds((await viewer.get(salesPage(p.id, '?kind=holds'))).text)).toEqual([hold.id]);
    const listings = await viewer.get(salesPage(p.id, '?kind=listings'));
    expect(listingIds(listings.text)).toEqual([active.id, heldListing.id, sold.id]);
    // A listing links to the checkout holding it, or the order that bought it.
    expect(orderIds(listings.text)).toEqual([hold.id, resale.id]);

    // Search: ticket id, the buyer's or a seller's e-mail (any case), the order.
    for (const q of ['s1', 'buyer@example.com', 'SELLER@example.com', resale.id]) expect(orderIds((await viewer.get(salesPage(p.id, `?q=${encodeURIComponent(q)}`))).text), q).toEqual([resale.id]);
    expect(orderIds((await viewer.get(salesPage(p.id, '?kind=holds&q=s2'))).text)).toEqual([hold.id]);
    const none = await viewer.get(salesPage(p.id, '?q=nobody%40example.com'));
    expect(orderIds(none.text)).toEqual([]);
    expect(none.text).toContain('Nothing matches “nobody@example.com”.');
    expect(orderIds((await viewer.get(salesPage(p.id, '?q=s3'))).text)).toEqual([]);
    expect(listingIds((await viewer.get(salesPage(p.id, '?kind=listings&q=s3'))).text)).toEqual([active.id]);
    expect(listingIds((await viewer.get(salesPage(p.id, `?kind=listings&q=${resale.id}`))).text)).toEqual([sold.id]);
    expect(listingIds((await viewer.get(salesPage(p.id, '?kind=listings&q=buyer%40example.com'))).text)).toEqual([heldListing.id, sold.id]);
    // The search is kept in the form and in the kinds' links; unknown kinds read as resales.
    const searched = await viewer.get(salesPage(p.id, '?kind=holds&q=s2'));
    expect(searched.text).toMatch(/<input type="hidden" name="kind" value="holds"/);
    expect(searched.text).toContain(`href="/console/partners/${p.id}/sales?q=s2"`);
    expect(orderIds((await viewer.get(salesPage(p.id, '?kind=refunds'))).text)).toEqual([resale.id]);
    // In Spanish.
    expect((await viewer.get(salesPage(p.id, '?lang=es'))).text).toContain('Reventas');
  });

  it('pages listings 25 at a time', async () => {
    const { j, t, p, people } = await setup();
    const ids = Array.from({ length: 26 }, (_, i) => `x${i}`);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ids.map((id) => ticketBody(id, { buyer: 'seller@example.com' })) });
    const made: string[] = [];
    for (const id of ids) {
      t.clock.advance(1_000);
      made.push((await j.list(id)).id);
    }
    const first = await people.viewer.get(salesPage(p.id, '?kind=listings'));
    expect(listingIds(first.text)).toEqual([...made].reverse().slice(0, 25));
    const older = decoded(/<a href="([^"]*page=2[^"]*)">Older<\/a>/.exec(first.text)![1]!);
    const second = await people.viewer.get(older);
    expect(listingIds(second.text)).toHaveLength(4);
    expect(listingIds(second.text)[0]).toBe(made[0]);
    expect(second.text).toContain('>Newer</a>');
  });

  it('answers 404 for another partner’s order or a partner someone may not read, and sends a signed-out visitor to sign in', async () => {
    const { t, p, other, resale, people, otherAdmin } = await setup();
    expect((await otherAdmin.get(salesPage(p.id))).status).toBe(404);
    expect((await otherAdmin.get(salesPage(p.id, `/${resale.id}`))).status).toBe(404);
    // The order is Acme's: not found under another partner, for its admin and for an operator.
    expect((await otherAdmin.get(salesPage(other.id, `/${resale.id}`))).status).toBe(404);
    expect((await people.operator.get(salesPage(other.id, `/${resale.id}`))).status).toBe(404);
    expect((await people.viewer.get(salesPage(p.id, '/bi_unknown'))).status).toBe(404);
    expect(orderIds((await otherAdmin.get(salesPage(other.id))).text)).toEqual([]);
    for (const path of [salesPage(p.id), salesPage(p.id, `/${resale.id}`)]) {
      const res = await new TestBrowser(t.app).get(path);
      expect(res.status).toBe(303);
      expect(res.location).toBe(`/console/sign-in?next=${encodeURIComponent(path)}&ended=1`);
    }
  });
});

describe('console sales: an order', () => {
  it('shows a paid resale’s timeline: listed, reserved, paid with its method, the ledger, ticket.update delivered (linked), the payout scheduled and delivered', async () => {
    const { t, p, resale, sold } = await setup();
    const rx = await receiver(() => 200);
    expect((await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { webhookUrl: rx.url } } })).status).toBe(200);
    await t.deps.webhooks.deliverDue();
    const payout = (await t.db.read(async (tx) => await tx.select().from(payouts).where(eq(payouts.listingId, sold.id))))[0]!;
    t.clock.set(payout.dueAt);
    expect(await t.deps.payouts.deliverDue()).toBe(1);
    await t.deps.webhooks.deliverDue();
    // Days later: the console sessions of the sale's day have ended.
    const viewer = await signIn(t, 'viewer@acme.example');

    const page = await viewer.get(salesPage(p.id, `/${resale.id}`));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<code>${resale.id}</code>`);
    expect(page.text).toContain('buyer@example.com');
    const payment = (await t.db.read(async (tx) => await tx.select().from(payments).where(eq(payments.intentionId, resale.id))))[0]!;
    const rows = timeline(page.text);
    const expected = [
      'listed: Listed by seller@example.com: 1 × €44.00',
      'reserved: Reserved by buyer@example.com',
      `paid: Paid €44.00 with card •••• 4242 (sandbox ${payment.providerRef})`,
      'journal: Ledger: the sale booked (€44.00 in, sellers owed, fees earned)',
      'payoutScheduled: Payout of €38.00 to seller@example.com scheduled for',
      'webhookQueued: Webhook ticket.update queued for the partner (now delivered; attempts: 1)',
      'webhookDelivered: Webhook ticket.update delivered to the partner',
      'payoutDelivered: Payout delivered to the seller',
      'webhookDelivered: Webhook payouts.delivered delivered to the partner',
    ];
    // Each in its place, oldest first.
    let at = -1;
    for (const line of expected) {
      const i = rows.findIndex((r, k) => k > at && r.startsWith(line));
      expect(i, `${line}\nin\n${rows.join('\n')}`).toBeGreaterThan(at);
      at = i;
    }
    // The webhook entries link to the webhooks tab's message page, which opens.
    const ticketUpdate = (await t.deps.webhooks.list(p.id, { action: 'ticket.update' }))[0]!.message;
    const href = `/console/partners/${p.id}/webhooks/${ticketUpdate.id}`;
    expect(page.text).toContain(`href="${href}"`);
    expect((await viewer.get(href)).status).toBe(200);
    // A viewer sees no refund form.
    expect(page.text).not.toContain('/refund"');
    expect(page.text).toContain('Only operators refund a resale.');
  });

  it('shows a hold’s page, without a refund', async () => {
    const { p, hold, people } = await setup();
    const page = await people.operator.get(salesPage(p.id, `/${hold.id}`));
    expect(page.status).toBe(200);
    expect(timeline(page.text).map((r) => r.split(':')[0])).toEqual(['listed', 'reserved']);
    expect(page.text).not.toContain('id="refund"');
  });
});

describe('console sales: refunds', () => {
  it('lets an operator refund a paid resale after a fresh code: audited, the payout stopped, the ledger balanced, the provider asked; a second refund is refused', async () => {
    const { t, p, resale, sold, people } = await setup();
    const ops = people.operator;
    const orderPage = salesPage(p.id, `/${resale.id}`);
    const action = `${orderPage}/refund`;
    t.clock.advance(11 * 60_000);
    const auditBefore = (await auditOf(t)).length;

    // Without a fresh code: asked for one, nothing refunded.
    const asked = await submit(ops, orderPage, action, {});
    expect(asked.status).toBe(303);
    expect(asked.location).toBe(`/console/confirm?next=${encodeURIComponent(`${orderPage}#refund`)}`);
    const paymentRow = async () => (await t.db.read(async (tx) => await tx.select().from(payments).where(eq(payments.intentionId, resale.id))))[0]!;
    expect((await paymentRow()).state).toBe('succeeded');
    expect(await auditOf(t)).toHaveLength(auditBefore);

    const confirmed = await confirmWithCode(t, ops, asked.location!, OPERATOR);
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe(`${orderPage}#refund`);
    const refunded = await submit(ops, orderPage, action, {});
    expect(refunded.status, refunded.text.slice(0, 500)).toBe(303);
    expect(refunded.location).toBe(`${orderPage}?saved=refund#refund`);
    const after = await ops.get(refunded.location!);
    expect(after.text).toContain('Refund under way');
    expect(after.text).toContain('This order is refunded already (or its refund is under way).');
    expect(timeline(after.text).some((r) => r.startsWith('journal: Ledger: refund decided (€44.00'))).toBe(true);
    expect(timeline(after.text).some((r) => r.startsWith('payoutCancelled: Payout stopped'))).toBe(true);
    expect((await paymentRow()).state).toBe('refund_pending');
    const payout = (await t.db.read(async (tx) => await tx.select().from(payouts).where(eq(payouts.listingId, sold.id))))[0]!;
    expect(payout.state).toBe('CANCELLED');
    // The partner is told the sale is undone, on the resale's own resource (after its ticket.update).
    const told = (await t.db.select().from(webhookMessages).where(eq(webhookMessages.action, 'resale.refunded')))[0]!;
    expect(told.resourceKey).toBe(`intention:${resale.id}`);
    expect(JSON.parse(told.payload)).toMatchObject({
      family: 'resale',
      action: 'resale.refunded',
      data: { resaleId: resale.id, eventId: 'tour', showId: 'show-1', amount: 44, currency: 'EUR', reason: 'operator', buyer: { email: 'buyer@example.com' }, tickets: [{ listingId: sold.id, previousOwner: { email: 'seller@example.com' } }] },
    });

    const entries = (await auditOf(t)).slice(auditBefore);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'sale.refund', actorEmail: OPERATOR, role: 'operator', partnerId: p.id, target: resale.id, before: { payment: 'succeeded' }, after: { payment: 'refund_pending', amountMinor: 4400, currency: 'EUR', payoutsStopped: 1 } });

    // The refund is owed in the ledger; the provider is asked as for every refund, then it is paid.
    expect(await balances(t)).toEqual({ EUR: { provider_balance: 4400, refunds_payable: -4400 } });
    const asks = vi.spyOn(t.deps.payments.provider, 'refund');
    expect(await t.deps.payments.runRefunds()).toBe(1);
    const paid = await paymentRow();
    expect(asks).toHaveBeenCalledWith(expect.objectContaining({ ref: paid.providerRef, amountMinor: 4400, currency: 'EUR', idempotencyKey: `refund:${paid.id}` }));
    expect(paid.state).toBe('refunded');
    expect(await balances(t)).toEqual({});
    expect((await t.db.read(async (tx) => await journalsOfIntention(tx, resale.id))).map((x) => x.kind)).toEqual(['sale', 'refund_due', 'refund_paid']);
    const done = await ops.get(orderPage);
    expect(timeline(done.text).some((r) => r.startsWith('refunded: Refunded to the buyer: €44.00'))).toBe(true);
    expect((await ops.get(salesPage(p.id))).text).toContain('<td>refunded</td>');

    // Twice: refused, saying why, nothing more written.
    const twice = await ops.post(action, { _csrf: await csrfFor(t, ops, action) });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain('This order is refunded already');
    expect(await auditOf(t)).toHaveLength(auditBefore + 1);
    expect((await t.db.read(async (tx) => await journalsOfIntention(tx, resale.id))).map((x) => x.kind)).toEqual(['sale', 'refund_due', 'refund_paid']);
  });

  it('refuses a hold (never paid) and an unknown order, and answers a partner’s people 403 before anything is read or written', async () => {
    const { t, p, hold, resale, people } = await setup();
    const before = (await auditOf(t)).length;
    const ops = people.operator;
    const holdAction = salesPage(p.id, `/${hold.id}/refund`);
    const notPaid = await ops.post(holdAction, { _csrf: await csrfFor(t, ops, holdAction) });
    expect(notPaid.status).toBe(409);
    expect(notPaid.text).toContain('This order cannot be refunded: it was never paid.');
    const unknown = salesPage(p.id, '/bi_unknown/refund');
    expect((await ops.post(unknown, { _csrf: await csrfFor(t, ops, unknown) })).status).toBe(404);
    const action = salesPage(p.id, `/${resale.id}/refund`);
    for (const role of ['partner_admin', 'developer', 'viewer'] as const) {
      const res = await people[role].post(action, { _csrf: await csrfFor(t, people[role], action) });
      expect(res.status, role).toBe(403);
      expect(res.text, role).toContain('Your role cannot do this here');
    }
    expect(await auditOf(t)).toHaveLength(before);
    expect((await t.db.read(async (tx) => await tx.select().from(payments).where(eq(payments.intentionId, resale.id))))[0]!.state).toBe('succeeded');
  });
});
