import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from '../../flows/flows.testing.js';
import { closeServers } from '../../testing/servers.js';
import { ApiError } from '../../lib/errors.js';
import { onboardSeller, stripeWorld } from '../payments/stripe.testing.js';
import { ledgerJournals } from '../ledger/ledger.table.js';
import { payouts } from './payouts.table.js';
import type { PayoutAttemptHook } from './payouts.service.js';

/**
 * `PayoutsService.deliverNow`: one overdue payout delivered on the payout job's own path, for
 * an operator who will not wait for the next run; never a second transfer.
 */

const servers: Server[] = [];
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await closeServers(servers);
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** A hook that keeps what it was called with. */
function recorder() {
  const calls: { before: { state: string; lastError: string | null }; after: { state: string; lastError: string | null } }[] = [];
  const hook: PayoutAttemptHook = (_tx, before, after) => {
    calls.push({ before: { state: before.state, lastError: before.lastError }, after });
    return Promise.resolve();
  };
  return { calls, hook };
}

describe('deliverNow with the sandbox', () => {
  async function sold() {
    const j = await setup();
    const payoutOf = async (ticket: string) => {
      const listing = await j.list(ticket);
      expect((await j.pay(await j.reserve(listing.id))).kind).toBe('paid');
      return (await j.t.db.select().from(payouts).where(eq(payouts.listingId, listing.id)))[0]!;
    };
    const row = async (id: string) => (await j.t.db.select().from(payouts).where(eq(payouts.id, id)))[0]!;
    return { ...j, payoutOf, row };
  }

  it('delivers an overdue payout now, with its journal and webhook, in the transaction of the hook; then it is no longer overdue', async () => {
    const { t, p, payoutOf, row } = await sold();
    const payout = await payoutOf('s1');
    const { calls, hook } = recorder();
    // Not due yet: nothing done.
    expect(await t.deps.payouts.deliverNow(payout.id, { onAttempt: hook })).toEqual({ outcome: 'not_overdue' });
    expect((await row(payout.id)).state).toBe('SCHEDULED');
    expect(calls).toEqual([]);

    t.clock.set(payout.dueAt);
    expect(await t.deps.payouts.deliverNow(payout.id, { partnerId: p.id, onAttempt: hook })).toEqual({ outcome: 'delivered' });
    expect(await row(payout.id)).toMatchObject({ state: 'DELIVERED', deliveredAt: payout.dueAt, lastError: null });
    expect(calls).toEqual([{ before: { state: 'SCHEDULED', lastError: null }, after: { state: 'DELIVERED', lastError: null } }]);
    expect(await t.db.select().from(ledgerJournals).where(eq(ledgerJournals.kind, 'payout_delivered'))).toMatchObject([{ payoutId: payout.id }]);
    expect((await t.deps.webhooks.list(p.id, { action: 'payouts.delivered' })).map((m) => m.message.payload)).toMatchObject([{ data: { payoutId: payout.id, amount: 38 } }]);

    // Delivered: not overdue any more, and the job finds nothing either.
    expect(await t.deps.payouts.deliverNow(payout.id, { onAttempt: hook })).toEqual({ outcome: 'not_overdue' });
    expect(await t.deps.payouts.deliverDue()).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it('delivers nothing when the hook fails (it runs in the delivery’s transaction)', async () => {
    const { t, payoutOf, row } = await sold();
    const payout = await payoutOf('s1');
    t.clock.set(payout.dueAt);
    await expect(t.deps.payouts.deliverNow(payout.id, { onAttempt: () => Promise.reject(new Error('audit down')) })).rejects.toThrow('audit down');
    expect((await row(payout.id)).state).toBe('SCHEDULED');
    expect(await t.db.select().from(ledgerJournals).where(eq(ledgerJournals.kind, 'payout_delivered'))).toEqual([]);
  });

  it('answers 404 for an unknown payout and for another partner’s', async () => {
    const { t, payoutOf } = await sold();
    const payout = await payoutOf('s1');
    t.clock.set(payout.dueAt);
    const other = await t.partner('Other');
    const status = (err: unknown) => (err instanceof ApiError ? err.status : err);
    expect(await t.deps.payouts.deliverNow('po_unknown').catch(status)).toBe(404);
    expect(await t.deps.payouts.deliverNow(payout.id, { partnerId: other.id }).catch(status)).toBe(404);
    expect((await t.db.select().from(payouts).where(eq(payouts.id, payout.id)))[0]!.state).toBe('SCHEDULED');
  });
});

describe('deliverNow with Stripe Connect', () => {
  async function sold(opts: { onboard?: boolean } = { onboard: true }) {
    const w = await stripeWorld(servers, open);
    if (opts.onboard) await onboardSeller(w, 'seller@example.com');
    const l = await w.list('s1');
    const { page } = await w.checkout(l.id);
    await w.confirm(w.piOf(page.text)!, 'pm_card_visa');
    const payout = (await w.t.db.select().from(payouts).where(eq(payouts.listingId, l.id)))[0]!;
    const row = async () => (await w.t.db.select().from(payouts).where(eq(payouts.id, payout.id)))[0]!;
    const transfers = () => w.double.requests.filter((r) => r.method === 'POST' && r.path === '/v1/transfers');
    return { ...w, payout, row, transfers };
  }

  it('transfers a due payout now, once, under the job’s idempotency key', async () => {
    const { t, payout, row, transfers } = await sold();
    t.clock.set(payout.dueAt);
    const { calls, hook } = recorder();
    expect(await t.deps.payouts.deliverNow(payout.id, { onAttempt: hook })).toEqual({ outcome: 'delivered' });
    expect(transfers()).toMatchObject([{ idempotencyKey: `payout:${payout.id}` }]);
    expect(await row()).toMatchObject({ state: 'DELIVERED', transferRef: expect.stringMatching(/^tr_/) });
    // The hook runs with the claim, before the transfer.
    expect(calls).toEqual([{ before: { state: 'SCHEDULED', lastError: null }, after: { state: 'SENDING', lastError: null } }]);
    expect(await t.deps.payouts.deliverDue()).toBe(0);
    expect(await t.deps.payouts.deliverNow(payout.id)).toEqual({ outcome: 'not_overdue' });
    expect(transfers()).toHaveLength(1);
  });

  it('leaves alone a payout the job is sending, and takes a crashed claim again without a second transfer', async () => {
    const { t, double, payout, row, transfers, provider } = await sold();
    t.clock.set(payout.dueAt);
    // A run claimed it and asked Stripe, then died before writing the answer.
    const account = (await t.db.read(async (tx) => await t.deps.payouts.connect!.get(tx, payout.sellerPk)))!;
    expect((await provider.transfer({ accountId: account.accountId, amountMinor: payout.amountMinor, currency: payout.currency, idempotencyKey: `payout:${payout.id}`, group: null, metadata: { payoutId: payout.id, listingId: payout.listingId } })).ok).toBe(true);
    await t.db.update(payouts).set({ state: 'SENDING', sendingAt: t.clock.now() }).where(eq(payouts.id, payout.id));
    // In flight: not overdue, nothing asked of Stripe.
    expect(await t.deps.payouts.deliverNow(payout.id)).toEqual({ outcome: 'not_overdue' });
    expect(transfers()).toHaveLength(1);
    // Five minutes without an answer: the retry takes the claim again, Stripe answers the first transfer.
    t.clock.advance(5 * 60_000);
    expect(await t.deps.payouts.deliverNow(payout.id)).toEqual({ outcome: 'delivered' });
    expect((await row()).state).toBe('DELIVERED');
    expect(new Set(transfers().map((r) => (r as { idempotencyKey?: string }).idempotencyKey))).toEqual(new Set([`payout:${payout.id}`]));
    expect(double.events.filter((e) => e.type === 'transfer.created')).toHaveLength(1);
  });

  it('says why it could not: the seller’s account not ready, or the transfer refused, kept for the next run', async () => {
    const notReady = await sold({ onboard: false });
    notReady.t.clock.set(notReady.payout.dueAt);
    const { calls, hook } = recorder();
    expect(await notReady.t.deps.payouts.deliverNow(notReady.payout.id, { onAttempt: hook })).toEqual({ outcome: 'refused', code: 'seller_account_not_ready' });
    expect(await notReady.row()).toMatchObject({ state: 'SCHEDULED', lastError: 'seller_account_not_ready' });
    expect(calls).toEqual([{ before: { state: 'SCHEDULED', lastError: null }, after: { state: 'SCHEDULED', lastError: 'seller_account_not_ready' } }]);
    // Asked again, the hook runs again (each attempt is recorded), nothing else changes.
    expect(await notReady.t.deps.payouts.deliverNow(notReady.payout.id, { onAttempt: hook })).toEqual({ outcome: 'refused', code: 'seller_account_not_ready' });
    expect(calls).toHaveLength(2);
    expect(notReady.transfers()).toEqual([]);

    const { t, double, payout, row } = await sold();
    t.clock.set(payout.dueAt);
    double.failNext('POST /v1/transfers', { status: 400, body: { error: { type: 'invalid_request_error', code: 'balance_insufficient', message: 'Insufficient funds in Stripe account.' } } });
    expect(await t.deps.payouts.deliverNow(payout.id)).toEqual({ outcome: 'refused', code: 'balance_insufficient' });
    expect(await row()).toMatchObject({ state: 'SCHEDULED', lastError: 'balance_insufficient' });
    expect(await t.deps.payouts.deliverNow(payout.id)).toEqual({ outcome: 'delivered' });
    expect(await row()).toMatchObject({ state: 'DELIVERED', lastError: null });
  });
});
