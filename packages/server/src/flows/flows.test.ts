import { inOrder } from '../lib/in-order.js';
import { asc, eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../testing/harness.js';
import { eventBody, ticketBody, withEvent } from '../testing/factories.js';
import { SANDBOX_CARDS, type CardFormProvider } from '../domain/payments/payments.provider.js';
import { payments } from '../domain/payments/payments.table.js';
import { payouts } from '../domain/payouts/payouts.table.js';
import { webhookMessages } from '../domain/webhooks/webhooks.table.js';
import { webhookBodyOf } from '../domain/webhooks/webhooks.service.js';
import { answerVerification, MAX_DECLINED_ATTEMPTS } from './checkout.js';
import { setup } from './flows.testing.js';
import { reserveListings } from './reserve-listings.js';
import { OrphanSeatError } from './market.seatmap.js';
import { buyIntentions } from '../domain/intentions/intentions.table.js';

/**
 * Holds the provider's first two charges until both have arrived (two submissions of one
 * checkout at the same moment), then lets every charge through to the real provider.
 */
function chargesMeetInPairs(provider: CardFormProvider) {
  const real = provider.charge.bind(provider);
  let arrived = 0;
  let bothThere!: () => void;
  const gate = new Promise<void>((resolve) => (bothThere = resolve));
  return vi.spyOn(provider, 'charge').mockImplementation(async (input) => {
    if (++arrived === 2) bothThere();
    if (arrived <= 2) await gate;
    return await real(input);
  });
}

describe('checkout flow (no page)', () => {
  it('re-checks ownership, evaluates risk, charges and completes the purchase', async () => {
    const { t, p, buyer, ticket, list, reserve, pay } = await setup();
    const l = await list('s1');
    const intention = await reserve(l.id);
    expect(await pay(intention)).toEqual({ kind: 'paid', intentionId: intention.id });
    expect((await t.deps.intentions.get(t.db, p.id, intention.id)).state).toBe('PAID');
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
    expect(await ticket('s1')).toMatchObject({ ownerPk: buyer.id, state: 'VALID' });
    expect((await t.db.select().from(payouts).where(eq(payouts.listingId, l.id)).limit(1))[0]).toMatchObject({ state: 'SCHEDULED', amountMinor: 3800 });
    expect(await t.db.select().from(payments)).toMatchObject([{ intentionId: intention.id, state: 'succeeded', cardLast4: '4242' }]);
  });

  it('cancels the checkout and ends the listing when a seller no longer owns the ticket, charging nothing', async () => {
    const { t, p, owned, list, reserve, pay } = await setup();
    const l = await list('s2');
    const intention = await reserve(l.id);
    owned.set('seller@example.com', []);
    expect(await pay(intention)).toEqual({ kind: 'ticket_moved' });
    expect(await t.deps.intentions.get(t.db, p.id, intention.id)).toMatchObject({ state: 'CANCELLED', endReason: 'ticket_moved' });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('TERMINATED');
    expect(await t.db.select().from(payments)).toEqual([]);
  });

  it('changes nothing when the partner’s platform does not answer', async () => {
    const { t, p, list, reserve, pay } = await setup({ platformDown: true });
    const l = await list('s3');
    const intention = await reserve(l.id);
    expect(await pay(intention)).toEqual({ kind: 'platform_unavailable' });
    expect((await t.deps.intentions.get(t.db, p.id, intention.id)).state).toBe('PENDING');
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('RESERVED');
    expect(await t.db.select().from(payments)).toEqual([]);
  });

  it('fails the checkout on a high risk score before any charge, and puts the listing back on sale', async () => {
    const { t, p, list, reserve, pay } = await setup();
    const first = await reserve((await list('s1')).id);
    expect((await pay(first)).kind).toBe('paid');
    await t.request('POST', '/v1/risk/feedback', { key: p.keys.private, body: { transactionId: first.id, userId: 'buyer@example.com', result: 'chargeback' } });
    const l = await list('s2');
    const second = await reserve(l.id);
    expect(await pay(second)).toEqual({ kind: 'risk_high' });
    expect(await t.deps.intentions.get(t.db, p.id, second.id)).toMatchObject({ state: 'FAILED', endReason: 'risk_high' });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(payments)).toHaveLength(1);
  });

  it('keeps the checkout on a declined card, asks for verification, and answers a verification once', async () => {
    const { t, p, list, reserve, pay } = await setup();
    const declined = await reserve((await list('s1')).id);
    expect(await pay(declined, SANDBOX_CARDS.declined)).toMatchObject({ kind: 'declined', code: 'card_declined', attemptsLeft: MAX_DECLINED_ATTEMPTS - 1 });
    expect((await t.deps.intentions.get(t.db, p.id, declined.id)).state).toBe('PENDING');
    const verified = await reserve((await list('s2')).id);
    const asked = await pay(verified, SANDBOX_CARDS.verification);
    expect(asked.kind).toBe('verify');
    const payment = (await t.deps.payments.find(t.db, p.id, (asked as { paymentId: string }).paymentId))!;
    expect(await answerVerification(t.deps, payment, true)).toEqual({ kind: 'paid', intentionId: verified.id });
    expect(await answerVerification(t.deps, payment, true)).toEqual({ kind: 'ended', state: 'already_answered' });
  });

  it('charges a new attempt under a new idempotency key after a decline, and the same attempt sent twice once', async () => {
    const { t, p, list, reserve, pay } = await setup();
    // Both submissions reach the provider before either is recorded: the first waits for the second.
    const charge = chargesMeetInPairs(t.deps.payments.cardForm);
    const l = await list('s1');
    const intention = await reserve(l.id);
    const [a, b] = await Promise.all([pay(intention, SANDBOX_CARDS.declined), pay(intention, SANDBOX_CARDS.declined)]);
    expect(a).toMatchObject({ kind: 'declined', attemptsLeft: MAX_DECLINED_ATTEMPTS - 1 });
    expect(b).toEqual(a);
    expect(charge.mock.calls.map(([input]) => input.idempotencyKey)).toEqual([`${intention.id}:0`, `${intention.id}:0`]);
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['declined']);
    // The next card is a new attempt: a new key, a new charge.
    expect(await pay(intention)).toEqual({ kind: 'paid', intentionId: intention.id });
    expect(charge.mock.calls.at(-1)![0].idempotencyKey).toBe(`${intention.id}:1`);
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['declined', 'succeeded']);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
  });

  it('settles a succeeded charge sent twice once: paid, never refunded as a late payment', async () => {
    const { t, p, list, reserve, pay } = await setup();
    chargesMeetInPairs(t.deps.payments.cardForm);
    const l = await list('s1');
    const intention = await reserve(l.id);
    const outcomes = await Promise.all([pay(intention), pay(intention)]);
    expect(outcomes).toEqual([
      { kind: 'paid', intentionId: intention.id },
      { kind: 'paid', intentionId: intention.id },
    ]);
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['succeeded']);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
    expect((await t.deps.messages.list()).filter((m) => m.template === 'purchaseConfirmed')).toHaveLength(1);
  });

  it('charges nothing once the hold has run out, even when it ran out while the sellers were being checked', async () => {
    const { t, p, list, reserve, pay } = await setup();
    const l = await list('s1');
    const intention = await reserve(l.id);
    // The hold ends during the risk evaluation, after the page had found the checkout PENDING.
    const evaluate = t.deps.risk.evaluate.bind(t.deps.risk);
    vi.spyOn(t.deps.risk, 'evaluate').mockImplementation(async (...args) => {
      t.clock.set(intention.expiresAt);
      return await evaluate(...args);
    });
    const charge = vi.spyOn(t.deps.payments.cardForm, 'charge');
    expect(await pay(intention)).toEqual({ kind: 'ended', state: 'EXPIRED' });
    expect(charge).not.toHaveBeenCalled();
    expect(await t.db.select().from(payments)).toEqual([]);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
  });

  it('refunds a verification approved after the hold ran out, and never completes the purchase', async () => {
    const { t, p, list, reserve, pay } = await setup();
    const l = await list('s1');
    const intention = await reserve(l.id);
    const asked = await pay(intention, SANDBOX_CARDS.verification);
    const payment = (await t.deps.payments.find(t.db, p.id, (asked as { paymentId: string }).paymentId))!;
    t.clock.set(intention.expiresAt + 1000);
    expect(await answerVerification(t.deps, payment, true)).toEqual({ kind: 'ended', state: 'EXPIRED' });
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['refund_pending']);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    expect((await t.deps.messages.list()).filter((m) => m.template === 'purchaseConfirmed')).toEqual([]);
  });

  it('e-mails the buyer the seat, the order reference and a working link to each ticket’s secure view', async () => {
    const { t, p, list, reserve, pay } = await setup();
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('s1', { buyer: 'seller@example.com', section: 'B', row: '7', seat: '12' })] });
    const intention = await reserve((await list('s1')).id);
    expect((await pay(intention)).kind).toBe('paid');
    const mail = (await t.deps.messages.list()).find((m) => m.template === 'purchaseConfirmed')!;
    expect(mail.text).toContain('You bought 1 ticket for The Big Tour 2026 – Night show-1 (Friday, 1 May 2026 at 21:00 CEST, Arena Norte, Madrid)');
    expect(mail.text).toContain(`Order reference: ${intention.id}`);
    expect(mail.text).toContain(`Your receipt: http://resale.test/checkout/${p.id}/${intention.id}/done?lang=en`);
    const link = /Your ticket: Section B · Row 7 · Seat 12: (http:\/\/resale\.test\/tickets\/view\/\S+)/.exec(mail.text)?.[1];
    expect(link).toBeDefined();
    const view = await t.app.request(new URL(link!).pathname);
    expect(view.status).toBe(200);
    expect(await view.text()).toContain('The Big Tour 2026');
  });
});

