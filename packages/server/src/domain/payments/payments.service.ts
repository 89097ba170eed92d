import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { affected } from '../../db/affected.js';
import { newId } from '../../lib/ids.js';
import { showWithEvent } from '../events/events.queries.js';
import { intentionById, type IntentionRow } from '../intentions/intentions.queries.js';
import { partnerOf } from '../partners/partners.queries.js';
import { userByPk } from '../users/users.queries.js';
import type { CardFormProvider, CardInput, ChargeResult, HostedProvider, PaymentProvider, ProviderEvent } from './payments.provider.js';
import { payments, providerEvents } from './payments.table.js';
import { latePaymentLines, refundPaidLines } from '../ledger/ledger.accounts.js';
import type { Kernel } from '../../lib/kernel.js';
import type { LedgerService } from '../ledger/ledger.service.js';
import type { MessagesService } from '../email/email.service.js';

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
    private readonly deps: Pick<Kernel, 'db' | 'clock' | 'logger'> & { messages: MessagesService; ledger: LedgerService },
    readonly provider: PaymentProvider,
  ) {}

  /** The provider, when its card form is ours (the sandbox). @throws Error with a hosted provider */
  get cardForm(): CardFormProvider {
    if (this.provider.kind !== 'card_form') throw new Error(`The ${this.provider.name} provider takes payments in its own form`);
    return this.provider;
  }

  /** The provider, when its payment form is its own (Stripe); null with the sandbox's card form. */
  get hosted(): HostedProvider | null {
    return this.provider.kind === 'hosted' ? this.provider : null;
  }

  /**
   * Charges the intention's total with the provider, as its attempt number `attempt` (see
   * {@link PaymentsService.nextAttempt}). The provider's idempotency key is the intention and
   * the attempt: the same attempt sent twice (a double submit, a retried call) is one charge,
   * while a new card after a decline is a new attempt.
   */
  charge(intention: IntentionRow, card: CardInput, attempt: number): Promise<ChargeResult> {
    return this.cardForm.charge({ amountMinor: intention.totalMinor, currency: intention.currency, card, idempotencyKey: `${intention.id}:${attempt}` });
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

  /**
   * How many charges of the intention were declined (a decline after extra verification
   * included): declined payments of the card form, and the declines a hosted payment counted.
   */
  async declinedCount(tx: Tx, intentionId: string): Promise<number> {
    const row = (await tx
      .select({ n: sql<number>`coalesce(sum(case when ${payments.state} = 'declined' then 1 else 0 end + ${payments.declines}), 0)`.mapWith(Number) })
      .from(payments)
      .where(eq(payments.intentionId, intentionId)))[0];
    return row?.n ?? 0;
  }

  /**
   * Records the hosted payment the provider opened for an intention (`open`), once: the same
   * payment opened again (a reload of the checkout, answered by the provider's idempotency)
   * keeps its row. Returns the row.
   */
  async recordOpened(tx: Tx, intention: IntentionRow, ref: string): Promise<PaymentRow> {
    const now = this.deps.clock.now();
    await tx
      .insert(payments)
      .values({ id: newId('payment'), partnerId: intention.partnerId, intentionId: intention.id, provider: this.provider.name, providerRef: ref, state: 'open', amountMinor: intention.totalMinor, currency: intention.currency, cardLast4: null, failureCode: null, refundedAt: null, createdAt: now, updatedAt: now })
      .onConflictDoNothing();
    return (await this.byRef(tx, ref))!;
  }

  /** The intention's hosted payment (one per intention), or undefined. */
  async hostedOf(tx: Tx, intentionId: string): Promise<PaymentRow | undefined> {
    return (await tx.select().from(payments).where(and(eq(payments.intentionId, intentionId), eq(payments.provider, this.provider.name))).orderBy(asc(payments.createdAt)).limit(1))[0];
  }

  /**
   * Hosted payments the buyer could still pay (`open`, `requires_action`), untouched for a
   * minute or more, oldest first: the candidates for {@link import('../../flows/hosted-payment.js').cancelAbandonedPayments}.
   */
  async openHosted(tx: Tx, before: number, limit: number): Promise<PaymentRow[]> {
    return await tx
      .select()
      .from(payments)
      .where(and(eq(payments.provider, this.provider.name), inArray(payments.state, ['open', 'requires_action']), lte(payments.updatedAt, before)))
      .orderBy(asc(payments.updatedAt))
      .limit(limit);
  }

  /** The payment of this provider's reference, or undefined. */
  async byRef(tx: Tx, ref: string): Promise<PaymentRow | undefined> {
    return (await tx.select().from(payments).where(and(eq(payments.provider, this.provider.name), eq(payments.providerRef, ref))).limit(1))[0];
  }

  /**
   * A hosted payment moved at the provider (its event said so), conditional: only a payment
   * still in play (`open`, `requires_action`, `processing`) moves, so a late or repeated event
   * never undoes a settled one. True when it moved.
   */
  async moveHosted(tx: Tx, paymentId: string, to: 'requires_action' | 'processing' | 'succeeded' | 'cancelled', details: { method?: string | null; last4?: string | null; chargeRef?: string | null } = {}): Promise<boolean> {
    return (
      affected(
        await tx
          .update(payments)
          .set({ state: to, ...(details.method ? { method: details.method } : {}), ...(details.last4 ? { cardLast4: details.last4 } : {}), ...(details.chargeRef ? { chargeRef: details.chargeRef } : {}), updatedAt: this.deps.clock.now() })
          .where(and(eq(payments.id, paymentId), inArray(payments.state, ['open', 'requires_action', 'processing']))),
      ) === 1
    );
  }

  /** A hosted payment's attempt was declined: counted, its reason kept, the payment open for another try. False when it was not in play. */
  async recordDecline(tx: Tx, paymentId: string, code: string): Promise<boolean> {
    return (
      affected(
        await tx
          .update(payments)
          .set({ state: 'open', failureCode: code, declines: sql`${payments.declines} + 1`, updatedAt: this.deps.clock.now() })
          .where(and(eq(payments.id, paymentId), inArray(payments.state, ['open', 'requires_action', 'processing']))),
      ) === 1
    );
  }

  /**
   * Notes a provider event as processed, in the transaction of the change it causes; false
   * when it was processed already (a redelivery), and then the caller changes nothing.
   */
  async claimEvent(tx: Tx, event: Pick<ProviderEvent, 'id' | 'providerType'>): Promise<boolean> {
    const inserted = await tx.insert(providerEvents).values({ provider: this.provider.name, eventId: event.id, type: event.providerType, receivedAt: this.deps.clock.now() }).onConflictDoNothing().returning({ id: providerEvents.eventId });
    return inserted.length === 1;
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
        method: 'card',
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

  /** Every payment of these intentions (each attempt, whatever its state), oldest first. */
  async ofIntentions(tx: Tx, intentionIds: readonly string[]): Promise<PaymentRow[]> {
    if (intentionIds.length === 0) return [];
    return await tx.select().from(payments).where(inArray(payments.intentionId, [...intentionIds])).orderBy(asc(payments.createdAt), asc(payments.id));
  }

  /** Asks the provider for the outcome of the extra verification the buyer answered. */
  confirm(payment: PaymentRow, approved: boolean): Promise<ChargeResult> {
    return this.cardForm.confirm(payment.providerRef, approved);
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
    await this.deps.ledger.post(tx, { partnerId: p.partnerId, kind: 'late_payment', key: `late_payment:${p.id}`, currency: p.currency, intentionId: p.intentionId, provider: p.provider, providerRef: p.chargeRef ?? p.providerRef, lines: latePaymentLines(p.amountMinor) });
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

  /** Performs pending refunds with the provider, then tells each buyer. Returns how many the provider refunded. */
  async runRefunds(limit = 50): Promise<number> {
    const due = await this.deps.db.read(async (tx) => await tx.select().from(payments).where(eq(payments.state, 'refund_pending')).limit(limit));
    let n = 0;
    for (const p of due) {
      const r = await this.provider.refund({ ref: p.providerRef, amountMinor: p.amountMinor, currency: p.currency, idempotencyKey: `refund:${p.id}` });
      if (!r.ok) {
        // Retried by the next run (the same idempotency key: never two refunds); one that cannot succeed is an operator's.
        if (r.retryable) this.deps.logger.warn({ paymentId: p.id, code: r.code }, 'refund refused by the provider; will retry');
        else this.deps.logger.error({ paymentId: p.id, code: r.code }, 'refund refused by the provider and retrying will not help: refund it by hand');
        continue;
      }
      // Settled here, or already by the provider's event that came in while it answered: refunded either way.
      await this.deps.db.transact(async (tx) => await this.settleRefund(tx, p.id, r.ref));
      n++;
    }
    return n;
  }

  /**
   * A pending refund was paid by the provider (its answer to the refund call, or its event,
   * whichever comes first): `refunded`, its journal in the ledger, the buyer told. Conditional,
   * so the second of the two changes nothing. True when this call settled it.
   */
  async settleRefund(tx: Tx, paymentId: string, refundRef: string | null): Promise<boolean> {
    const now = this.deps.clock.now();
    const p = (await tx.update(payments).set({ state: 'refunded', refundedAt: now, updatedAt: now }).where(and(eq(payments.id, paymentId), eq(payments.state, 'refund_pending'))).returning())[0];
    if (!p) return false;
    await this.deps.ledger.post(tx, { partnerId: p.partnerId, kind: 'refund_paid', key: `refund_paid:${p.id}`, currency: p.currency, intentionId: p.intentionId, provider: p.provider, providerRef: refundRef ?? p.chargeRef ?? p.providerRef, lines: refundPaidLines(p.amountMinor) });
    const intention = await intentionById(tx, p.intentionId);
    const buyer = intention?.buyerPk ? await userByPk(tx, intention.buyerPk) : undefined;
    if (!intention || !buyer) return true;
    const { event } = (await showWithEvent(tx, intention.showPk))!;
    await this.deps.messages.toUser(tx, p.partnerId, buyer, 'refund', (await partnerOf(tx, p.partnerId)).settings.defaultLang, { eventTitle: event.title, amount: { minor: p.amountMinor, currency: p.currency } });
    return true;
  }
}
