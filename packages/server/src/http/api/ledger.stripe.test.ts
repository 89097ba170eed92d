import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers } from '../../testing/servers.js';
import { checkoutSetup } from '../../domain/payments/checkout.testing.js';
import { onboardSeller, stripeWorld } from '../../domain/payments/stripe.testing.js';
import { payments, providerEvents } from '../../domain/payments/payments.table.js';
import { payouts } from '../../domain/payouts/payouts.table.js';
import { ledgerJournals } from '../../domain/ledger/ledger.table.js';

const servers: Server[] = [];
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await closeServers(servers);
  await Promise.all(open.splice(0).map((o) => o.close()));
});

const PERIOD = 'from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z';

/** Two resales paid through Stripe: s1's seller paid out, then s2's show… both of show-1. */
async function journeys() {
  const w = await stripeWorld(servers, open);
  await onboardSeller(w, 'seller@example.com');
  const pay = async (ticketId: string) => {
    const l = await w.list(ticketId);
    const { page } = await w.checkout(l.id);
    await w.confirm(w.piOf(page.text)!, 'pm_card_visa');
    return l;
  };
  return { ...w, pay };
}

describe('GET /admin/v1/ledger/reconciliation (Stripe)', () => {
  it('matches every charge with its fee, every transfer and refund with its journal: a sale paid out, then a cancelled show refunded', async () => {
    const w = await journeys();
    const first = await w.pay('s1');
    const payout = (await w.t.db.select().from(payouts).where(eq(payouts.listingId, first.id)))[0]!;
    w.t.clock.set(payout.dueAt);
    expect(await w.t.deps.payouts.deliverDue()).toBe(1);
    w.t.clock.set('2026-03-02T12:00:00Z');
    await w.pay('s2');
    expect((await w.t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: w.p.keys.private })).status).toBe(200);
    expect(await w.t.deps.payments.runRefunds()).toBe(2);
    const res = await w.t.request('GET', `/admin/v1/ledger/reconciliation?${PERIOD}`, { operator: true });
    expect(res.status).toBe(200);
    // Two charges, one transfer, two refunds.
    expect(res.body.data).toMatchObject({ provider: 'stripe', available: true, checked: 5, matched: 5, mismatches: [], other: [] });
  });

  it('names a refund made in Stripe’s dashboard, which no journal records', async () => {
    const w = await journeys();
    const { page } = await w.checkout((await w.list('s1')).id);
    const pi = w.piOf(page.text)!;
    await w.confirm(pi, 'pm_card_visa');
    // An operator refunds in Stripe directly: the service sees refund.created for a payment it has not refunded.
    const refund = await w.double.sdk().refunds.create({ payment_intent: pi, amount: 1000 });
    const res = await w.t.request('GET', `/admin/v1/ledger/reconciliation?${PERIOD}`, { operator: true });
    expect(res.body.data.matched).toBe(1);
    expect(res.body.data.mismatches).toEqual([expect.objectContaining({ reason: 'missing_in_ledger', providerRef: refund.id, providerType: 'refund', providerAmountMinor: -1000, ledgerAmountMinor: null, currency: 'EUR' })]);
  });

  it('books a chargeback from Stripe’s events (a loss, Stripe’s fee) and its reinstatement, alerts the operator, and names a payout reversed in the dashboard, which the service never books', async () => {
    const w = await journeys();
    const l = await w.pay('s1');
    const payout = (await w.t.db.select().from(payouts).where(eq(payouts.listingId, l.id)))[0]!;
    w.t.clock.set(payout.dueAt);
    expect(await w.t.deps.payouts.deliverDue()).toBe(1);
    const transferRef = (await w.t.db.select().from(payouts).where(eq(payouts.id, payout.id)))[0]!.transferRef!;
    const kinds = async () => (await w.t.db.select().from(ledgerJournals)).map((j) => j.kind).sort();
    const before = await kinds();

    const payment = (await w.t.db.select().from(payments))[0]!;
    const disputeId = await w.double.openDispute(payment.providerRef);
    const reversal = await w.double.sdk().transfers.createReversal(transferRef);
    // Every event reached the service, verified, answered 2xx, processed once (a redelivery changes nothing).
    for (const type of ['charge.dispute.created', 'charge.dispute.funds_withdrawn', 'transfer.reversed']) {
      const event = w.double.events.find((e) => e.type === type)!;
      expect(w.double.deliveries.filter((d) => d.eventId === event.id).map((d) => d.status), type).toEqual([200]);
      expect(await w.t.db.select().from(providerEvents).where(eq(providerEvents.eventId, event.id))).toHaveLength(1);
      expect((await w.double.redeliver(event.id)).status).toBe(200);
    }
    // The withdrawal is booked (with Stripe's dispute fee); the reversed payout is not.
    expect(await kinds()).toEqual([...before, 'dispute_withdrawn', 'provider_fee'].sort());
    const disputeJournals = await w.t.db.select().from(ledgerJournals).where(eq(ledgerJournals.providerRef, disputeId));
    expect(disputeJournals.map((j) => ({ kind: j.kind, partnerId: j.partnerId, intentionId: j.intentionId }))).toEqual(
      expect.arrayContaining([
        { kind: 'dispute_withdrawn', partnerId: w.p.id, intentionId: payment.intentionId },
        { kind: 'provider_fee', partnerId: w.p.id, intentionId: payment.intentionId },
      ]),
    );
    expect((await w.t.db.select().from(payouts))[0]!.state).toBe('DELIVERED');
    const metrics = await (await w.t.app.request('/metrics', { headers: { authorization: `Bearer ${w.t.deps.config.operatorToken}` } })).text();
    expect(metrics).toContain('resale_payment_provider_attention_total{what="dispute"} 1');
    expect(metrics).toContain('resale_payment_provider_attention_total{what="transfer_reversed"} 1');

    const reconciled = async () => (await w.t.request('GET', `/admin/v1/ledger/reconciliation?${PERIOD}`, { operator: true })).body.data;
    // The charge, the transfer and the dispute match; only the reversal is missing from the ledger.
    expect(await reconciled()).toMatchObject({
      checked: 4,
      matched: 3,
      mismatches: [{ reason: 'missing_in_ledger', providerRef: reversal.id, providerType: 'transfer_refund', providerCategory: 'transfer_reversal', providerAmountMinor: 3800 }],
    });
    const report = async () => (await w.t.request('GET', `/admin/v1/ledger?${PERIOD}`, { operator: true })).body.data.currencies[0];
    const fee = Math.round(4400 * 0.029) + 30;
    expect((await report()).accounts).toContainEqual({ account: 'dispute_losses', amountMinor: 4400, amount: 44 });
    expect((await report()).accounts).toContainEqual({ account: 'provider_fees', amountMinor: fee + 1500, amount: (fee + 1500) / 100 });
    expect((await report()).balanced).toBe(true);

    // Won: the amount is back, the loss with it; Stripe keeps its fee.
    await w.double.closeDispute(disputeId, true);
    expect(await kinds()).toEqual([...before, 'dispute_withdrawn', 'provider_fee', 'dispute_reinstated'].sort());
    expect((await report()).accounts).toContainEqual({ account: 'dispute_losses', amountMinor: 0, amount: 0 });
    expect(await reconciled()).toMatchObject({ checked: 5, matched: 4 });
  });

  it('is unavailable with the sandbox, 503 when Stripe does not answer, and refuses bad periods and partner keys', async () => {
    const sandbox = await checkoutSetup(servers);
    expect((await sandbox.t.request('GET', `/admin/v1/ledger/reconciliation?${PERIOD}`, { operator: true })).body.data).toMatchObject({ provider: 'sandbox', available: false, checked: 0, mismatches: [] });
    const w = await journeys();
    w.double.failNext('GET /v1/balance_transactions', { status: 429 });
    const down = await w.t.request('GET', `/admin/v1/ledger/reconciliation?${PERIOD}`, { operator: true });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('60');
    expect((await w.t.request('GET', '/admin/v1/ledger/reconciliation?from=2027-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', { operator: true })).status).toBe(400);
    expect((await w.t.request('GET', '/admin/v1/ledger/reconciliation?from=2026-01-01T00:00:00Z', { operator: true })).status).toBe(400);
    expect((await w.t.request('GET', `/admin/v1/ledger/reconciliation?${PERIOD}`, { key: w.p.keys.private })).status).toBe(401);
  });
});
