import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { answerVerification } from '../../flows/checkout.js';
import { setup } from '../../flows/flows.testing.js';
import { SANDBOX_CARDS } from '../../domain/payments/payments.provider.js';
import { payouts } from '../../domain/payouts/payouts.table.js';
import { journalsOfIntention, ledgerTotals } from '../../domain/ledger/ledger.queries.js';
import { ledgerEntries, ledgerJournals } from '../../domain/ledger/ledger.table.js';
import type { TestApp } from '../../testing/harness.js';

type Journey = Awaited<ReturnType<typeof setup>>;

/** Every account's balance over the whole ledger, per currency: each must sum to zero. */
async function balances(t: TestApp): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const row of await t.db.select().from(ledgerEntries)) {
    const c = (out[row.currency] ??= {});
    c[row.account] = (c[row.account] ?? 0) + row.amountMinor;
  }
  for (const [currency, accounts] of Object.entries(out)) {
    expect(Object.values(accounts).reduce((a, b) => a + b, 0), `the ledger of ${currency} sums to zero`).toBe(0);
    for (const k of Object.keys(accounts)) if (accounts[k] === 0) delete accounts[k];
    if (Object.keys(accounts).length === 0) delete out[currency];
  }
  return out;
}

const lines = (journal: { lines: { account: string; amountMinor: number }[] }) => Object.fromEntries(journal.lines.map((l) => [l.account, l.amountMinor]));

/** A resale of s1 at €40 (buyer fee €4, seller fee €2, payout €38), paid by card. */
async function sell(j: Journey) {
  const listing = await j.list('s1');
  const intention = await j.reserve(listing.id);
  expect((await j.pay(intention)).kind).toBe('paid');
  return { listing, intention };
}

async function deliverPayout(j: Journey, listingId: string) {
  const payout = (await j.t.db.select().from(payouts).where(eq(payouts.listingId, listingId)))[0]!;
  j.t.clock.set(payout.dueAt);
  expect(await j.t.deps.payouts.deliverDue()).toBe(1);
}

async function cancelShow(j: Journey) {
  expect((await j.t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: j.p.keys.private })).status).toBe(200);
}

describe('the ledger across every journey (sandbox provider)', () => {
  it('a sale: the charge in, the seller owed, the fees earned; then the payout out', async () => {
    const j = await setup();
    const { listing, intention } = await sell(j);
    const [sale] = await j.t.db.read(async (tx) => await journalsOfIntention(tx, intention.id));
    expect(sale).toMatchObject({ kind: 'sale', key: `sale:${intention.id}`, currency: 'EUR', provider: 'sandbox', partnerId: j.p.id });
    expect(sale!.providerRef).toMatch(/^sbx_/);
    expect(lines(sale!)).toEqual({ provider_balance: 4400, seller_payable: -3800, buyer_fee_revenue: -400, seller_fee_revenue: -200 });
    expect(await balances(j.t)).toEqual({ EUR: { provider_balance: 4400, seller_payable: -3800, buyer_fee_revenue: -400, seller_fee_revenue: -200 } });
    await deliverPayout(j, listing.id);
    // Delivered once: a second run of the job posts nothing more.
    expect(await j.t.deps.payouts.deliverDue()).toBe(0);
    expect(await balances(j.t)).toEqual({ EUR: { provider_balance: 600, buyer_fee_revenue: -400, seller_fee_revenue: -200 } });
  });

  it('a declined card moves no money: no journal', async () => {
    const j = await setup();
    const intention = await j.reserve((await j.list('s1')).id);
    expect((await j.pay(intention, SANDBOX_CARDS.declined)).kind).toBe('declined');
    expect(await j.t.db.select().from(ledgerJournals)).toEqual([]);
  });

  it('a payment that came in after the hold ran out: owed back, then refunded', async () => {
    const j = await setup();
    const intention = await j.reserve((await j.list('s1')).id);
    const asked = await j.pay(intention, SANDBOX_CARDS.verification);
    const payment = (await j.t.deps.payments.find(j.t.db, j.p.id, (asked as { paymentId: string }).paymentId))!;
    j.t.clock.set(intention.expiresAt + 1000);
    expect((await answerVerification(j.t.deps, payment, true)).kind).toBe('ended');
    expect(await balances(j.t)).toEqual({ EUR: { provider_balance: 4400, refunds_payable: -4400 } });
    expect(await j.t.deps.payments.runRefunds()).toBe(1);
    expect(await balances(j.t)).toEqual({});
    expect((await j.t.db.read(async (tx) => await journalsOfIntention(tx, intention.id))).map((x) => x.kind)).toEqual(['late_payment', 'refund_paid']);
  });

  it('a show cancelled before the payout: the buyer refunded in full, the fees given back, the payout stopped', async () => {
    const j = await setup();
    const { intention } = await sell(j);
    await cancelShow(j);
    expect(await balances(j.t)).toEqual({ EUR: { provider_balance: 4400, refunds_payable: -4400 } });
    expect(await j.t.deps.payments.runRefunds()).toBe(1);
    expect(await balances(j.t)).toEqual({});
    const journals = await j.t.db.read(async (tx) => await journalsOfIntention(tx, intention.id));
    expect(journals.map((x) => x.kind)).toEqual(['sale', 'refund_due', 'refund_paid']);
    expect(lines(journals[1]!)).toEqual({ refunds_payable: -4400, buyer_fee_revenue: 400, seller_fee_revenue: 200, seller_payable: 3800 });
  });

  it('a show cancelled after the payout: the buyer refunded in full, the delivered payout a loss, never reversed', async () => {
    const j = await setup();
    const { listing } = await sell(j);
    await deliverPayout(j, listing.id);
    j.t.clock.set('2026-03-02T12:00:00Z');
    await cancelShow(j);
    expect(await j.t.deps.payments.runRefunds()).toBe(1);
    expect(await balances(j.t)).toEqual({ EUR: { provider_balance: -3800, payout_losses: 3800 } });
    expect((await j.t.db.select().from(payouts))[0]!.state).toBe('DELIVERED');
  });

  it('rolls the sale back whole when its journal cannot be written', async () => {
    const j = await setup();
    const listing = await j.list('s1');
    const intention = await j.reserve(listing.id);
    vi.spyOn(j.t.deps.ledger, 'post').mockRejectedValueOnce(new Error('ledger unavailable'));
    await expect(j.pay(intention)).rejects.toThrow('ledger unavailable');
    expect((await j.t.deps.intentions.get(j.t.db, j.p.id, intention.id)).state).toBe('PENDING');
    expect((await j.t.deps.listings.get(j.t.db, j.p.id, listing.id)).state).toBe('RESERVED');
    expect(await j.t.db.select().from(payouts)).toEqual([]);
  });

  it('posts a movement once: the same key again writes nothing', async () => {
    const j = await setup();
    const { intention } = await sell(j);
    const again = await j.t.db.transact(async (tx) => await j.t.deps.ledger.post(tx, { partnerId: j.p.id, kind: 'sale', key: `sale:${intention.id}`, currency: 'EUR', lines: [{ account: 'provider_balance', amountMinor: 1 }, { account: 'seller_payable', amountMinor: -1 }] }));
    expect(again).toBe(false);
    expect(await j.t.db.select().from(ledgerJournals)).toHaveLength(1);
    expect(await j.t.db.select().from(ledgerEntries)).toHaveLength(4);
  });
});

