import type { Lang } from '@resale/shared/lang';
import type { AppDeps } from '../../../context.js';
import type { Tx } from '../../../db/client.js';
import { combinationOf, showWithEvent, ticketOptionByPk } from '../../../domain/events/events.queries.js';
import { intentionById, type IntentionRow } from '../../../domain/intentions/intentions.queries.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { CARD_FIELDS, readCard, type CardField, type TypedCard } from '../../../domain/payments/checkout.card.js';
import type { HostedProvider } from '../../../domain/payments/payments.provider.js';
import type { PaymentRow } from '../../../domain/payments/payments.service.js';
import type { TicketRow } from '../../../domain/tickets/tickets.queries.js';
import { secureViewToken } from '../../../domain/tickets/tickets.view.js';
import { userByPk } from '../../../domain/users/users.queries.js';
import { answerVerification, checkout, MAX_DECLINED_ATTEMPTS, verifySellers, type CheckoutOutcome } from '../../../flows/checkout.js';
import { openHostedPayment, type HostedPaymentDeps, type HostedPayStep } from '../../../flows/hosted-payment.js';
import { toIso } from '../../../lib/clock.js';
import { ApiError } from '../../../lib/errors.js';
import { t } from '../../../lib/i18n.js';
import { inOrder } from '../../../lib/in-order.js';
import { currencyDigits } from '../../../lib/money.js';
import type { Place } from '../../../lib/seats.js';
import { servicePaths, serviceUrl } from '../../../lib/urls.js';
import { cm, declineReason, paidWith, type DeclineReason } from './checkout.messages.js';

/**
 * The loading and the actions of the hosted checkout (checkout.pages.tsx routes to them,
 * checkout.view.tsx shows what they load): plain inputs in, a view model or what the page
 * comes to out. No request, no markup: the routes read the request and answer.
 */

/** What the checkout's pages need: the checkout flows' dependencies and the services they read. */
export type CheckoutPageDeps = HostedPaymentDeps & Pick<AppDeps, 'db' | 'clock' | 'config' | 'box' | 'intentions' | 'listings' | 'payments'>;

/** A link styled as a button: where it goes and what it says. */
export interface Link {
  href: string;
  label: string;
}

/** A page that only says something (http/pages/layout.tsx `noticePage`), in the page's language. */
export interface Notice {
  status: number;
  title: string;
  text: string;
  link?: Link | undefined;
  /** Headers of the answer (`Retry-After`). */
  headers?: Record<string, string> | undefined;
}

/** What a checkout page comes to when it is no page of its own: the 404, a notice, a redirect. */
export type Answer = { kind: 'notFound' } | { kind: 'notice'; notice: Notice } | { kind: 'redirect'; to: string; status: 302 | 303 };

/** The hold's end, and the time it was read at (for the countdown of the pages' script). */
export interface HoldView {
  expiresAt: number;
  expiresIso: string;
  nowIso: string;
  /** The show's time zone: the hold's end is said in it. */
  timeZone: string | undefined;
}

/** One listing of the order: its tickets, its face value and its lines of the money table. */
export interface OrderItemView {
  quantity: number;
  optionTitle: string;
  /** The face value per ticket, formatted in the listing's currency; null when unknown. */
  face: string | null;
  /** Formatted in the checkout's currency: the price per ticket and for all, the fee per ticket and for all. */
  price: string;
  priceTotal: string;
  fee: string;
  feeTotal: string;
  /**
   * Each ticket's place; on the receipt, `href` is its secure view, null when the buyer no
   * longer holds it.
   */
  tickets: (Place & { href?: string | null })[];
}

/** Everything a checkout's summary and receipt show, read once; money formatted in the page's language. */
export interface OrderView {
  eventTitle: string;
  showTitle: string;
  startsAt: number;
  /** The show's time zone: the page's dates are in it. */
  timeZone: string | undefined;
  venue: string;
  items: OrderItemView[];
  /** The checkout's total, formatted. */
  total: string;
}

/** A declined payment the checkout says it is back after. */
export interface DeclinedView {
  /** The card's verification was not completed (rather than the card declined). */
  notConfirmed: boolean;
  reason: DeclineReason;
  /** The attempts left (the card form counts them); null where the page does not say. */
  attemptsLeft: number | null;
}