describe('reserve listings flow', () => {
  it('holds the pick for one checkout, or nothing at all', async () => {
    const { t, p, partner, buyer, list } = await setup();
    const a = await list('s1');
    const b = await list('s2');
    await t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [a.id], buyerPk: buyer.id }));
    // b is free but a is taken: the second pick rolls back whole.
    await expect(t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [b.id, a.id], buyerPk: buyer.id }))).rejects.toThrow(expect.objectContaining({ reason: 'listing_unavailable' }));
    expect((await t.deps.listings.get(t.db, p.id, b.id)).state).toBe('ACTIVE');
    // The seller cannot hold their own listing.
    await expect(t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [b.id], buyerPk: b.sellerPk }))).rejects.toThrow(expect.objectContaining({ status: 409, reason: 'own_listing' }));
  });
});

describe('reserve listings flow: the seat map’s orphan-seat rule', () => {
  /**
   * Row 1 of section A has seats 4, 5 and 6 in the chart; 4 is not for sale, 5 and 6 are (one
   * listing each). A6 alone strands A5 between the unavailable A4 and A6: the map refuses it,
   * and so must every way to reserve.
   */
  async function seatedRow(settings: Record<string, unknown> = {}) {
    const t = createTestApp();
    const p = await t.partner('Acme', settings);
    const svgCode = '<svg viewBox="0 0 40 10"><g data-area="Field" data-section="A" data-row="1"><circle data-seat="4"/><circle data-seat="5"/><circle data-seat="6"/></g></svg>';
    await withEvent(t, p, eventBody('tour', { seating: { svgCode } }));
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ['4', '5', '6'].map((seat) => ticketBody(`a${seat}`, { buyer: 'seller@example.com', section: 'A', row: '1', seat })) });
    const partner = await t.deps.partners.get(p.id);
    const buyer = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'buyer@example.com' }));
    const list = async (id: string) => {
      const ticket = await t.deps.tickets.get(t.db, p.id, id);
      return await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }));
    };
    const reserve = async (ids: string[]) => await t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: ids, buyerPk: buyer.id }));
    return { t, p, a5: await list('a5'), a6: await list('a6'), reserve };
  }

  it('refuses a pick that would leave a single seat empty, reserving nothing, and takes the pair', async () => {
    const { t, p, a5, a6, reserve } = await seatedRow();
    await expect(reserve([a6.id])).rejects.toThrow(expect.objectContaining({ status: 400, code: 'invalid_value', name: 'ApiError' }));
    await expect(reserve([a6.id])).rejects.toBeInstanceOf(OrphanSeatError);
    expect((await t.deps.listings.get(t.db, p.id, a6.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(buyIntentions)).toEqual([]);
    // A5 alone leaves A6 on the row end: that one can still be sold alone.
    const intention = await reserve([a6.id, a5.id]);
    expect(intention.listingIds).toEqual([a6.id, a5.id]);
  });

  it('lets the partner allow orphan seats (buyAccessLayer.integratedMap.allowOrphanTicketSelection)', async () => {
    const { t, p, a6, reserve } = await seatedRow({ buyAccessLayer: { integratedMap: { allowOrphanTicketSelection: true } } });
    await reserve([a6.id]);
    expect((await t.deps.listings.get(t.db, p.id, a6.id)).state).toBe('RESERVED');
  });
});