describe('GET /admin/v1/ledger', () => {
  const period = 'from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z';

  it('reports a period’s totals per currency, balanced, with the movements of each kind', async () => {
    const j = await setup();
    await sell(j);
    await cancelShow(j);
    const res = await j.t.request('GET', `/admin/v1/ledger?${period}`, { operator: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ from: '2026-01-01T00:00:00.000Z', to: '2027-01-01T00:00:00.000Z', partnerId: null });
    const [eur] = res.body.data.currencies;
    expect(eur).toMatchObject({ currency: 'EUR', balanced: true, journals: [{ kind: 'sale', count: 1 }, { kind: 'refund_due', count: 1 }] });
    expect(eur.accounts).toContainEqual({ account: 'provider_balance', amountMinor: 4400, amount: 44 });
    expect(eur.accounts).toContainEqual({ account: 'refunds_payable', amountMinor: -4400, amount: -44 });
    expect(eur.accounts.map((a: { account: string }) => a.account)).toEqual(['provider_balance', 'seller_payable', 'buyer_fee_revenue', 'seller_fee_revenue', 'refunds_payable', 'payout_losses', 'dispute_losses', 'provider_fees']);
    // The period excludes what happened outside it; the totals agree with the query.
    expect((await j.t.request('GET', '/admin/v1/ledger?from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z', { operator: true })).body.data.currencies).toEqual([]);
    expect(await j.t.db.read(async (tx) => await ledgerTotals(tx, { from: 0, to: Date.parse('2027-01-01') }))).toHaveLength(1);
  });

  it('reports one partner’s movements only', async () => {
    const j = await setup();
    await sell(j);
    const other = await j.t.partner('Other');
    expect((await j.t.request('GET', `/admin/v1/ledger?${period}&partnerId=${other.id}`, { operator: true })).body.data).toMatchObject({ partnerId: other.id, currencies: [] });
    expect((await j.t.request('GET', `/admin/v1/ledger?${period}&partnerId=${j.p.id}`, { operator: true })).body.data.currencies).toHaveLength(1);
  });

  it('refuses bad periods, unknown partners, partner keys and repeated parameters', async () => {
    const j = await setup();
    const bad = async (query: string, opts: { operator?: boolean; key?: string } = { operator: true }) => await j.t.request('GET', `/admin/v1/ledger?${query}`, opts);
    const missing = await bad('from=2026-01-01T00:00:00Z');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ path: 'to', in: 'query' });
    expect((await bad('from=yesterday&to=2027-01-01T00:00:00Z')).body.errors[0]).toMatchObject({ path: 'from' });
    const backwards = await bad('from=2027-01-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors[0]).toMatchObject({ path: 'to', message: 'must be after from' });
    expect((await bad(`${period}&partnerId=ptr_unknown`)).status).toBe(404);
    expect((await bad(`${period}&partnerId=a&partnerId=b`)).status).toBe(400);
    expect((await bad(period, {})).status).toBe(401);
    expect((await bad(period, { key: j.p.keys.private })).status).toBe(401);
  });
});
