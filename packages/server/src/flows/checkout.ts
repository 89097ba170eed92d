import type { Tx } from '../db/client.js';
import { toMajor } from '../lib/money.js';
import { channelListingOf } from '../domain/channels/channels.queries.js';
import { intentionById, type IntentionRow } from '../domain/intentions/intentions.queries.js';
import type { PartnerRow } from '../domain/partners/partners.queries.js';
import type { PaymentRow } from '../domain/payments/payments.service.js';
import type { CardInput, ChargeResult, PayOutcome } from '../domain/payments/payments.provider.js';
import { checkOwnership } from '../domain/platform/ownership.js';
import { completePurchase, type CompletePurchaseDeps } from './complete-purchase.js';
import type { Kernel } from '../lib/kernel.js';
import type { PartnersService } from '../domain/partners/partners.service.js';
import type { PaymentsService } from '../domain/payments/payments.service.js';
import type { RiskService } from '../domain/risk/risk.service.js';
import type { UsersService } from '../domain/users/users.service.js';

/** What the checkout needs from the modules it composes. */
export type CheckoutDeps = CompletePurchaseDeps & Pick<Kernel, 'db' | 'logger'> & { partners: PartnersService; users: UsersService; risk: RiskService; payments: PaymentsService };

/**
 * What a checkout step came to: the payment's outcome, or why the checkout stopped before
 * charging. Pages and any other front end (a JSON checkout) render these; none of the rules
 * live in a page.
 */
export type CheckoutOutcome =
  | PayOutcome
  /** The partner's platform did not answer the ownership check: nothing changed, try again later. */
  | { kind: 'platform_unavailable' }
  /** The payment provider did not answer: nothing was charged, try again later. */
  | { kind: 'provider_unavailable' }
  /** A seller no longer owns a ticket: the checkout was cancelled and that listing ended. */
  | { kind: 'ticket_moved' }
  /** The risk evaluation came out high: the checkout failed, its listings are back on sale. */
  | { kind: 'risk_high' };

/**
 * Live check that each seller still owns each ticket of a PENDING checkout, with the
 * partner's platform (a channel's listing is skipped: the channel vouches for its tickets).
 * A ticket that moved cancels the checkout (`ticket_moved`) and ends its listing; a platform
 * that does not answer changes nothing. Null when every ticket is still its seller's.
 */
export async function verifySellers(deps: CheckoutDeps, partner: PartnerRow, intention: IntentionRow): Promise<CheckoutOutcome | null> {
  // What to ask the platform, read at once; the platform is asked outside any transaction.
  const sellers = await deps.db.read(async (tx) => {
    const out = [];
    for (const listingId of intention.listingIds) {
      // A channel's listing: its tickets are not the partner's to check; the channel vouches for them.
      if (await channelListingOf(tx, listingId)) continue;
      const listing = await deps.listings.get(tx, partner.id, listingId);
      const seller = await deps.users.get(tx, partner.id, listing.sellerPk);
      out.push({ identifier: seller.externalId ?? seller.email ?? seller.phone ?? '', held: await deps.listings.ticketsOf(tx, listingId) });
    }
    return out;
  });
  for (const { identifier, held } of sellers) {
    const owned = await checkOwnership(deps, partner, identifier);
    if (owned.kind === 'unavailable') return { kind: 'platform_unavailable' };
    const ids = new Set(owned.kind === 'owned' ? owned.tickets.map((x) => x.ticketId) : []);
    const moved = held.filter((x) => !ids.has(x.ticketId));
    if (moved.length > 0) {
      await deps.db.transact(async (tx) => {
        await deps.intentions.endIfPending(tx, intention.id, 'CANCELLED', 'ticket_moved');
        await deps.listings.terminateByTicket(tx, partner.id, moved[0]!.ticketId);
      });
      return { kind: 'ticket_moved' };
    }
  }
  return null;
}

/**
 * Declined charges one checkout accepts. A decline keeps the checkout (the buyer tries another
 * card while the hold lasts); the last allowed one fails it and releases its listings, so a
 * held checkout cannot be used to test stolen card numbers one after another.
 */
export const MAX_DECLINED_ATTEMPTS = 5;

/**
 * Checkout of a PENDING intention by its buyer: the sellers' ownership re-checked live
 * (`verifySellers`), the risk evaluated before any money moves (a high result fails the
 * intention and releases its listings), then the card charged, unless the hold ran out
 * meanwhile (`ended`: nothing charged). A charge needing extra verification answers `verify`
 * (see `answerVerification`); otherwise the outcome is settled at once (`settle`). A declined
 * card keeps the checkout for another attempt (see {@link MAX_DECLINED_ATTEMPTS}).
 *
 * Each attempt is charged under its own idempotency key (the intention and the attempt's
 * number): the same attempt submitted twice is charged once, and only the request that
 * recorded the payment settles it; the other reports how it went.
 */
export async function checkout(deps: CheckoutDeps, input: { partner: PartnerRow; intention: IntentionRow; buyerPk: string; card: CardInput }): Promise<CheckoutOutcome> {
  const { partner, intention, card } = input;
  const refused = await verifySellers(deps, partner, intention);
  if (refused) return refused;
  if (await riskTooHigh(deps, partner, intention, input.buyerPk, card)) return { kind: 'risk_high' };
  // The hold is the deadline: read again right before money moves (`get` expires it on the
  // way), so a card is never charged for a reservation that has run out.
  const { live, attempt } = await deps.db.transact(async (tx) => ({ live: await deps.intentions.get(tx, partner.id, intention.id), attempt: await deps.payments.nextAttempt(tx, intention.id) }));
  // Paid meanwhile (the same form submitted twice): nothing more to charge.
  if (live.state === 'PAID') return { kind: 'paid', intentionId: live.id };
  if (live.state !== 'PENDING') return { kind: 'ended', state: live.state };
  const result = await deps.payments.charge(intention, card, attempt);
  return deps.db.transact(async (tx): Promise<CheckoutOutcome> => {
    const { payment, fresh } = await deps.payments.record(tx, intention, result, card.number.replace(/\D/g, '').slice(-4));
    if (!fresh) return await outcomeOf(deps, tx, payment);
    if (result.status === 'requires_action') return { kind: 'verify', paymentId: payment.id };
    return await settle(deps, tx, payment, result);
  });
}