/** The checkout with the service's own card form (the sandbox). */
export interface CardCheckoutView {
  order: OrderView;
  hold: HoldView;
  /** The form's action: the checkout's path without the query, which its CSRF token is bound to. */
  action: string;
  /** Each field's error, in words. */
  errors: Partial<Record<CardField, string>>;
  /** The fields with an error, in the form's order (the error summary's list). */
  errorFields: CardField[];
  /** What the fields show: what was typed, or the buyer's name on the card. */
  typed: TypedCard;
  declined: DeclinedView | null;
  /** The sandbox's test cards are listed. */
  sandbox: boolean;
  /** Who takes the payment ("Secure payment by …") and where the receipt goes (the buyer's e-mail, when known). */
  trust: TrustView;
}

/** The checkout with a hosted provider's own payment form (Stripe's Payment Element). */
/** What the checkout says to be trusted: who takes the payment, and where the receipt is sent. */
export interface TrustView {
  /** The payment provider's name as fans know it (`Stripe`), or null for the sandbox (no money moves). */
  provider: string | null;
  /** The buyer's e-mail, where the receipt goes; null when the partner gave none. */
  receiptTo: string | null;
}

/** The provider's name as a fan reads it. */
function providerName(name: string): string | null {
  return name === 'sandbox' ? null : name === 'stripe' ? 'Stripe' : name;
}

export interface HostedCheckoutView {
  order: OrderView;
  hold: HoldView;
  trust: TrustView;
  declined: DeclinedView | null;
  provider: { name: string; scriptUrl: string; publishableKey: string };
  clientSecret: string;
  /** Where the provider brings the buyer back (absolute). */
  returnUrl: string;
}

/** What the checkout's GET (and its card form's POST) comes to. */
export type CheckoutPage =
  | Answer
  | { kind: 'card'; view: CardCheckoutView; status: 200 | 400 }
  | { kind: 'hosted'; view: HostedCheckoutView; providerCsp: HostedProvider['csp'] };

/** The provider's extra-verification step. */
export interface VerifyView {
  /** The payment's amount, formatted. */
  amount: string;
  hold: HoldView;
}

/** The page that waits for the provider's confirmation. */
export interface ConfirmingView {
  /** Itself: where it looks again. */
  here: string;
}

/** The receipt. */
export interface ReceiptView {
  order: OrderView;
  /** The order's reference (the intention's id). */
  reference: string;
  paidAt: number;
  /** How the buyer paid, in words; null when the provider did not say. */
  method: string | null;
  refunded: boolean;
  /** The way back to the partner. */
  back: Link;
}

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

/** Everything a checkout's summary and receipt show, read once. */
interface Order {
  eventTitle: string;
  showTitle: string;
  startsAt: number;
  timeZone: string | undefined;
  venue: string;
  items: { quantity: number; currency: string; priceMinor: number; buyerFeeMinor: number; optionTitle: string; faceMinor: number | null; tickets: TicketRow[] }[];
}

async function readOrder(deps: Pick<AppDeps, 'listings'>, tx: Tx, intention: IntentionRow): Promise<Order> {
  const { show, event } = (await showWithEvent(tx, intention.showPk))!;
  const location = show.location ?? event.location;
  const items = await inOrder(intention.listingIds, async (id) => {
    const listing = await deps.listings.get(tx, intention.partnerId, id);
    const tickets = await deps.listings.ticketsOf(tx, id);
    const option = (await ticketOptionByPk(tx, listing.ticketOptionPk))!;
    // The face value as the organiser priced it: the combination's price wins over the option's (the spec's rule).
    const combo = await combinationOf(tx, listing.ticketOptionPk, listing.priceTypePk);
    return { quantity: listing.quantity, currency: listing.currency, priceMinor: listing.priceMinor, buyerFeeMinor: listing.buyerFeeMinor, optionTitle: option.title, faceMinor: combo?.priceMinor ?? option.priceMinor ?? tickets[0]?.priceMinor ?? null, tickets };
  });
  return {
    eventTitle: event.title,
    showTitle: show.title,
    startsAt: show.startsAt,
    timeZone: location.timeZone,
    venue: [location.venueName, location.city].filter(Boolean).join(', ') || location.raw || '',
    items,
  };
}

/**
 * The order as its summary shows it: the money table in the checkout's currency (adding up to
 * its total), the face value in the listing's; on the receipt, each ticket's `href`.
 */
