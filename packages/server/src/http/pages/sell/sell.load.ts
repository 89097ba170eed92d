import type { Lang } from '@resale/shared/lang';
import { priceBreakdown, type FeeSchedule, type PriceBreakdown } from '@resale/shared/fees';
import { ticketName } from '../../../lib/seats.js';
import type { AppDeps } from '../../../context.js';
import { ApiError } from '../../../lib/errors.js';
import { t } from '../../../lib/i18n.js';
import type { Place } from '../../../lib/seats.js';
import type { SessionData } from '../../../domain/auth/auth.service.js';
import { listingById, type ListingRow } from '../../../domain/listings/listings.queries.js';
import type { PriceLimits } from '../../../domain/listings/listings.pricing.js';
import type { NotSellableReason } from '../../../domain/listings/listings.service.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { PayoutAccounts, type PayoutAccountView } from '../../../domain/payouts/payouts.accounts.js';
import type { ConnectAccountView } from '../../../domain/payouts/payouts.connect.js';
import { sellerPayoutReady } from '../../../domain/payouts/payouts.queries.js';
import { payoutCountry, payoutCountryOptions } from '../../../domain/payouts/payouts.countries.js';
import { eventOfTicket } from '../../../flows/sell.queries.js';
import { parseTypedPrice, verifyOwnership } from '../../../flows/sell.js';
import { aboveFace, howFarAbove, money, typed } from './sell.format.js';
import { sm } from './sell.messages.js';

/**
 * Loads and actions of the ticket's sell page and the seller's listing page: plain inputs (the
 * partner, the session's user, the path's ids, the form's fields) in, a view model or an
 * outcome out. The routes (sell.pages.tsx) answer them; the views (sell.view.tsx) render them.
 */

/** What the sell pages' loads and actions use. */
export type SellDeps = Pick<AppDeps, 'db' | 'clock' | 'box' | 'logger' | 'partners' | 'users' | 'messages' | 'tickets' | 'listings' | 'payouts' | 'auth'>;

/** The errors of a sell form, by field (`form`: the form as a whole). */
export type FieldErrors = Partial<Record<'price' | 'holderName' | 'iban' | 'form' | 'aboveFace' | 'country', string>>;

/**
 * Why the live ownership check stops the seller: the platform knows no account of theirs (sign
 * in again), it did not answer, or (for one ticket) the ticket is not in their account.
 */
export type Refusal = { kind: 'signIn' } | { kind: 'unavailable' } | { kind: 'notYours' };

/**
 * The seller's connected account at the payout provider (Stripe Connect) as the sell pages
 * show it, with the countries an account may be opened in (named in the page's language) and
 * the one preselected while none is opened.
 */
export interface StripeView {
  account: ConnectAccountView | null;
  countries: { options: readonly { code: string; name: string }[]; selected: string | null };
}

/** {@link StripeView} of `account`, `country` preselected when it is one payouts can go to. */
export function stripeView(account: ConnectAccountView | null, lang: Lang, country: string | null | undefined): StripeView {
  return { account, countries: { options: payoutCountryOptions(lang), selected: payoutCountry(country) } };
}

/** Verifies the user still owns `ticketId` (live), or says why not. */
export async function checkOwned(deps: SellDeps, partner: PartnerRow, userPk: string, ticketId: string): Promise<Refusal | null> {
  const user = await deps.db.read(async (tx) => await deps.users.get(tx, partner.id, userPk));
  const v = await verifyOwnership(deps, partner, user, [ticketId]);
  if (v.kind === 'no_account') return { kind: 'signIn' };
  if (v.kind === 'unavailable') return { kind: 'unavailable' };
  if (!v.ticketIds.has(ticketId)) return { kind: 'notYours' };
  return null;
}

/** Where the sell page of a ticket leads: the seller's live listing of it, why it cannot be sold, or its form. */
export type TicketEntry = Refusal | { kind: 'listing'; listingId: string } | { kind: 'notSellable'; reason: NotSellableReason } | { kind: 'form' };

/** {@link TicketEntry} of `ticketId` for the user `userPk`, its ownership verified live first. */
export async function ticketEntry(deps: SellDeps, partner: PartnerRow, userPk: string, ticketId: string): Promise<TicketEntry> {
  const refused = await checkOwned(deps, partner, userPk, ticketId);
  if (refused) return refused;
  const { live, reason } = await deps.db.read(async (tx) => {
    const ticket = await deps.tickets.get(tx, partner.id, ticketId);
    return { live: await deps.listings.liveListingOf(tx, ticket.id), reason: await deps.listings.notSellable(tx, ticket) };
  });
  if (live && live.sellerPk === userPk) return { kind: 'listing', listingId: live.id };
  if (reason) return { kind: 'notSellable', reason };
  return { kind: 'form' };
}

