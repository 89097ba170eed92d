import { and, asc, eq, inArray, sql } from 'drizzle-orm';
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
import { latePaymentLines, refundPaidLines } from '../ledger/ledger.accounts.js';

export type PaymentRow = typeof payments.$inferSelect;

/**
 * Payments: charges through the payment provider and their records, the provider's extra
 * verification, and refunds (with their journals in the ledger: a late payment owed back, a
 * refund paid). The payments table is written only here. What a payment means
 * for the rest (the purchase completed, the intention failed, a late payment refunded) is
 * composed by flows/checkout.ts; a cancelled show's refunds by flows/cancel-show.ts.
 */
export class PaymentsService {
  constructor(
    private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'messages' | 'logger' | 'ledger'>,
    readonly provider: PaymentProvider,
  ) {}

  /**
   * Charges the intention's total with the provider, as its attempt number `attempt` (see
   * {@link PaymentsService.nextAttempt}). The provider's idempotency key is the intention and
   * the attempt: the same attempt sent twice (a double submit, a retried call) is one charge,
   * while a new card after a decline is a new attempt.
   */
  charge(intention: IntentionRow, card: CardInput, attempt: number): Promise<ChargeResult> {
    return this.provider.charge({ amountMinor: intention.totalMinor, currency: intention.currency, card, idempotencyKey: `${intention.id}:${attempt}` });
  }

  /**
   * The number of the intention's next charge attempt: how many payments it recorded. Read
   * before charging, so two submissions racing each other read the same number, share one
   * idempotency key and make one charge; once a payment is recorded (declined, say), the next
   * submission is a new attempt.
   */
  async nextAttempt(tx: Tx, intentionId: string): Promise<number> {
    return (await tx.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(payments).where(eq(payments.intentionId, intentionId)))[0]!.n;
  }

  /** How many charges of the intention were declined (a decline after extra verification included). */
  async declinedCount(tx: Tx, intentionId: string): Promise<number> {
    return (await tx.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(payments).where(and(eq(payments.intentionId, intentionId), eq(payments.state, 'declined'))))[0]!.n;
  }

  /**
   * The payment that paid a PAID intention, for its receipt: its succeeded payment (a charge
   * that came in after another attempt paid is refunded as late, so only the paying one stays
   * succeeded). Once a cancelled show refunded it, the earliest refunded one: in the rare case
   * of a late charge too, either may be named; both say refunded.
   */
  async paymentOfPaid(tx: Tx, intentionId: string): Promise<PaymentRow | undefined> {
    const rows = await tx
      .select()
      .from(payments)
      .where(and(eq(payments.intentionId, intentionId), inArray(payments.state, ['succeeded', 'refund_pending', 'refunded'])))
      .orderBy(asc(payments.createdAt), asc(payments.id));
    return rows.find((p) => p.state === 'succeeded') ?? rows[0];
  }

  /**
   * Records the provider's answer to a charge; returns the payment and whether this call
   * recorded it (`fresh`). The same answer recorded again (same provider ref: a double submit
   * of one attempt) keeps the first row and is not fresh, so only one caller settles it.
   */
  async record(tx: Tx, intention: IntentionRow, result: ChargeResult, last4: string): Promise<{ payment: PaymentRow; fresh: boolean }> {
    const now = this.deps.clock.now();
    const inserted = await tx.insert(payments)
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
      .returning();
    if (inserted[0]) return { payment: inserted[0], fresh: true };
    return { payment: (await tx.select().from(payments).where(and(eq(payments.provider, this.provider.name), eq(payments.providerRef, result.ref))).limit(1))[0]!, fresh: false };
  }

  /** A payment of the partner, or undefined. */
  async find(tx: Tx, partnerId: string, paymentId: string): Promise<PaymentRow | undefined> {
    return (await tx.select().from(payments).where(and(eq(payments.id, paymentId), eq(payments.partnerId, partnerId))).limit(1))[0];
  }