function orderView(order: Order, intention: IntentionRow, lang: Lang, ticketHref?: (ticket: TicketRow) => string | null): OrderView {
  const m = (minor: number) => money(minor, intention.currency, lang);
  return {
    eventTitle: order.eventTitle,
    showTitle: order.showTitle,
    startsAt: order.startsAt,
    timeZone: order.timeZone,
    venue: order.venue,
    items: order.items.map((item) => ({
      quantity: item.quantity,
      optionTitle: item.optionTitle,
      face: item.faceMinor !== null ? money(item.faceMinor, item.currency, lang) : null,
      price: m(item.priceMinor),
      priceTotal: m(item.quantity * item.priceMinor),
      fee: m(item.buyerFeeMinor),
      feeTotal: m(item.quantity * item.buyerFeeMinor),
      tickets: item.tickets.map((ticket) => ({ section: ticket.section, row: ticket.row, seat: ticket.seat, ...(ticketHref ? { href: ticketHref(ticket) } : {}) })),
    })),
    total: m(intention.totalMinor),
  };
}

function holdView(deps: Pick<AppDeps, 'clock'>, intention: IntentionRow, timeZone: string | undefined): HoldView {
  return { expiresAt: intention.expiresAt, expiresIso: toIso(intention.expiresAt), nowIso: toIso(deps.clock.now()), timeZone };
}

/** The way back to the market of the checkout's show. */
async function marketLink(deps: Pick<AppDeps, 'db'>, partner: PartnerRow, intention: IntentionRow, lang: Lang): Promise<Link> {
  const { show, event } = (await deps.db.read(async (tx) => await showWithEvent(tx, intention.showPk)))!;
  return { href: servicePaths.market(partner.id, event.externalReferenceId, { showId: show.showId, lang }), label: cm(lang, 'backToMarket') };
}

const checkoutPath = (partner: PartnerRow, intention: IntentionRow, lang: Lang) => servicePaths.checkout(partner.id, intention.id, { lang });

const notice = (n: Notice): Answer => ({ kind: 'notice', notice: n });

/**
 * The intention `intentionId` claimed for the signed-in buyer `userPk` (an unclaimed one
 * becomes theirs), or what the page says instead: 404, the buyer's own listing, someone
 * else's checkout.
 */
export async function claimCheckout(deps: Pick<AppDeps, 'db' | 'intentions'>, partner: PartnerRow, lang: Lang, intentionId: string, userPk: string): Promise<Answer | { kind: 'claimed'; intention: IntentionRow }> {
  let claimed: Awaited<ReturnType<AppDeps['intentions']['claim']>>;
  try {
    claimed = await deps.db.transact(async (tx) => await deps.intentions.claim(tx, partner.id, intentionId, userPk));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') return { kind: 'notFound' };
    throw err;
  }
  if (!claimed.ok && claimed.reason === 'own_listing') return notice({ status: 409, title: cm(lang, 'ownListingTitle'), text: cm(lang, 'ownListingText'), link: await marketLink(deps, partner, claimed.row, lang) });
  if (!claimed.ok) return notice({ status: 403, title: cm(lang, 'notYoursTitle'), text: cm(lang, 'notYoursText') });
  return { kind: 'claimed', intention: claimed.row };
}

/**
 * Null while the checkout is PENDING; else the receipt (paid: `status` is the redirect's, 303
 * after a POST) or the page that says it ended.
 */
export async function unlessPending(deps: Pick<AppDeps, 'db' | 'intentions'>, partner: PartnerRow, lang: Lang, intention: IntentionRow, status: 302 | 303): Promise<Answer | null> {
  if (intention.state === 'PAID') return { kind: 'redirect', to: servicePaths.checkoutDone(partner.id, intention.id, { lang }), status };
  if (intention.state !== 'PENDING') return await outcomeAnswer(deps, partner, intention, lang, { kind: 'ended', state: intention.state });
  return null;
}

