import { and, eq, inArray, lte, or } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { affected } from '../../db/affected.js';
import { newId } from '../../lib/ids.js';
import { toMajor } from '../../lib/money.js';
import { partnerUserId, userOf } from '../users/users.queries.js';
import { payouts } from './payouts.table.js';
import { payoutDeliveredLines } from '../ledger/ledger.accounts.js';
import { ConnectAccounts } from './payouts.connect.js';
import type { Kernel } from '../../lib/kernel.js';
import type { LedgerService } from '../ledger/ledger.service.js';
import type { WebhooksService } from '../webhooks/webhooks.service.js';

export type PayoutRow = typeof payouts.$inferSelect;

const DAY = 86_400_000;

/** A payout claimed SENDING this long ago without an answer (the process died) is tried again, under the same idempotency key. */
const SENDING_STALE_MS = 5 * 60_000;

/**
 * What sellers are owed for their sold listings, and its delivery. The payouts table is
 * written only here: `schedule` when a resale completes (flows/complete-purchase.ts),
 * `cancelForListings` when the show is cancelled before delivery (flows/cancel-show.ts), and
 * `deliverDue` by the refunds-and-payouts job. A delivered payout is final.
 */
export class PayoutsService {
  constructor(
    private readonly deps: Pick<Kernel, 'db' | 'clock' | 'logger'> & { webhooks: WebhooksService; ledger: LedgerService },
    /** Sellers' connected accounts at the payout provider (Stripe Connect); null: the sandbox (IBAN, no money moves). */
    readonly connect: ConnectAccounts | null = null,
  ) {}

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
   * Delivers payouts whose date has come (a delivered payout is final: never touched again).
   * Without a payout provider (the sandbox) each is marked delivered in its own transaction.
   * With one (Stripe Connect) each is claimed SENDING first, then transferred to the seller's
   * connected account under the idempotency key `payout:<id>`, then DELIVERED; a seller whose
   * account is not ready yet, or a refused transfer, leaves it SCHEDULED for the next run (with
   * the reason in `lastError`). Delivery writes its `payout_delivered` journal and the
   * `payouts.delivered` webhook. Returns how many were delivered.
   */
  async deliverDue(limit = 200): Promise<number> {
    const now = this.deps.clock.now();
    const stale = now - SENDING_STALE_MS;
    const due = await this.deps.db.read(
      async (tx) =>
        await tx
          .select()
          .from(payouts)
          .where(or(and(eq(payouts.state, 'SCHEDULED'), lte(payouts.dueAt, now)), and(eq(payouts.state, 'SENDING'), lte(payouts.sendingAt, stale))))
          .limit(limit),
    );
    let n = 0;
    for (const p of due) {
      if (!this.connect) {
        if (await this.deps.db.transact(async (tx) => await this.markDelivered(tx, p.id, 'SCHEDULED', null))) n++;
        continue;
      }
      const account = await this.deps.db.read(async (tx) => await this.connect!.get(tx, p.sellerPk));
      if (!account || !ConnectAccounts.ready(account)) {
        await this.noteRefusal(p, 'seller_account_not_ready');
        continue;
      }
      const claimed = await this.deps.db.transact(
        async (tx) =>
          affected(
            await tx
              .update(payouts)
              .set({ state: 'SENDING', sendingAt: now, updatedAt: now })
              .where(and(eq(payouts.id, p.id), or(eq(payouts.state, 'SCHEDULED'), and(eq(payouts.state, 'SENDING'), lte(payouts.sendingAt, stale))))),
          ) === 1,
      );
      if (!claimed) continue;
      const r = await this.connect.provider.transfer({ accountId: account.accountId, amountMinor: p.amountMinor, currency: p.currency, idempotencyKey: `payout:${p.id}`, group: null, metadata: { payoutId: p.id, listingId: p.listingId } });
      if (!r.ok) {
        await this.deps.db.transact(async (tx) => await tx.update(payouts).set({ state: 'SCHEDULED', lastError: r.code, updatedAt: this.deps.clock.now() }).where(and(eq(payouts.id, p.id), eq(payouts.state, 'SENDING'))));
        this.deps.logger[r.retryable ? 'warn' : 'error']({ payoutId: p.id, code: r.code }, r.retryable ? 'payout transfer refused; will retry' : 'payout transfer refused and retrying will not help: look at the seller’s account');
        continue;
      }
      if (await this.deps.db.transact(async (tx) => await this.markDelivered(tx, p.id, 'SENDING', r.ref))) n++;
    }
    return n;
  }

  /** Why a due payout was not sent, kept once (not rewritten every run). */
  private async noteRefusal(p: PayoutRow, code: string): Promise<void> {
    if (p.lastError === code) return;
    await this.deps.db.transact(async (tx) => await tx.update(payouts).set({ lastError: code, updatedAt: this.deps.clock.now() }).where(and(eq(payouts.id, p.id), eq(payouts.state, 'SCHEDULED'))));
  }

  /** `from` → DELIVERED, conditional, with its journal and webhook. False when it was not in `from` any more. */
  private async markDelivered(tx: Tx, payoutId: string, from: 'SCHEDULED' | 'SENDING', transferRef: string | null): Promise<boolean> {
    const now = this.deps.clock.now();
    const p = (await tx.update(payouts).set({ state: 'DELIVERED', deliveredAt: now, transferRef, lastError: null, updatedAt: now }).where(and(eq(payouts.id, payoutId), eq(payouts.state, from))).returning())[0];
    if (!p) return false;
    await this.deps.ledger.post(tx, { partnerId: p.partnerId, kind: 'payout_delivered', key: `payout_delivered:${p.id}`, currency: p.currency, payoutId: p.id, provider: this.connect?.provider.name ?? null, providerRef: transferRef, lines: payoutDeliveredLines(p.amountMinor) });
    const seller = await userOf(tx, p.sellerPk);
    await this.deps.webhooks.enqueue(tx, p.partnerId, {
      action: 'payouts.delivered',
      resourceKey: `payout:${p.id}`,
      data: { payoutId: p.id, sellerId: partnerUserId(seller), amount: toMajor(p.amountMinor, p.currency), currency: p.currency, listingIds: [p.listingId], deliveredAt: toIso(now) },
    });
    return true;
  }
}
