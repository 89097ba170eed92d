import { and, eq, inArray, lte } from 'drizzle-orm';
import type { AppDeps } from '../../context.js';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { affected } from '../../db/affected.js';
import { newId } from '../../lib/ids.js';
import { toMajor } from '../../lib/money.js';
import { userOf } from '../users/users.queries.js';
import { payouts } from './payouts.table.js';
import { payoutDeliveredLines } from '../ledger/ledger.accounts.js';

export type PayoutRow = typeof payouts.$inferSelect;

const DAY = 86_400_000;

/**
 * What sellers are owed for their sold listings, and its delivery. The payouts table is
 * written only here: `schedule` when a resale completes (flows/complete-purchase.ts),
 * `cancelForListings` when the show is cancelled before delivery (flows/cancel-show.ts), and
 * `deliverDue` by the refunds-and-payouts job. A delivered payout is final.
 */
export class PayoutsService {
  constructor(private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'webhooks' | 'ledger'>) {}

  /** The date a sale's payout is due: `payoutDelayDays` after the show starts. */
  dueAt(showStartsAt: number, payoutDelayDays: number): number {
    return showStartsAt + payoutDelayDays * DAY;
  }

  /** Schedules the payout of one sold listing (one per listing: the unique index says so). */
  async schedule(tx: Tx, input: { partnerId: string; sellerPk: string; listingId: string; amountMinor: number; currency: string; dueAt: number }): Promise<PayoutRow> {
    const now = this.deps.clock.now();
    return (await tx
      .insert(payouts)
      .values({ id: newId('payout'), ...input, state: 'SCHEDULED', deliveredAt: null, cancelledAt: null, createdAt: now, updatedAt: now })
      .returning())[0]!;
  }

  /** Stops the payouts not yet delivered of these listings (their show was cancelled). Returns how many. */
  async cancelForListings(tx: Tx, listingIds: readonly string[]): Promise<number> {
    if (listingIds.length === 0) return 0;
    const now = this.deps.clock.now();
    return affected(
      await tx
        .update(payouts)
        .set({ state: 'CANCELLED', cancelledAt: now, updatedAt: now })
        .where(and(inArray(payouts.listingId, [...listingIds]), eq(payouts.state, 'SCHEDULED'))),
    );
  }

  /**
   * Delivers payouts whose date has come, each in its own transaction with its
   * `payouts.delivered` webhook and its journal in the ledger (final: a delivered payout is never touched). Returns how many.
   */
  async deliverDue(limit = 200): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.db.read(async (tx) => await tx.select().from(payouts).where(and(eq(payouts.state, 'SCHEDULED'), lte(payouts.dueAt, now))).limit(limit));
    let n = 0;
    for (const p of due) {
      await this.deps.db.transact(async (tx) => {
        const moved = await tx.update(payouts).set({ state: 'DELIVERED', deliveredAt: now, updatedAt: now }).where(and(eq(payouts.id, p.id), eq(payouts.state, 'SCHEDULED')));
        if (affected(moved) !== 1) return;
        n++;
        await this.deps.ledger.post(tx, { partnerId: p.partnerId, kind: 'payout_delivered', key: `payout_delivered:${p.id}`, currency: p.currency, payoutId: p.id, lines: payoutDeliveredLines(p.amountMinor) });
        const seller = await userOf(tx, p.sellerPk);
        await this.deps.webhooks.enqueue(tx, p.partnerId, {
          action: 'payouts.delivered',
          resourceKey: `payout:${p.id}`,
          data: { payoutId: p.id, sellerId: seller.externalId ?? seller.email ?? seller.phone ?? seller.id, amount: toMajor(p.amountMinor, p.currency), currency: p.currency, listingIds: [p.listingId], deliveredAt: toIso(now) },
        });
      });
    }
    return n;
  }
}