/** What the page of a checkout step's outcome says (flows/checkout.ts decides; this only says it). */
async function outcomeAnswer(deps: Pick<AppDeps, 'db' | 'intentions'>, partner: PartnerRow, intention: IntentionRow, lang: Lang, outcome: CheckoutOutcome): Promise<Answer> {
  if (outcome.kind === 'platform_unavailable') return notice({ status: 503, title: t(lang, 'unavailableTitle'), text: t(lang, 'unavailableText'), headers: { 'Retry-After': '60' } });
  if (outcome.kind === 'provider_unavailable') return notice({ status: 503, title: cm(lang, 'providerUnavailableTitle'), text: cm(lang, 'providerUnavailableText'), headers: { 'Retry-After': '30' }, link: { href: checkoutPath(partner, intention, lang), label: cm(lang, 'checkAgain') } });
  if (outcome.kind === 'ticket_moved') return notice({ status: 409, title: cm(lang, 'movedTitle'), text: cm(lang, 'movedText'), link: await marketLink(deps, partner, intention, lang) });
  if (outcome.kind === 'risk_high') return notice({ status: 402, title: cm(lang, 'riskTitle'), text: cm(lang, 'riskText'), link: await marketLink(deps, partner, intention, lang) });
  if (outcome.kind === 'paid') return { kind: 'redirect', to: servicePaths.checkoutDone(partner.id, intention.id, { lang }), status: 303 };
  if (outcome.kind === 'verify') return { kind: 'redirect', to: servicePaths.checkoutVerify(partner.id, outcome.paymentId, { lang }), status: 303 };
  // Declined, the reservation kept: back to the checkout (a GET, so a reload charges nothing) that says why.
  if (outcome.kind === 'declined' && outcome.attemptsLeft > 0) return { kind: 'redirect', to: `${checkoutPath(partner, intention, lang)}&declined=${encodeURIComponent(outcome.paymentId)}#declined`, status: 303 };
  if (outcome.kind === 'declined') return notice({ status: 402, title: cm(lang, 'tooManyTitle'), text: cm(lang, 'tooManyText'), link: await marketLink(deps, partner, intention, lang) });
  // Why it ended, when the buyer did not end it: the organiser's delist, the seller's (or
  // channel's) withdrawal, or their own listing.
  // `get` expires a PENDING intention past its time on the way: a write, so a transaction.
  const reason = (await deps.db.transact(async (tx) => await deps.intentions.get(tx, partner.id, intention.id))).endReason;
  const [title, text] =
    reason === 'delisted' ? (['delistedTitle', 'delistedText'] as const) : reason === 'withdrawn' ? (['withdrawnTitle', 'withdrawnText'] as const) : reason === 'own_listing' ? (['ownListingTitle', 'ownListingText'] as const) : (['endedTitle', 'endedText'] as const);
  return notice({ status: 409, title: cm(lang, title), text: cm(lang, text), link: await marketLink(deps, partner, intention, lang) });
}

/** What the checkout form shows besides itself: field errors with what was typed, or a declined payment to try again after. */
interface FormState {
  errors?: Partial<Record<CardField, string>>;
  typed?: TypedCard;
  declined?: { payment: PaymentRow; attemptsLeft: number };
}

/** The card form's checkout of a PENDING intention. */
async function cardCheckout(deps: Pick<AppDeps, 'db' | 'clock' | 'listings' | 'payments'>, partner: PartnerRow, intention: IntentionRow, lang: Lang, state: FormState = {}): Promise<CardCheckoutView> {
  const { order, buyer } = await deps.db.read(async (tx) => ({ order: await readOrder(deps, tx, intention), buyer: intention.buyerPk ? await userByPk(tx, intention.buyerPk) : undefined }));
  const declined = state.declined;
  const errors = state.errors ?? {};
  return {
    order: orderView(order, intention, lang),
    hold: holdView(deps, intention, order.timeZone),
    action: servicePaths.checkout(partner.id, intention.id),
    errors,
    errorFields: CARD_FIELDS.filter((f) => errors[f]),
    // The name on the card defaults to the buyer's, when the partner told it.
    typed: state.typed ?? { cardNumber: '', expiry: '', cardName: [buyer?.firstName, buyer?.lastName].filter(Boolean).join(' ') },
    declined: declined ? { notConfirmed: declined.payment.failureCode === 'authentication_failed', reason: declineReason(declined.payment.failureCode ?? ''), attemptsLeft: declined.attemptsLeft } : null,
    sandbox: deps.payments.provider.name === 'sandbox',
    trust: { provider: providerName(deps.payments.provider.name), receiptTo: buyer?.email ?? null },
  };
}

/**
 * The checkout with a hosted provider (Stripe): the order and the hold as with the card form,
 * and what the provider's own payment form needs; the decline its events counted, if any.
 */
