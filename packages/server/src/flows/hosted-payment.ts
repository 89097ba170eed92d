import type { Tx } from '../db/client.js';
import { effectiveConfiguration } from '../domain/events/events.model.js';
import { showWithEvent } from '../domain/events/events.queries.js';
import { endedIntentionIds, intentionById, type IntentionRow } from '../domain/intentions/intentions.queries.js';
import { disputeLines, providerFeeLines } from '../domain/ledger/ledger.accounts.js';
import type { PartnerRow } from '../domain/partners/partners.queries.js';
import type { HostedProvider, ProviderEvent } from '../domain/payments/payments.provider.js';
import type { PaymentRow } from '../domain/payments/payments.service.js';
import { attemptsLeft, riskTooHigh, settle, verifySellers, type CheckoutDeps, type CheckoutOutcome } from './checkout.js';
import type { Metrics } from '../domain/metrics/metrics.service.js';

/** What paying with a hosted provider needs: the checkout's modules. */
export type HostedPaymentDeps = CheckoutDeps & { metrics: Metrics };

/** The checkout page may show the provider's payment form for this payment. */
export interface HostedPayStep {
  kind: 'pay';
  payment: PaymentRow;
  /** For the provider's script in the buyer's browser only: it can confirm this one payment, nothing else. */
  clientSecret: string;
}

/**
 * Opens the provider's payment of a PENDING checkout, for its page to show the provider's
 * form (Stripe's Payment Element), or says why not:
 * 1. the sellers' ownership re-checked live (as the card form's checkout does);
 * 2. the risk evaluated, once per checkout: before its payment is first opened (a reload of
 *    the page does not evaluate again); high fails the checkout;
 * 3. the hold read again: a checkout that ended or was paid says so;
 * 4. the provider's payment opened for the intention's total with the show's payment methods,
 *    under an idempotency key of the intention, and recorded `open`; on the next views of the
 *    page, the payment already opened read again (never opened anew: the show's title or
 *    methods may have changed, and the provider refuses a key reused with other parameters).
 * The outcome then comes from the provider's events ({@link handleProviderEvent}).
 */
export async function openHostedPayment(deps: HostedPaymentDeps, provider: HostedProvider, input: { partner: PartnerRow; intention: IntentionRow; buyerPk: string }): Promise<CheckoutOutcome | HostedPayStep> {
  const { partner, intention } = input;
  const refused = await verifySellers(deps, partner, intention);
  if (refused) return refused;
  const opened = await deps.db.read(async (tx) => await deps.payments.hostedOf(tx, intention.id));
  if (!opened && (await riskTooHigh(deps, partner, intention, input.buyerPk))) return { kind: 'risk_high' };
  const { live, methods, title } = await deps.db.transact(async (tx) => {
    const live = await deps.intentions.get(tx, partner.id, intention.id);
    const { show, event } = (await showWithEvent(tx, intention.showPk))!;
    const payments = effectiveConfiguration(event.configuration, show.configuration).crossBorderPayments;
    return { live, methods: payments?.enabled ? payments.paymentMethods : [], title: event.title };
  });
  if (live.state === 'PAID') return { kind: 'paid', intentionId: live.id };
  if (live.state !== 'PENDING') return { kind: 'ended', state: live.state };
  let started: Awaited<ReturnType<HostedProvider['openPayment']>>;
  try {
    started = opened
      ? await provider.resumePayment(opened.providerRef)
      : await provider.openPayment({ intentionId: intention.id, partnerId: partner.id, amountMinor: intention.totalMinor, currency: intention.currency, methods, description: `${title} (resale ${intention.id})`, idempotencyKey: `open:${intention.id}` });
  } catch (err) {
    deps.logger.warn({ err, intentionId: intention.id, provider: provider.name }, 'the payment provider did not open a payment');
    return { kind: 'provider_unavailable' };
  }
  const payment = await deps.db.transact(async (tx) => await deps.payments.recordOpened(tx, intention, started.ref));
  return { kind: 'pay', payment, clientSecret: started.clientSecret };
}

/** What became of a provider event. */
export type ProviderEventResult = 'processed' | 'duplicate' | 'ignored';

