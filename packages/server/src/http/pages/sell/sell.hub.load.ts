import type { Lang } from '@resale/shared/lang';
import type { AppDeps } from '../../../context.js';
import { ApiError } from '../../../lib/errors.js';
import { inOrder } from '../../../lib/in-order.js';
import { servicePaths } from '../../../lib/urls.js';
import type { SessionData } from '../../../domain/auth/auth.service.js';
import { showsWithEvents, ticketOptionsByPks } from '../../../domain/events/events.queries.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { PayoutAccounts, type PayoutAccountView } from '../../../domain/payouts/payouts.accounts.js';
import { sellerPayoutReady } from '../../../domain/payouts/payouts.queries.js';
import { ownedTicketsByRefs } from '../../../domain/tickets/tickets.queries.js';
import { parseTypedPrice, verifyOwnership } from '../../../flows/sell.js';
import { stripeView, type SellDeps, type StripeView } from './sell.load.js';
import { sm } from './sell.messages.js';

/**
 * Loads and actions of smart publish, the order flow and the payout pages (sell.hub.tsx
 * answers them; sell.hub.view.tsx and sell.payout.view.tsx render them).
 */

/** A ticket of the seller in the hub pages, with what can be done with it. */
export interface HubTicket {
  ticketId: string;
  orderId: string | null;
  showPk: string;
  showTitle: string;
  eventTitle: string;
  startsAt: number;
  /** The venue's time zone (the show's, else the event's); null when unknown. */
  timeZone: string | null;
  optionTitle: string;
  groupKey: string;
  sellable: boolean;
  listingId: string | null;
}

/** The seller's tickets, or why the live ownership check stops them (see `Refusal`, sell.load.ts). */
export type SellerTickets = { kind: 'signIn' } | { kind: 'unavailable' } | { kind: 'ok'; userPk: string; list: HubTicket[] };

/** Verifies ownership live (synchronising what we did not know), and lists the seller's tickets of upcoming shows. */
export async function sellerTickets(deps: SellDeps, partner: PartnerRow, userPk: string): Promise<SellerTickets> {
  const user = await deps.db.read(async (tx) => await deps.users.get(tx, partner.id, userPk));
  const v = await verifyOwnership(deps, partner, user);
  if (v.kind === 'no_account') return { kind: 'signIn' };
  if (v.kind === 'unavailable') return { kind: 'unavailable' };
  const now = deps.clock.now();
  const list = await deps.db.read(async (tx) => {
    const owned = await ownedTicketsByRefs(tx, partner.id, user.id, [...v.ticketIds], ['VALID', 'LISTED']);
    // Their shows, events and options in one read each; upcoming shows only, earliest first.
    const shows = await showsWithEvents(tx, owned.map((t) => t.showPk));
    const options = await ticketOptionsByPks(tx, owned.map((t) => t.ticketOptionPk));
    const rows = owned
      .flatMap((t) => {
        const s = shows.get(t.showPk);
        const o = options.get(t.ticketOptionPk);
        return s && o && s.show.startsAt > now ? [{ t, showTitle: s.show.title, startsAt: s.show.startsAt, timeZone: (s.show.location ?? s.event.location).timeZone ?? null, eventTitle: s.event.title, optionTitle: o.title }] : [];
      })
      .sort((a, b) => a.startsAt - b.startsAt || (a.t.ticketId < b.t.ticketId ? -1 : a.t.ticketId > b.t.ticketId ? 1 : 0));
    return await inOrder(rows, async (r): Promise<HubTicket> => {
      const live = r.t.state === 'LISTED' ? await deps.listings.liveListingOf(tx, r.t.id) : undefined;
      return {
        ticketId: r.t.ticketId,
        orderId: r.t.orderId,
        showPk: r.t.showPk,
        showTitle: r.showTitle,
        eventTitle: r.eventTitle,
        startsAt: r.startsAt,
        timeZone: r.timeZone,
        optionTitle: r.optionTitle,
        groupKey: `${r.t.ticketOptionPk}|${r.t.priceTypePk ?? ''}`,
        sellable: r.t.state === 'VALID' && (await deps.listings.notSellable(tx, r.t)) === null,
        listingId: live && live.sellerPk === user.id ? live.id : null,
      };
    });
  });
  return { kind: 'ok', userPk: user.id, list };
}

/** A ticket in a list of the hub pages, with its link: manage its listing, or sell it. */
export interface HubTicketItem {
  optionTitle: string;
  ticketId: string;
  link: { href: string; label: 'manage' | 'sell' } | null;
}

/** The list items of `list`, linked to their listing or sell page. */
export function ticketItems(partnerId: string, list: HubTicket[], lang: Lang): HubTicketItem[] {
  return list.map((x) => ({
    optionTitle: x.optionTitle,
    ticketId: x.ticketId,
    link: x.listingId ? { href: servicePaths.sellListing(partnerId, x.listingId, { lang }), label: 'manage' } : x.sellable ? { href: servicePaths.sellTicket(partnerId, x.ticketId, { lang }), label: 'sell' } : null,
  }));
}