async function hostedCheckout(deps: Pick<AppDeps, 'db' | 'clock' | 'config' | 'listings'>, partner: PartnerRow, intention: IntentionRow, lang: Lang, provider: HostedProvider, step: HostedPayStep): Promise<HostedCheckoutView> {
  const { order, buyer } = await deps.db.read(async (tx) => ({ order: await readOrder(deps, tx, intention), buyer: intention.buyerPk ? await userByPk(tx, intention.buyerPk) : undefined }));
  const failed = step.payment.failureCode && step.payment.declines > 0 ? step.payment.failureCode : null;
  const returnUrl = serviceUrl(deps.config.publicBaseUrl, servicePaths.checkoutReturn(partner.id, intention.id, { lang }));
  return {
    order: orderView(order, intention, lang),
    hold: holdView(deps, intention, order.timeZone),
    trust: { provider: providerName(provider.name), receiptTo: buyer?.email ?? null },
    declined: failed ? { notConfirmed: declineReason(failed) === 'declined_authentication_failed', reason: declineReason(failed), attemptsLeft: null } : null,
    provider: { name: provider.name, scriptUrl: provider.scriptUrl, publishableKey: provider.publishableKey },
    clientSecret: step.clientSecret,
    returnUrl,
  };
}

/** The declined payment `declinedId` (the checkout's `?declined=`), when it is this checkout's: what the page says above the form. */
async function declinedOf(deps: Pick<AppDeps, 'db' | 'payments'>, partner: PartnerRow, intention: IntentionRow, declinedId: string | undefined): Promise<FormState['declined']> {
  if (!declinedId) return undefined;
  return await deps.db.read(async (tx) => {
    const payment = await deps.payments.find(tx, partner.id, declinedId);
    if (!payment || payment.intentionId !== intention.id || payment.state !== 'declined') return undefined;
    return { payment, attemptsLeft: Math.max(0, MAX_DECLINED_ATTEMPTS - (await deps.payments.declinedCount(tx, intention.id))) };
  });
}

/**
 * The checkout of a PENDING intention for its buyer `userPk`: with a hosted provider, its
 * payment opened (or found again) for the provider's form; else every seller's ticket checked
 * live, then the card form (saying why `declinedId`, the last payment, was declined).
 */
export async function loadCheckout(deps: CheckoutPageDeps, input: { partner: PartnerRow; lang: Lang; intention: IntentionRow; userPk: string; declinedId: string | undefined }): Promise<CheckoutPage> {
  const { partner, lang, intention } = input;
  const hosted = deps.payments.hosted;
  if (hosted) {
    const step = await openHostedPayment(deps, hosted, { partner, intention, buyerPk: input.userPk });
    return step.kind === 'pay' ? { kind: 'hosted', view: await hostedCheckout(deps, partner, intention, lang, hosted, step), providerCsp: hosted.csp } : await outcomeAnswer(deps, partner, intention, lang, step);
  }
  const refused = await verifySellers(deps, partner, intention);
  if (refused) return await outcomeAnswer(deps, partner, intention, lang, refused);
  const declined = await declinedOf(deps, partner, intention, input.declinedId);
  return { kind: 'card', view: await cardCheckout(deps, partner, intention, lang, declined ? { declined } : {}), status: 200 };
}

/**
 * Pays a PENDING checkout with the card of its form (`form`, the card form's fields): the form
 * again with each field's error (400), or the page of the payment's outcome.
 */
export async function payByCard(deps: CheckoutPageDeps, input: { partner: PartnerRow; lang: Lang; intention: IntentionRow; userPk: string; form: Record<string, unknown> }): Promise<CheckoutPage> {
  const { partner, lang, intention } = input;
  const { card, typed, errors } = readCard(input.form, deps.clock.now());
  if (!card) return { kind: 'card', view: await cardCheckout(deps, partner, intention, lang, { errors: Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, cm(lang, v)])), typed }), status: 400 };
  return await outcomeAnswer(deps, partner, intention, lang, await checkout(deps, { partner, intention, buyerPk: input.userPk, card }));
}

/** A payment and its checkout. */
export interface BuyersPayment {
  payment: PaymentRow;
  intention: IntentionRow;
}

/** The payment `paymentId` of the signed-in buyer `userPk` (and its checkout), or null. */
export function buyersPayment(deps: Pick<AppDeps, 'db' | 'payments'>, partner: PartnerRow, paymentId: string, userPk: string): Promise<BuyersPayment | null> {
  return deps.db.read(async (tx) => {
    const payment = await deps.payments.find(tx, partner.id, paymentId);
    const intention = payment ? await intentionById(tx, payment.intentionId) : undefined;
    return payment && intention && intention.buyerPk === userPk ? { payment, intention } : null;
  });
}