/**
 * A verified event of the hosted provider, processed once (its id is recorded in the
 * transaction of the change it causes, so a redelivery changes nothing):
 * - `payment.succeeded`: the payment `succeeded` (with the card's last four and the
 *   provider's fee when it tells them, the fee as a `provider_fee` journal), then settled as
 *   the card form's are: the purchase completed, or, for a checkout that had ended meanwhile,
 *   refunded (`late_payment`);
 * - `payment.failed`: the decline counted and its reason kept, the checkout open for another
 *   try; the last allowed decline fails the checkout and cancels the provider's payment;
 * - `payment.requires_action`, `payment.processing`, `payment.cancelled`: the payment's state;
 * - `refund.succeeded`: a pending refund settled (as the refunds job does when the provider
 *   answers first);
 * - `account.updated`: a seller's connected account's state kept (payouts);
 * - `attention` (a chargeback, a payout reversed in the provider's dashboard): recorded and
 *   logged as an error for an operator, who answers a dispute in the provider's dashboard
 *   before its deadline;
 * - `dispute.funds`: a dispute's money taken from the balance or given back, booked in the
 *   ledger (`dispute_withdrawn` / `dispute_reinstated`, the dispute fee as a `provider_fee`
 *   journal); a reversed payout is not booked (the reconciliation names it);
 * - anything else is recorded and ignored.
 */
export async function handleProviderEvent(deps: HostedPaymentDeps, provider: HostedProvider, event: ProviderEvent): Promise<ProviderEventResult> {
  if (event.type === 'ignored') {
    return (await deps.db.transact(async (tx) => await deps.payments.claimEvent(tx, event))) ? 'ignored' : 'duplicate';
  }
  if (event.type === 'attention') {
    const first = await deps.db.transact(async (tx) => await deps.payments.claimEvent(tx, event));
    if (!first) return 'duplicate';
    const { what, ref, paymentRef, amountMinor, currency } = event;
    deps.metrics.providerAttention(what);
    deps.logger.error(
      { eventId: event.id, what, ref, paymentRef, amountMinor, currency },
      what === 'dispute' ? 'a buyer disputed a charge: answer it in the provider’s dashboard before its deadline' : 'a delivered payout was reversed at the provider: the service never reverses one; find out who did',
    );
    return 'processed';
  }
  if (event.type === 'dispute.funds') {
    return await deps.db.transact(async (tx) => {
      if (!(await deps.payments.claimEvent(tx, event))) return 'duplicate';
      const payment = event.paymentRef ? await deps.payments.byRef(tx, event.paymentRef) : undefined;
      if (!payment) {
        deps.logger.error({ eventId: event.id, ref: event.ref, paymentRef: event.paymentRef }, 'a dispute’s money moved for a payment the service does not know: book it by hand');
        return 'ignored';
      }
      const journal = { partnerId: payment.partnerId, currency: event.currency, intentionId: payment.intentionId, provider: provider.name, providerRef: event.ref };
      await deps.ledger.post(tx, { ...journal, kind: `dispute_${event.direction}`, key: `dispute_${event.direction}:${event.ref}`, lines: disputeLines(event.direction, event.amountMinor) });
      if (event.feeMinor !== 0) await deps.ledger.post(tx, { ...journal, kind: 'provider_fee', key: `dispute_fee_${event.direction}:${event.ref}`, lines: providerFeeLines(event.feeMinor) });
      return 'processed';
    });
  }
  if (event.type === 'account.updated') {
    return await deps.db.transact(async (tx) => {
      if (!(await deps.payments.claimEvent(tx, event))) return 'duplicate';
      return deps.payouts.connect && (await deps.payouts.connect.apply(tx, event.account)) ? 'processed' : 'ignored';
    });
  }
  if (event.type === 'refund.succeeded') {
    return await deps.db.transact(async (tx) => {
      if (!(await deps.payments.claimEvent(tx, event))) return 'duplicate';
      const payment = await deps.payments.byRef(tx, event.ref);
      if (payment) await deps.payments.settleRefund(tx, payment.id, event.refundRef);
      return 'processed';
    });
  }
  // What the provider tells of the charge is asked before the transaction (a network call).
  const details = event.type === 'payment.succeeded' ? await provider.chargeDetails(event.ref).catch((err: unknown) => (deps.logger.warn({ err, ref: event.ref }, 'charge details unavailable'), null)) : null;
  let cancel = false;
  const result = await deps.db.transact(async (tx): Promise<ProviderEventResult> => {
    if (!(await deps.payments.claimEvent(tx, event))) return 'duplicate';
    const payment = await paymentOf(deps, tx, event);
    if (!payment) {
      deps.logger.warn({ eventId: event.id, ref: event.ref }, 'a provider event for a payment the service does not know');
      return 'ignored';
    }
    switch (event.type) {
      case 'payment.succeeded': {
        const chargeRef = details?.chargeRef ?? null;
        if (!(await deps.payments.moveHosted(tx, payment.id, 'succeeded', { method: details?.method ?? null, last4: details?.last4 ?? null, chargeRef }))) return 'processed';
        if (details?.feeMinor) {
          await deps.ledger.post(tx, { partnerId: payment.partnerId, kind: 'provider_fee', key: `provider_fee:${payment.id}`, currency: payment.currency, intentionId: payment.intentionId, provider: payment.provider, providerRef: details.chargeRef ?? payment.providerRef, lines: providerFeeLines(details.feeMinor) });
        }
        await settle(deps, tx, { ...payment, state: 'succeeded', chargeRef: chargeRef ?? payment.chargeRef }, { status: 'succeeded', ref: payment.providerRef });
        return 'processed';
      }
      case 'payment.failed': {
        if (!(await deps.payments.recordDecline(tx, payment.id, event.code))) return 'processed';
        if ((await attemptsLeft(deps, tx, payment.intentionId)) === 0) {
          await deps.intentions.fail(tx, payment.intentionId, 'too_many_declines');
          cancel = true;
        }
        return 'processed';
      }
      case 'payment.requires_action':
        await deps.payments.moveHosted(tx, payment.id, 'requires_action');
        return 'processed';
      case 'payment.processing':
        await deps.payments.moveHosted(tx, payment.id, 'processing');
        return 'processed';
      case 'payment.cancelled':
        await deps.payments.moveHosted(tx, payment.id, 'cancelled');
        return 'processed';
    }
  });
  // The checkout failed: its payment may not be tried again at the provider (after the commit: a network call).
  if (cancel && 'ref' in event) await provider.cancelPayment(event.ref).catch((err: unknown) => deps.logger.warn({ err, ref: event.ref }, 'could not cancel the provider payment'));
  return result;
}