/** A show to choose on the smart publish page. */
export interface HubShow {
  href: string;
  eventTitle: string;
  showTitle: string;
  startsAt: number;
  timeZone: string | null;
}

/**
 * Where smart publish leads: nothing to sell, only listings to manage, straight to the one
 * ticket or the one show, or the shows to choose from.
 */
export type SmartPublish = { kind: 'empty' } | { kind: 'listings'; items: HubTicketItem[] } | { kind: 'redirect'; to: string } | { kind: 'shows'; shows: HubShow[] };

/** {@link SmartPublish} of the seller's tickets `list`. */
export function smartPublish(partnerId: string, list: HubTicket[], lang: Lang): SmartPublish {
  const useful = list.filter((x) => x.sellable || x.listingId);
  const sellable = useful.filter((x) => x.sellable);
  if (useful.length === 0) return { kind: 'empty' };
  if (sellable.length === 0) return { kind: 'listings', items: ticketItems(partnerId, useful, lang) };
  if (useful.length === 1) return { kind: 'redirect', to: servicePaths.sellTicket(partnerId, sellable[0]!.ticketId, { lang }) };
  const byShow = [...new Map(useful.map((x) => [x.showPk, x])).values()];
  if (byShow.length === 1) return { kind: 'redirect', to: servicePaths.sellShow(partnerId, byShow[0]!.showPk, { lang }) };
  return { kind: 'shows', shows: byShow.map((s) => ({ href: servicePaths.sellShow(partnerId, s.showPk, { lang }), eventTitle: s.eventTitle, showTitle: s.showTitle, startsAt: s.startsAt, timeZone: s.timeZone })) };
}

/** The seller's tickets of one show, data only. */
export interface ShowView {
  eventTitle: string;
  showTitle: string;
  items: HubTicketItem[];
}

/** The seller's tickets of show `showPk` in `list`; null when they have none. */
export function showOf(partnerId: string, list: HubTicket[], showPk: string | undefined, lang: Lang): ShowView | null {
  const mine = list.filter((x) => x.showPk === showPk);
  if (mine.length === 0) return null;
  return { eventTitle: mine[0]!.eventTitle, showTitle: mine[0]!.showTitle, items: ticketItems(partnerId, mine, lang) };
}

/** The order page, data only. */
export interface OrderView {
  orderId: string;
  eventTitle: string;
  showTitle: string;
  items: HubTicketItem[];
  /** The currency of the order's sellable tickets; null when none is sellable (no price form). */
  currency: string | null;
  /** Set when the seller has no payout account yet: whether it is Stripe's, and where to add it. */
  payoutMissing: { stripe: boolean; href: string } | null;
}

/** Loads the page of order `orderId` from the seller's tickets `list`; null when none is of that order. */
export async function loadOrder(deps: Pick<AppDeps, 'db' | 'tickets' | 'listings' | 'payouts'>, partnerId: string, userPk: string, list: HubTicket[], orderId: string, lang: Lang): Promise<OrderView | null> {
  const mine = list.filter((x) => x.orderId === orderId);
  if (mine.length === 0) return null;
  const sellable = mine.filter((x) => x.sellable);
  const currency = sellable.length > 0 ? await deps.db.read(async (tx) => (await deps.listings.quote(tx, await deps.tickets.get(tx, partnerId, sellable[0]!.ticketId), null)).currency) : null;
  const unpaid = currency !== null && !(await deps.db.read(async (tx) => await sellerPayoutReady(tx, userPk, !!deps.payouts.connect)));
  return {
    orderId,
    eventTitle: mine[0]!.eventTitle,
    showTitle: mine[0]!.showTitle,
    items: ticketItems(partnerId, mine, lang),
    currency,
    payoutMissing: unpaid ? { stripe: !!deps.payouts.connect, href: servicePaths.sellPayout(partnerId, { lang }) } : null,
  };
}

/** The seller's tickets of order `orderId` that can be sold now. */
export function sellableOfOrder(list: HubTicket[], orderId: string): HubTicket[] {
  return list.filter((x) => x.orderId === orderId && x.sellable);
}

/**
 * Lists the order's `sellable` tickets in one transaction at the price typed: one pack per
 * ticket option and price type. Refused (nothing listed) with the message to show.
 */