  /** Asks the provider for the outcome of the extra verification the buyer answered. */
  confirm(payment: PaymentRow, approved: boolean): Promise<ChargeResult> {
    return this.provider.confirm(payment.providerRef, approved);
  }

  /**
   * requires_action → succeeded or declined, conditional: false when the payment was answered
   * already (a second answer changes nothing).
   */
  async answer(tx: Tx, paymentId: string, result: ChargeResult): Promise<boolean> {
    return (
      affected(
        await tx
        .update(payments)
        .set({ state: result.status === 'succeeded' ? 'succeeded' : 'declined', failureCode: result.status === 'declined' ? result.code : null, updatedAt: this.deps.clock.now() })
        .where(and(eq(payments.id, paymentId), eq(payments.state, 'requires_action'))),
      ) === 1
    );
  }

  /**
   * The money came in for a checkout that had ended meanwhile: give it back (the refunds job
   * does), and the ledger owes it back from now on. False when the payment was not succeeded.
   */
  async refundLate(tx: Tx, paymentId: string): Promise<boolean> {
    const moved = await tx.update(payments).set({ state: 'refund_pending', updatedAt: this.deps.clock.now() }).where(and(eq(payments.id, paymentId), eq(payments.state, 'succeeded'))).returning();
    const p = moved[0];
    if (!p) return false;
    await this.deps.ledger.post(tx, { partnerId: p.partnerId, kind: 'late_payment', key: `late_payment:${p.id}`, currency: p.currency, intentionId: p.intentionId, provider: p.provider, providerRef: p.providerRef, lines: latePaymentLines(p.amountMinor) });
    return true;
  }

  /**
   * Refunds every succeeded payment of these intentions (their show was cancelled): each
   * becomes `refund_pending` for the refunds job. Returns the payments that moved; what the
   * refund means in the ledger is the caller's to post (flows/cancel-show.ts), as it depends
   * on the sellers' payouts.
   */
  async refundIntentions(tx: Tx, intentionIds: readonly string[]): Promise<PaymentRow[]> {
    if (intentionIds.length === 0) return [];
    return await tx
      .update(payments)
      .set({ state: 'refund_pending', updatedAt: this.deps.clock.now() })
      .where(and(inArray(payments.intentionId, [...intentionIds]), eq(payments.state, 'succeeded')))
      .returning();
  }

  /** Performs pending refunds with the provider, then tells each buyer. */
  async runRefunds(limit = 50): Promise<number> {
    const due = await this.deps.db.read(async (tx) => await tx.select().from(payments).where(eq(payments.state, 'refund_pending')).limit(limit));
    let n = 0;
    for (const p of due) {
      const r = await this.provider.refund({ ref: p.providerRef, amountMinor: p.amountMinor, idempotencyKey: `refund:${p.id}` });
      if (!r.ok) {
        this.deps.logger.warn({ paymentId: p.id, code: r.code }, 'refund refused by the provider; will retry');
        continue;
      }
      await this.deps.db.transact(async (tx) => {
        const now = this.deps.clock.now();
        const moved = await tx.update(payments).set({ state: 'refunded', refundedAt: now, updatedAt: now }).where(and(eq(payments.id, p.id), eq(payments.state, 'refund_pending')));
        if (affected(moved) !== 1) return;
        n++;
        await this.deps.ledger.post(tx, { partnerId: p.partnerId, kind: 'refund_paid', key: `refund_paid:${p.id}`, currency: p.currency, intentionId: p.intentionId, provider: p.provider, providerRef: p.providerRef, lines: refundPaidLines(p.amountMinor) });
        const intention = await intentionById(tx, p.intentionId);
        const buyer = intention?.buyerPk ? await userByPk(tx, intention.buyerPk) : undefined;
        if (!intention || !buyer) return;
        const { event } = (await showWithEvent(tx, intention.showPk))!;
        await this.deps.messages.toUser(tx, p.partnerId, buyer, 'refund', (await partnerOf(tx, p.partnerId)).settings.defaultLang, { eventTitle: event.title, amount: { minor: p.amountMinor, currency: p.currency } });
      });
    }
    return n;
  }
}