/**
 * The risk evaluation of a checkout before any money moves: true when it came out high, and
 * then the intention has failed (its listings back on sale). The card's first six and last
 * four digits and the name on it count when the card form is ours; a hosted provider's form
 * tells us none of them, so the evaluation sees the buyer and the transaction only.
 */
export async function riskTooHigh(deps: CheckoutDeps, partner: PartnerRow, intention: IntentionRow, buyerPk: string, card?: CardInput): Promise<boolean> {
  const risk = await deps.db.transact(async (tx) => {
    const buyer = await deps.users.get(tx, partner.id, buyerPk);
    return await deps.risk.evaluate(tx, partner.id, {
      customer: {
        id: buyer.externalId ?? buyer.id,
        ...(buyer.email ? { email: { address: buyer.email, verified: true } } : {}),
        ...(buyer.phone ? { phone: { number: buyer.phone, verified: true } } : {}),
        ...(buyer.firstName ? { firstName: buyer.firstName } : {}),
        ...(buyer.lastName ? { lastName: buyer.lastName } : {}),
      },
      device: { userId: buyer.id },
      transaction: {
        id: intention.id,
        amount: toMajor(intention.totalMinor, intention.currency),
        currency: intention.currency,
        action: 'resale_purchase',
        // The name on the card as one string: the evaluation compares it whole with the buyer's.
        ...(card ? { cardData: { bin: card.number.slice(0, 6), last4Digits: card.number.slice(-4), ...(card.name ? { firstName: card.name } : {}) } } : {}),
      },
    });
  });
  if (risk.overall_risk !== 'high') return false;
  await deps.db.transact(async (tx) => await deps.intentions.fail(tx, intention.id, 'risk_high'));
  return true;
}

/**
 * The buyer answered the provider's extra verification of `payment`. Idempotent: only a
 * payment awaiting it moves; a second answer reads how the first ended.
 */
export async function answerVerification(deps: CheckoutDeps, payment: PaymentRow, approved: boolean): Promise<CheckoutOutcome> {
  if (payment.state !== 'requires_action') return await deps.db.read(async (tx) => await outcomeOf(deps, tx, payment));
  const result = await deps.payments.confirm(payment, approved);
  return deps.db.transact(async (tx): Promise<CheckoutOutcome> => {
    if (!(await deps.payments.answer(tx, payment.id, result))) return { kind: 'ended', state: 'already_answered' };
    return await settle(deps, tx, payment, result);
  });
}

/** How a payment already settled (by another request) went, as the buyer's outcome. */
async function outcomeOf(deps: CheckoutDeps, tx: Tx, payment: PaymentRow): Promise<CheckoutOutcome> {
  const intention = (await intentionById(tx, payment.intentionId))!;
  if (intention.state === 'PAID') return { kind: 'paid', intentionId: intention.id };
  if (payment.state === 'requires_action' && intention.state === 'PENDING') return { kind: 'verify', paymentId: payment.id };
  if (payment.state === 'declined') return { kind: 'declined', code: payment.failureCode ?? 'declined', paymentId: payment.id, attemptsLeft: intention.state === 'PENDING' ? await attemptsLeft(deps, tx, payment.intentionId) : 0 };
  return { kind: 'ended', state: intention.state };
}

/** Declines the checkout still accepts. */
export async function attemptsLeft(deps: Pick<CheckoutDeps, 'payments'>, tx: Tx, intentionId: string): Promise<number> {
  return Math.max(0, MAX_DECLINED_ATTEMPTS - (await deps.payments.declinedCount(tx, intentionId)));
}

/**
 * What a charge's final answer means, in the transaction that recorded it (each payment is
 * settled once): declined keeps the intention PENDING for another card, or fails it (its
 * listings back on sale) at the last allowed attempt; succeeded completes the purchase, or,
 * when the checkout had ended meanwhile (its hold ran out during a slow verification, another
 * attempt paid it), refunds the payment.
 */
export async function settle(deps: CheckoutDeps, tx: Tx, payment: PaymentRow, result: ChargeResult): Promise<CheckoutOutcome> {
  if (result.status === 'declined') {
    const left = await attemptsLeft(deps, tx, payment.intentionId);
    if (left === 0) await deps.intentions.fail(tx, payment.intentionId, 'too_many_declines');
    return { kind: 'declined', code: result.code, paymentId: payment.id, attemptsLeft: left };
  }
  // `get` expires a PENDING intention past its hold on the way: a late answer is refunded.
  await deps.intentions.get(tx, payment.partnerId, payment.intentionId);
  // The ledger names the provider's charge where it has one (what the provider's balance lists).
  if (await completePurchase(deps, tx, payment.intentionId, { provider: payment.provider, providerRef: payment.chargeRef ?? payment.providerRef })) return { kind: 'paid', intentionId: payment.intentionId };
  await deps.payments.refundLate(tx, payment.id);
  return { kind: 'ended', state: (await intentionById(tx, payment.intentionId))!.state };
}