/** A price typed for `ticketId` (back from a step-up) in minor units; null when empty or not a price. */
export async function typedPreview(deps: SellDeps, partnerId: string, ticketId: string, price: string): Promise<number | null> {
  const { currency } = await deps.db.read(async (tx) => await deps.listings.quote(tx, await deps.tickets.get(tx, partnerId, ticketId), null));
  try {
    return parseTypedPrice(price, currency);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return null;
  }
}

/** What a sell form shows again: the values typed, their errors, and the price they parsed to. */
export interface SellFormState {
  price?: string;
  errors?: FieldErrors;
  preview?: number | null;
  holderName?: string;
  /** The account number as typed, kept when the form comes back (a typo is corrected, not retyped). */
  iban?: string;
  /** The payout country chosen (kept through the step-up); else the query's, else the venue's. */
  country?: string | undefined;
}

/** The sell form of one ticket, data only (rendered by `SellForm`, sell.view.tsx). */
export interface SellFormView {
  /** `ticket`: the ticket named once, its category then its place (lib/seats.ts `ticketName`). */
  facts: { eventTitle: string; showTitle: string; startsAt: number; timeZone: string | null; optionTitle: string; ticket: string };
  currency: string;
  limits: PriceLimits;
  /** The price field's value. */
  price: string;
  /** Whether the price typed asks more than face value: the form then asks for a confirmation. */
  askAboveFace: boolean;
  breakdown: PriceBreakdown | null;
  /** The fees that apply, for the live calculation as the seller types. */
  fees: FeeSchedule;
  payout: PayoutAccountView | null;
  /** With a payout provider (Stripe Connect): the seller's connected account, instead of IBAN fields. */
  stripe?: StripeView | undefined;
  /** Whether the session must confirm it's you (step-up) before payout fields are shown. */
  needsStepUp: boolean;
  errors: FieldErrors;
  holderName: string;
  iban: string;
  /**
   * Why Publish cannot work yet, when it cannot (it is disabled and this says why): no payout
   * account and none can be added on this page without a fresh code first, or a payout
   * provider's account not ready. Null when the form can publish (or add the account itself).
   */
  publishBlocked: string | null;
  payoutDelayDays: number;
}

/** Loads the sell form of `ticketId` for the seller of `session`, showing `state` again. */
export async function loadSellForm(deps: SellDeps, partner: PartnerRow, session: SessionData, ticketId: string, lang: Lang, state: SellFormState): Promise<SellFormView> {
  const accounts = new PayoutAccounts(deps);
  const { ticket, facts, quote, payout, stripe } = await deps.db.read(async (tx) => {
    const ticket = await deps.tickets.get(tx, partner.id, ticketId);
    return {
      ticket,
      facts: await eventOfTicket(tx, ticket),
      quote: await deps.listings.quote(tx, ticket, state.preview ?? null),
      payout: await accounts.view(tx, session.userPk),
      stripe: deps.payouts.connect ? { view: await deps.payouts.connect.view(tx, session.userPk) } : undefined,
    };
  });
  return {
    // The ticket named once: its category, then its place (a section named as the category said once).
    facts: { ...facts, ticket: ticketName(facts.optionTitle, { section: ticket.section, row: ticket.row, seat: ticket.seat }, lang) },
    currency: quote.currency,
    limits: quote.limits,
    price: state.price ?? typed(quote.limits.originalMinor, quote.currency),
    askAboveFace: aboveFace(state.preview ?? null, quote.limits),
    // The money of the price shown: calculated, fixed, or (on first opening) the face value prefilled.
    breakdown:
      quote.limits.fixedMinor !== null || state.preview != null
        ? quote.breakdown
        : state.price === undefined && quote.limits.originalMinor !== null
          ? priceBreakdown(quote.limits.originalMinor, quote.fees)
          : null,
    fees: quote.fees,
    payout,
    // The country preselected for a Stripe account not opened yet: the seller's earlier choice (kept through the step-up), else the venue's.
    stripe: stripe ? stripeView(stripe.view, lang, state.country ?? facts.country) : undefined,
    needsStepUp: !deps.auth.isSteppedUp(session),
    errors: state.errors ?? {},
    holderName: state.holderName ?? '',
    iban: state.iban ?? '',
    publishBlocked: stripe
      ? stripe.view?.status === 'ready'
        ? null
        : sm(lang, 'publishNeedsStripe')
      : !payout && !deps.auth.isSteppedUp(session)
        ? sm(lang, 'publishNeedsPayout')
        : null,
    payoutDelayDays: partner.settings.payoutDelayDays,
  };
}

/** The sell form as posted (a field not sent is empty). */
export interface SellFormInput {
  intent: string;
  price: string;
  holderName: string;
  iban: string;
  country: string;
  aboveFace: string;
}