describe('cancel show flow', () => {
  it('runs its cascade in the documented order: tickets (their listings, the checkouts), refunds, payouts', async () => {
    const { t, p, list, reserve, pay } = await setup();
    const sold = await list('s1');
    expect((await pay(await reserve(sold.id))).kind).toBe('paid');
    const held = await list('s2');
    const pending = await reserve(held.id);
    const open = await list('s3');

    const log: string[] = [];
    const spy = <T extends object>(target: T, method: keyof T & string, name: string) => {
      const real = (target[method] as (...args: unknown[]) => unknown).bind(target);
      vi.spyOn(target, method as never).mockImplementation((async (...args: unknown[]) => {
        log.push(`${name}:start`);
        const out = await real(...args);
        log.push(`${name}:end`);
        return out;
      }) as never);
    };
    spy(t.deps.tickets, 'cancelForShow', 'tickets');
    spy(t.deps.payments, 'refundIntentions', 'refunds');
    spy(t.deps.payouts, 'cancelForListings', 'payouts');
    t.deps.bus.on('listing.ended', (_tx, e) => void log.push(`listing.ended:${e.listingId === held.id ? 'held' : e.listingId === open.id ? 'open' : e.listingId}`));

    expect((await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private })).status).toBe(200);
    expect(log).toEqual(['tickets:start', 'listing.ended:held', 'listing.ended:open', 'tickets:end', 'refunds:start', 'refunds:end', 'payouts:start', 'payouts:end']);

    // What each step left behind.
    expect(await t.deps.listings.get(t.db, p.id, held.id)).toMatchObject({ state: 'TERMINATED', endReason: 'ticket_cancelled' });
    expect(await t.deps.listings.get(t.db, p.id, open.id)).toMatchObject({ state: 'TERMINATED', endReason: 'ticket_cancelled' });
    expect(await t.deps.intentions.get(t.db, p.id, pending.id)).toMatchObject({ state: 'CANCELLED', endReason: 'listing_unavailable' });
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['refund_pending']);
    expect((await t.db.select().from(payouts)).map((x) => x.state)).toEqual(['CANCELLED']);
    expect(await inOrder(['s1', 's2', 's3', 's4'], async (id) => (await t.deps.tickets.get(t.db, p.id, id)).state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED']);
    const ended = (await t.db
      .select()
      .from(webhookMessages)
      .orderBy(asc(webhookMessages.id)))
      .filter((m) => m.action === 'listing.deleted')
      .map((m) => (webhookBodyOf(m).data as { listingId: string }).listingId);
    expect(ended.sort()).toEqual([held.id, open.id].sort());
  });

  it('rolls the whole cancellation back when a step fails', async () => {
    const { t, p, list, reserve, pay } = await setup();
    const sold = await list('s1');
    expect((await pay(await reserve(sold.id))).kind).toBe('paid');
    vi.spyOn(t.deps.payouts, 'cancelForListings').mockImplementation(() => {
      throw new Error('payouts unavailable');
    });
    expect((await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private })).status).toBe(500);
    expect((await t.deps.tickets.get(t.db, p.id, 's2')).state).toBe('VALID');
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['succeeded']);
    expect((await t.request('GET', '/v1/events/tour', { key: p.keys.private })).body.data.shows.find((s: { showId: string }) => s.showId === 'show-1').status).not.toBe('CANCELLED');
  });
});
