import { and, eq, inArray } from 'drizzle-orm';
import type { AppDeps } from '../../context.js';
import type { Tx } from '../../db/client.js';
import { affected } from '../../db/affected.js';
import { newId } from '../../lib/ids.js';
import { showWithEvent } from '../events/events.queries.js';
import { intentionById, type IntentionRow } from '../intentions/intentions.queries.js';
import { partnerOf } from '../partners/partners.queries.js';
import { userByPk } from '../users/users.queries.js';
import type { CardInput, ChargeResult, PaymentProvider } from './payments.provider.js';
import { payments } from './payments.table.js';

export type PaymentRow = typeof payments.$inferSelect;

/**
 * Payments: charges through the payment provider and their records, the provider's extra
 * verification, and refunds. The payments table is written only here. What a payment means
 * for the rest (the purchase completed, the intention failed, a late payment refunded) is
 * composed by flows/checkout.ts; a cancelled show's refunds by flows/cancel-show.ts.
 */
export class PaymentsService {
  constructor(
    private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'messages' | 'logger'>,
    readonly provider: PaymentProvider,
  ) {}

  /** Charges the intention's total with the provider. At most one charge per intention (the provider key is its id). */
  charge(intention: IntentionRow, card: CardInput): Promise<ChargeResult> {
    return this.provider.charge({ amountMinor: intention.totalMinor, currency: intention.currency, card, idempotencyKey: intention.id });
  }

  /** Records the provider's answer to a charge; returns the payment. A repeated answer (same provider ref) keeps the first. */
  record(tx: Tx, intention: IntentionRow, result: ChargeResult, last4: string): PaymentRow {
    const now = this.deps.clock.now();
    tx.insert(payments)
      .values({
        id: newId('payment'),
        partnerId: intention.partnerId,
        intentionId: intention.id,
        provider: this.provider.name,
        providerRef: result.ref,
        state: result.status,
        amountMinor: intention.totalMinor,
        currency: intention.currency,
        cardLast4: last4,
        failureCode: result.status === 'declined' ? result.code : null,
        refundedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .run();
    return tx.select().from(payments).where(and(eq(payments.provider, this.provider.name), eq(payments.providerRef, result.ref))).get()!;
  }

  /** A payment of the partner, or undefined. */
  find(tx: Tx, partnerId: string, paymentId: string): PaymentRow | undefined {
    return tx.select().from(payments).where(and(eq(payments.id, paymentId), eq(payments.partnerId, partnerId))).get();
  }

  /** Asks the provider for the outcome of the extra verification the buyer answered. */
  confirm(payment: PaymentRow, approved: boolean): Promise<ChargeResult> {
    return this.provider.confirm(payment.providerRef, approved);
  }

  /**
   * requires_action → succeeded or declined, conditional: false when the payment was answered
   * already (a second answer changes nothing).
   */
  answer(tx: Tx, paymentId: string, result: ChargeResult): boolean {
    return (
      affected(
        tx
        .update(payments)
        .set({ state: result.status === 'succeeded' ? 'succeeded' : 'declined', failureCode: result.status === 'declined' ? result.code : null, updatedAt: this.deps.clock.now() })
        .where(and(eq(payments.id, paymentId), eq(payments.state, 'requires_action')))
        .run(),
      ) === 1
    );
  }

  /** The money came in for a checkout that had ended meanwhile: give it back (the refunds job does). */
  refundLate(tx: Tx, paymentId: string): void {
    tx.update(payments).set({ state: 'refund_pending', updatedAt: this.deps.clock.now() }).where(and(eq(payments.id, paymentId), eq(payments.state, 'succeeded'))).run();
  }

  /** Refunds every succeeded payment of these intentions (their show was cancelled). Returns how many. */
  refundIntentions(tx: Tx, intentionIds: readonly string[]): number {
    if (intentionIds.length === 0) return 0;
    return affected(
      tx
      .update(payments)
      .set({ state: 'refund_pending', updatedAt: this.deps.clock.now() })
      .where(and(inArray(payments.intentionId, [...intentionIds]), eq(payments.state, 'succeeded')))
      .run(),
    );
  }

  /** Performs pending refunds with the provider, then tells each buyer. */
  async runRefunds(limit = 50): Promise<number> {
    const due = await this.deps.db.read((tx) => tx.select().from(payments).where(eq(payments.state, 'refund_pending')).limit(limit).all());
    let n = 0;
    for (const p of due) {
      const r = await this.provider.refund({ ref: p.providerRef, amountMinor: p.amountMinor, idempotencyKey: `refund:${p.id}` });
      if (!r.ok) {
        this.deps.logger.warn({ paymentId: p.id, code: r.code }, 'refund refused by the provider; will retry');
        continue;
      }
      await this.deps.db.transact((tx) => {
        const now = this.deps.clock.now();
        const moved = tx.update(payments).set({ state: 'refunded', refundedAt: now, updatedAt: now }).where(and(eq(payments.id, p.id), eq(payments.state, 'refund_pending'))).run();
        if (affected(moved) !== 1) return;
        n++;
        const intention = intentionById(tx, p.intentionId);
        const buyer = intention?.buyerPk ? userByPk(tx, intention.buyerPk) : undefined;
        if (!intention || !buyer) return;
        const { event } = showWithEvent(tx, intention.showPk)!;
        this.deps.messages.toUser(tx, p.partnerId, buyer, 'refund', partnerOf(tx, p.partnerId).settings.defaultLang, { eventTitle: event.title, amount: { minor: p.amountMinor, currency: p.currency } });
      });
    }
    return n;
  }
}