/**
 * What posting the sell form comes to: a refusal of the ownership check, the way to a step-up
 * or to the provider's onboarding (`back`: this page with the price typed so far), the form
 * again (Calculate, or what was wrong), or the listing published.
 */
export type PublishOutcome =
  | Refusal
  | { kind: 'stepUp'; back: string }
  | { kind: 'onboarding'; back: string; country: string | null; state: SellFormState }
  | { kind: 'form'; state: SellFormState }
  | { kind: 'published'; listingId: string };

/**
 * Posts the sell form of `ticketId` (at `path`) for the seller of `session`: re-verifies
 * ownership live, validates the price and, without a payout provider, saves the payout details
 * given (stepped up only), and publishes only a listing whose seller we can pay.
 */
export async function publishTicket(deps: SellDeps, partner: PartnerRow, session: SessionData, ticketId: string, path: string, form: SellFormInput, lang: Lang): Promise<PublishOutcome> {
  const refused = await checkOwned(deps, partner, session.userPk, ticketId);
  if (refused) return refused;
  const { ticket, currency, limits } = await deps.db.read(async (tx) => {
    const ticket = await deps.tickets.get(tx, partner.id, ticketId);
    const quote = await deps.listings.quote(tx, ticket, null);
    return { ticket, currency: quote.currency, limits: quote.limits };
  });
  const errors: FieldErrors = {};
  let priceMinor: number | null = null;
  try {
    priceMinor = parseTypedPrice(form.price, currency);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    errors.price = err.message;
  }
  const state = { price: form.price, holderName: form.holderName, iban: form.iban, country: form.country };
  if (form.intent === 'stepup' || (form.intent === 'stripe' && deps.payouts.connect)) {
    const chosen = payoutCountry(state.country);
    const back = `${path}?${new URLSearchParams({ lang, ...(state.price ? { price: state.price.slice(0, 20) } : {}), ...(chosen ? { country: chosen } : {}) })}`;
    // To Stripe's onboarding with the price typed so far (it comes back to this page); a step-up first.
    if (form.intent === 'stripe' && deps.auth.isSteppedUp(session)) return { kind: 'onboarding', back, country: form.country || null, state: { ...state, preview: priceMinor } };
    return { kind: 'stepUp', back };
  }
  if (form.intent !== 'publish') return { kind: 'form', state: { ...state, errors, preview: priceMinor } };
  // Every problem at once: the price, its confirmation above face value, the rules and where we
  // pay the seller are all checked, in a transaction that writes only when none is found.
  if (aboveFace(priceMinor, limits) && form.aboveFace !== '1') {
    errors.aboveFace = sm(lang, 'aboveFaceRequired', { howFar: howFarAbove(priceMinor!, limits.originalMinor!, lang), face: money(limits.originalMinor!, currency, lang) });
  }
  const accounts = new PayoutAccounts(deps);
  /** Thrown to roll the transaction back once every problem is in `errors`. */
  const refusedWhole = new Error('refused: see the form errors');
  try {
    const listing = await deps.db.transact(async (tx) => {
      if (!deps.payouts.connect && (form.iban || form.holderName)) {
        // Payout details need a fresh step-up (see auth.step-up.tsx); without one nothing is published either.
        if (!deps.auth.isSteppedUp(session)) errors.iban = sm(lang, 'payoutStepUpFirst');
        else {
          try {
            await accounts.change(tx, session, { holderName: form.holderName, iban: form.iban }, lang);
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            for (const entry of err.entries) errors[entry.path as 'iban' | 'holderName'] ??= entry.message;
          }
        }
      }
      // Nobody may buy a listing whose seller we cannot pay: where the money goes is asked for
      // with the rest (the transaction rolls everything back while anything is missing).
      if (!errors.iban && !errors.holderName && !(await sellerPayoutReady(tx, session.userPk, !!deps.payouts.connect))) {
        errors.iban = sm(lang, deps.payouts.connect ? 'stripeRequired' : deps.auth.isSteppedUp(session) ? 'payoutRequired' : 'payoutRequiredStepUp');
      }
      let created: ListingRow | null = null;
      if (!errors.price) {
        try {
          // The price's own rules (create checks them).
          created = await deps.listings.create(tx, partner.id, { sellerPk: session.userPk, ticketPks: [ticket.id], priceMinor });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          if (err.entries[0]?.path === 'price') errors.price = err.message;
          else errors.form = err.message;
        }
      }
      if (Object.keys(errors).length > 0 || !created) throw refusedWhole;
      return created;
    });
    return { kind: 'published', listingId: listing.id };
  } catch (err) {
    if (err !== refusedWhole) throw err;
    return { kind: 'form', state: { ...state, errors, preview: priceMinor } };
  }
}