/**
 * The payment an event is about: by the provider's reference, or, when the service stopped
 * between opening it and recording it, recorded now from the intention the provider's
 * metadata names (our own id, in an event whose signature verified).
 */
async function paymentOf(deps: HostedPaymentDeps, tx: Tx, event: { ref: string; intentionId: string | null }): Promise<PaymentRow | undefined> {
  const known = await deps.payments.byRef(tx, event.ref);
  if (known || !event.intentionId) return known;
  const intention = await intentionById(tx, event.intentionId);
  return intention ? await deps.payments.recordOpened(tx, intention, event.ref) : undefined;
}

/** A hosted payment untouched this long is looked at by {@link cancelAbandonedPayments}. */
const ABANDONED_AFTER_MS = 60_000;

/**
 * Cancels at the provider the payments of checkouts that ended unpaid (the hold ran out, the
 * buyer or a seller cancelled, too many declines), so a buyer still on the provider's form
 * cannot pay for tickets released to someone else; one paid anyway in the meantime is
 * refunded as a late payment, as before. Run by the refunds-and-payouts job. Returns how many
 * were cancelled.
 */
export async function cancelAbandonedPayments(deps: HostedPaymentDeps, provider: HostedProvider, limit = 200): Promise<number> {
  const candidates = await deps.db.read(async (tx) => {
    const open = await deps.payments.openHosted(tx, deps.clock.now() - ABANDONED_AFTER_MS, limit);
    const ended = await endedIntentionIds(tx, open.map((p) => p.intentionId));
    return open.filter((p) => ended.has(p.intentionId));
  });
  let n = 0;
  for (const p of candidates) {
    let now: Awaited<ReturnType<HostedProvider['cancelPayment']>>;
    try {
      now = await provider.cancelPayment(p.providerRef);
    } catch (err) {
      deps.logger.warn({ err, paymentId: p.id }, 'could not cancel an abandoned provider payment; will retry');
      continue;
    }
    // Paid first after all: left for its event, which refunds it (the checkout has ended).
    if (now !== 'cancelled') continue;
    await deps.db.transact(async (tx) => await deps.payments.moveHosted(tx, p.id, 'cancelled'));
    n++;
  }
  return n;
}