export async function publishOrder(deps: Pick<AppDeps, 'db' | 'tickets' | 'listings' | 'payouts'>, partnerId: string, userPk: string, sellable: HubTicket[], price: string, lang: Lang): Promise<{ kind: 'published' } | { kind: 'failed'; message: string }> {
  const groups = new Map<string, HubTicket[]>();
  for (const x of sellable) groups.set(x.groupKey, [...(groups.get(x.groupKey) ?? []), x]);
  try {
    await deps.db.transact(async (tx) => {
      const first = await deps.tickets.get(tx, partnerId, sellable[0]!.ticketId);
      const priceMinor = parseTypedPrice(price, (await deps.listings.quote(tx, first, null)).currency);
      const unpaid = !(await sellerPayoutReady(tx, userPk, !!deps.payouts.connect));
      for (const group of groups.values()) {
        await deps.listings.create(tx, partnerId, { sellerPk: userPk, ticketPks: await inOrder(group, async (x) => (await deps.tickets.get(tx, partnerId, x.ticketId)).id), priceMinor });
      }
      // As on the ticket's sell page: the price's errors first, then where the money goes (rolled back).
      if (unpaid) throw new ApiError(400, 'missing_field', sm(lang, deps.payouts.connect ? 'stripeRequired' : 'payoutRequired'), { path: 'iban' });
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { kind: 'failed', message: err.message };
  }
  return { kind: 'published' };
}

/** The payout page, data only: the seller's Stripe account (with a payout provider), or the bank account we pay them into. */
export type PayoutView = { kind: 'stripe'; stripe: StripeView } | { kind: 'iban'; saved: PayoutAccountView | null };

/** Loads the payout page of the seller `userPk`; `country`: the one to preselect while no Stripe account is opened. */
export async function loadPayout(deps: SellDeps, userPk: string, lang: Lang, country: string | undefined): Promise<PayoutView> {
  if (deps.payouts.connect) {
    const account = await deps.db.read(async (tx) => await deps.payouts.connect!.view(tx, userPk));
    return { kind: 'stripe', stripe: stripeView(account, lang, country) };
  }
  const saved = await deps.db.read(async (tx) => await new PayoutAccounts(deps).view(tx, userPk));
  return { kind: 'iban', saved };
}

/** Saves where the stepped-up seller is paid by bank transfer; refused with the errors by field. */
export async function savePayoutAccount(deps: SellDeps, session: SessionData, form: { holderName: string; iban: string }, lang: Lang): Promise<{ kind: 'saved' } | { kind: 'invalid'; errors: Record<string, string> }> {
  try {
    await deps.db.transact(async (tx) => await new PayoutAccounts(deps).change(tx, session, { holderName: form.holderName, iban: form.iban }, lang));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { kind: 'invalid', errors: { [err.entries[0]!.path ?? 'iban']: err.message } };
  }
  return { kind: 'saved' };
}

/**
 * Reads the seller's account from the payout provider and keeps it (its `account.updated`
 * events keep it too); a provider that does not answer is only logged.
 */
export async function refreshStripeAccount(deps: Pick<AppDeps, 'payouts' | 'logger'>, userPk: string): Promise<void> {
  await deps.payouts.connect!.refresh(userPk).catch((err: unknown) => deps.logger.warn({ err }, 'could not read the seller’s Stripe account; its events will tell'));
}

/** The payout provider's onboarding: where to send the seller, or why not. */
export type OnboardingLink = { kind: 'redirect'; to: string } | { kind: 'countryError'; message: string } | { kind: 'unavailable' };

/** The payout provider's dashboard: where to send the seller, or why not. */
export type DashboardLink = { kind: 'redirect'; to: string } | { kind: 'notReady' } | { kind: 'unavailable' };

/**
 * The provider's onboarding link of the stepped-up seller (Stripe Connect), their account
 * opened first in `country` when they have none: a missing or unknown country is a
 * `countryError`; any other refusal is logged and `unavailable`.
 */
export async function onboardingLink(deps: Pick<AppDeps, 'payouts' | 'logger'>, partnerId: string, session: SessionData, urls: { returnUrl: string; refreshUrl: string }, lang: Lang, country: string | null): Promise<OnboardingLink> {
  try {
    return { kind: 'redirect', to: await deps.payouts.connect!.onboardingLink(session, urls, lang, country) };
  } catch (err) {
    if (err instanceof ApiError && err.entries[0]?.path === 'country') return { kind: 'countryError', message: sm(lang, country ? 'countryInvalid' : 'countryRequired') };
    deps.logger.warn({ err, partnerId }, 'the payout provider did not open onboarding');
    return { kind: 'unavailable' };
  }
}

/**
 * The provider's dashboard link of the stepped-up seller's account (Stripe Express): an
 * account not finished is `notReady`; any other refusal is logged and `unavailable`.
 */
export async function dashboardLink(deps: Pick<AppDeps, 'payouts' | 'logger'>, partnerId: string, session: SessionData): Promise<DashboardLink> {
  try {
    return { kind: 'redirect', to: await deps.payouts.connect!.dashboardLink(session) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return { kind: 'notReady' };
    deps.logger.warn({ err, partnerId }, 'the payout provider did not open the seller’s dashboard');
    return { kind: 'unavailable' };
  }
}
