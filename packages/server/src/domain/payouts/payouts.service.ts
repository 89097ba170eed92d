import { and, eq, inArray, lte, or } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { affected } from '../../db/affected.js';
import { ApiError } from '../../lib/errors.js';
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

/**
 * What an attempt to deliver one payout came to: `delivered`; `refused` (the seller's account
 * is not ready, or the provider refused the transfer: left SCHEDULED with `code` as its
 * `lastError`, for the next run); `busy` (the job, or another attempt, claimed or delivered it
 * first: nothing done here); `not_overdue` (not due yet, being sent right now, delivered or
 * cancelled: nothing done).
 */
export type PayoutAttempt = { outcome: 'delivered' } | { outcome: 'refused'; code: string } | { outcome: 'busy' } | { outcome: 'not_overdue' };

/** Runs in the transaction of an attempt's change (the claim, or the refusal noted): the payout before, its state and `lastError` after. */
export type PayoutAttemptHook = (tx: Tx, before: PayoutRow, after: { state: PayoutRow['state']; lastError: string | null }) => Promise<void>;

const DAY = 86_400_000;

/** A payout claimed SENDING this long ago without an answer (the process died) is tried again, under the same idempotency key. */
const SENDING_STALE_MS = 5 * 60_000;

/**
 * Whether the payout job should have delivered `p` by `now` and may take it: SCHEDULED and due,
 * or SENDING for {@link SENDING_STALE_MS} without an answer. A fresh SENDING one is in flight.
 */
export function payoutOverdue(p: Pick<PayoutRow, 'state' | 'dueAt' | 'sendingAt'>, now: number): boolean {
  if (p.state === 'SCHEDULED') return p.dueAt <= now;
  return p.state === 'SENDING' && p.sendingAt !== null && p.sendingAt <= now - SENDING_STALE_MS;
}

/**
 * What sellers are owed for their sold listings, and its delivery. The payouts table is
 * written only here: `schedule` when a resale completes (flows/complete-purchase.ts),
 * `cancelForListings` when the show is cancelled before delivery (flows/cancel-show.ts), and
 * `deliverDue` by the refunds-and-payouts job (and `deliverNow`, one overdue payout on the
 * job's path, for an operator). A delivered payout is final.
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
    for (const p of due) if ((await this.deliverOne(p, now)).outcome === 'delivered') n++;
    return n;
  }

  /**
   * Delivers one overdue payout now, on the payout job's own path (`deliverDue`'s, for this one
   * payout): for an operator who will not wait for the next run. Overdue means what the job
   * would take: SCHEDULED and due, or SENDING for 5 minutes without an answer (a crashed claim).
   * Never two transfers: the payout is claimed with the job's conditional claim (SCHEDULED, or
   * a stale SENDING, → SENDING), so the job and a retry never both send it, and the transfer
   * carries the same idempotency key `payout:<id>`, so a claim taken again after a crash gets
   * the provider's first transfer back. A payout being sent right now (a fresh SENDING) is not
   * overdue and is left alone. `onAttempt` runs in the transaction that claims it (or that notes
   * why it cannot be sent), with the payout before and its state after: where the caller
   * records the attempt (the audit). Only this partner's with `partnerId`.
   *
   * @throws ApiError 404 for an unknown payout (or another partner's)
   * @example const r = await payouts.deliverNow('po_…'); // { outcome: 'delivered' }
   */
  async deliverNow(payoutId: string, opts: { partnerId?: string | undefined; onAttempt?: PayoutAttemptHook } = {}): Promise<PayoutAttempt> {
    const now = this.deps.clock.now();
    const p = (await this.deps.db.read(async (tx) => await tx.select().from(payouts).where(and(eq(payouts.id, payoutId), opts.partnerId === undefined ? undefined : eq(payouts.partnerId, opts.partnerId))).limit(1)))[0];
    if (!p) throw ApiError.notFound('payout', payoutId);
    if (!payoutOverdue(p, now)) return { outcome: 'not_overdue' };
    return this.deliverOne(p, now, opts.onAttempt);
  }

  /** One due payout through delivery, as the job does it: see {@link deliverDue}. */
  private async deliverOne(p: PayoutRow, now: number, onAttempt?: PayoutAttemptHook): Promise<PayoutAttempt> {
    if (!this.connect) {
      const delivered = await this.deps.db.transact(async (tx) => {
        if (!(await this.markDelivered(tx, p.id, 'SCHEDULED', null))) return false;
        await onAttempt?.(tx, p, { state: 'DELIVERED', lastError: null });
        return true;
      });
      return delivered ? { outcome: 'delivered' } : { outcome: 'busy' };
    }
    const account = await this.deps.db.read(async (tx) => await this.connect!.get(tx, p.sellerPk));
    if (!account || !ConnectAccounts.ready(account)) {
      await this.noteRefusal(p, 'seller_account_not_ready', onAttempt);
      return { outcome: 'refused', code: 'seller_account_not_ready' };
    }
    const stale = now - SENDING_STALE_MS;
    const claimed = await this.deps.db.transact(async (tx) => {
      const ok =
        affected(
          await tx
            .update(payouts)
            .set({ state: 'SENDING', sendingAt: now, updatedAt: now })
            .where(and(eq(payouts.id, p.id), or(eq(payouts.state, 'SCHEDULED'), and(eq(payouts.state, 'SENDING'), lte(payouts.sendingAt, stale))))),
        ) === 1;
      if (ok) await onAttempt?.(tx, p, { state: 'SENDING', lastError: p.lastError });
      return ok;
    });
    if (!claimed) return { outcome: 'busy' };
    const r = await this.connect.provider.transfer({ accountId: account.accountId, amountMinor: p.amountMinor, currency: p.currency, idempotencyKey: `payout:${p.id}`, group: null, metadata: { payoutId: p.id, listingId: p.listingId } });
    if (!r.ok) {
      await this.deps.db.transact(async (tx) => await tx.update(payouts).set({ state: 'SCHEDULED', lastError: r.code, updatedAt: this.deps.clock.now() }).where(and(eq(payouts.id, p.id), eq(payouts.state, 'SENDING'))));
      this.deps.logger[r.retryable ? 'warn' : 'error']({ payoutId: p.id, code: r.code }, r.retryable ? 'payout transfer refused; will retry' : 'payout transfer refused and retrying will not help: look at the seller’s account');
      return { outcome: 'refused', code: r.code };
    }
    return (await this.deps.db.transact(async (tx) => await this.markDelivered(tx, p.id, 'SENDING', r.ref))) ? { outcome: 'delivered' } : { outcome: 'busy' };
  }

  /** Why a due payout was not sent, kept once (not rewritten every run); with `onAttempt`, in a transaction of its own whether it changed or not. */
  private async noteRefusal(p: PayoutRow, code: string, onAttempt?: PayoutAttemptHook): Promise<void> {
    if (p.lastError === code && !onAttempt) return;
    await this.deps.db.transact(async (tx) => {
      if (p.lastError !== code) await tx.update(payouts).set({ lastError: code, updatedAt: this.deps.clock.now() }).where(and(eq(payouts.id, p.id), eq(payouts.state, 'SCHEDULED')));
      await onAttempt?.(tx, p, { state: p.state, lastError: code });
    });
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