/** The seller's own listing `listingId` of `partnerId`, or null (another seller's reads as not found). */
export async function ownListing(deps: Pick<AppDeps, 'db'>, partnerId: string, userPk: string, listingId: string): Promise<ListingRow | null> {
  const l = await deps.db.read(async (tx) => await listingById(tx, listingId));
  return l && l.partnerId === partnerId && l.sellerPk === userPk ? l : null;
}

/** A seller's listing page, data only (rendered by `ListingPage`, sell.view.tsx). */
export interface ListingView {
  listing: Pick<ListingRow, 'state' | 'currency' | 'priceMinor' | 'payoutMinor' | 'quantity'>;
  /** The link that sells this listing directly. */
  shareUrl: string;
  facts: { eventTitle: string; showTitle: string; startsAt: number; timeZone: string | null; optionTitle: string };
  /** Where each ticket of the listing is. */
  places: Place[];
  /** What happens to the money of one ticket, at the fees the listing was published with. */
  breakdown: PriceBreakdown;
  /** When a sold listing is paid out: the partner's delay after the show. */
  payoutDay: number;
}

/** Loads the page of `listing` (the seller's own, see {@link ownListing}). */
export async function loadListing(deps: Pick<AppDeps, 'db' | 'listings'>, partner: PartnerRow, listing: ListingRow): Promise<ListingView> {
  const { api, facts, tickets } = await deps.db.read(async (tx) => {
    const tickets = await deps.listings.ticketsOf(tx, listing.id);
    return { api: await deps.listings.toApi(tx, listing), facts: await eventOfTicket(tx, tickets[0]!), tickets };
  });
  return {
    listing,
    shareUrl: api.shareUrl,
    facts,
    places: tickets.map((t) => ({ section: t.section, row: t.row, seat: t.seat })),
    breakdown: priceBreakdown(listing.priceMinor, { buyerPercent: 0, buyerFixedMinor: listing.buyerFeeMinor, sellerPercent: 0, sellerFixedMinor: listing.sellerFeeMinor }),
    payoutDay: new Date(facts.startsAt + partner.settings.payoutDelayDays * 86_400_000).getTime(),
  };
}

/** What "Remove your listing?" names: the listing's show, and its price. */
export interface RemovalView {
  eventTitle: string;
  showTitle: string;
  priceMinor: number;
  currency: string;
}

/** Loads the confirmation of removing `listing`. */
export async function loadRemoval(deps: Pick<AppDeps, 'db' | 'listings'>, listing: ListingRow): Promise<RemovalView> {
  const facts = await deps.db.read(async (tx) => await eventOfTicket(tx, (await deps.listings.ticketsOf(tx, listing.id))[0]!));
  return { eventTitle: facts.eventTitle, showTitle: facts.showTitle, priceMinor: listing.priceMinor, currency: listing.currency };
}

/**
 * What a change of a listing comes to: its price changed, the confirmation to ask before
 * removing, the listing removed, or refused (the listing read again, with the errors to show).
 */
export type ListingChange = { kind: 'updated' } | { kind: 'confirmRemove' } | { kind: 'removed' } | { kind: 'failed'; listing: ListingRow; errors: FieldErrors };

/**
 * Changes the seller's `listing`: its price (`price`), or removes it (`remove`), only once the
 * seller has confirmed (`confirm` is `1`).
 */
export async function changeListing(deps: Pick<AppDeps, 'db' | 'listings'>, partnerId: string, userPk: string, listing: ListingRow, action: 'price' | 'remove', form: { price: string; confirm: string }, lang: Lang): Promise<ListingChange> {
  try {
    if (action === 'price') {
      const priceMinor = parseTypedPrice(form.price, listing.currency);
      if (priceMinor === null) throw ApiError.field('missing_field', 'price', t(lang, 'errorText'));
      await deps.db.transact(async (tx) => await deps.listings.updatePrice(tx, partnerId, listing.id, userPk, priceMinor));
      return { kind: 'updated' };
    }
    // Removing is asked twice: the listing page's button leads here, and only this page's
    // confirmation (confirm=1) removes. Without script, as every form of the flow.
    if (form.confirm !== '1') return { kind: 'confirmRemove' };
    await deps.db.transact(async (tx) => await deps.listings.terminateByTicket(tx, partnerId, (await deps.listings.ticketsOf(tx, listing.id))[0]!.ticketId, userPk));
    return { kind: 'removed' };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const fresh = await deps.db.read(async (tx) => await deps.listings.get(tx, partnerId, listing.id));
    return { kind: 'failed', listing: fresh, errors: err.entries[0]?.path === 'price' ? { price: err.message } : { form: err.message } };
  }
}