/** The provider's extra-verification step of a payment; answered already (another tab, a reload after the answer): how it went. */
export async function loadVerify(deps: CheckoutPageDeps, partner: PartnerRow, lang: Lang, row: BuyersPayment): Promise<Answer | { kind: 'page'; view: VerifyView }> {
  if (row.payment.state !== 'requires_action') return await outcomeAnswer(deps, partner, row.intention, lang, await answerVerification(deps, row.payment, false));
  const timeZone = (await deps.db.read(async (tx) => await readOrder(deps, tx, row.intention))).timeZone;
  return { kind: 'page', view: { amount: money(row.payment.amountMinor, row.payment.currency, lang), hold: holdView(deps, row.intention, timeZone) } };
}

/** The buyer's answer to the extra verification (`approved` or not), and the page of its outcome. */
export async function answerVerify(deps: CheckoutPageDeps, partner: PartnerRow, lang: Lang, row: BuyersPayment, approved: boolean): Promise<Answer> {
  return await outcomeAnswer(deps, partner, row.intention, lang, await answerVerification(deps, row.payment, approved));
}

/**
 * Back from the hosted provider: the checkout while its payment is open (or none, or
 * cancelled), else the page that waits for the provider's confirmation.
 */
export async function loadReturn(deps: Pick<AppDeps, 'db' | 'payments'>, partner: PartnerRow, lang: Lang, intention: IntentionRow): Promise<Answer | { kind: 'page'; view: ConfirmingView }> {
  const payment = await deps.db.read(async (tx) => await deps.payments.hostedOf(tx, intention.id));
  if (!payment || payment.state === 'open' || payment.state === 'cancelled') return { kind: 'redirect', to: checkoutPath(partner, intention, lang), status: 302 };
  return { kind: 'page', view: { here: servicePaths.checkoutReturn(partner.id, intention.id, { lang }) } };
}

/**
 * The receipt of a paid checkout; a PENDING one goes on at the checkout, one that ended says
 * so. `brandName` is the name the page's header goes back to the partner by.
 */
export async function loadReceipt(deps: CheckoutPageDeps, input: { partner: PartnerRow; lang: Lang; intention: IntentionRow; brandName: string | undefined }): Promise<Answer | { kind: 'page'; view: ReceiptView }> {
  const { partner, lang, intention } = input;
  // Not paid yet: the checkout is where it goes on.
  if (intention.state === 'PENDING') return { kind: 'redirect', to: checkoutPath(partner, intention, lang), status: 302 };
  if (intention.state !== 'PAID') return await outcomeAnswer(deps, partner, intention, lang, { kind: 'ended', state: intention.state });
  const { order, payment } = await deps.db.read(async (tx) => ({ order: await readOrder(deps, tx, intention), payment: await deps.payments.paymentOfPaid(tx, intention.id) }));
  // Named as the header's way back names it: the same place, the same words.
  const back = intention.returnTo ? { href: intention.returnTo, label: input.brandName ? t(lang, 'backTo', { name: input.brandName }) : cm(lang, 'backToSite') } : await marketLink(deps, partner, intention, lang);
  // The secure view is signed for the ticket's owner: linked while the buyer still holds it.
  const ticketHref = (ticket: TicketRow) => (ticket.ownerPk === intention.buyerPk ? servicePaths.ticketView(secureViewToken(deps, ticket)) : null);
  return {
    kind: 'page',
    view: {
      order: orderView(order, intention, lang, ticketHref),
      reference: intention.id,
      paidAt: intention.paidAt ?? intention.updatedAt,
      method: paidWith(payment, lang),
      refunded: payment?.state === 'refund_pending' || payment?.state === 'refunded',
      back,
    },
  };
}

/**
 * The buyer gives their checkout's tickets back before paying: a PENDING intention is cancelled
 * (its listings for sale again at once, as at its end); one that ended meanwhile (paid, expired)
 * is left as it is. Answers where to go: the show's market, saying so (`released=1`).
 */
export async function releaseCheckout(deps: Pick<AppDeps, 'db' | 'intentions'>, partner: PartnerRow, lang: Lang, intention: IntentionRow): Promise<string> {
  return await deps.db.transact(async (tx) => {
    if (intention.state === 'PENDING') await deps.intentions.endIfPending(tx, intention.id, 'CANCELLED', 'buyer');
    const { show, event } = (await showWithEvent(tx, intention.showPk))!;
    return servicePaths.market(partner.id, event.externalReferenceId, { showId: show.showId, lang, released: '1' });
  });
}
