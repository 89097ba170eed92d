import type { Lang } from '@resale/shared/lang';
import { createHash } from 'node:crypto';
import type { AppDeps } from '../../../context.js';
import { ApiError } from '../../../lib/errors.js';
import { partnerReturnTo, RETURN_TO_TAG_PARAM } from '../../../domain/auth/auth.urls.js';
import { HoldLimitError, type HoldLimit } from '../../../domain/intentions/intentions.service.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { isPrimaryScarce, primarySale } from '../../../domain/marketdata/marketdata.service.js';
import { servicePaths } from '../../../lib/urls.js';
import { marketEvent, offers, type Offer } from '../../../flows/market.queries.js';
import { OrphanSeatError, seatMapData, strandedAlone, type SeatMapData } from '../../../flows/market.seatmap.js';
import { refuseTaken, reserveListings } from '../../../flows/reserve-listings.js';
import { listingsByIds } from '../../../domain/listings/listings.queries.js';
import { intentionById, liveHoldsOfShow } from '../../../domain/intentions/intentions.queries.js';
import { userByPk } from '../../../domain/users/users.queries.js';
import { buyerKey } from '../../../domain/marketdata/leads.service.js';
import { leadOfBuyer } from '../../../domain/marketdata/leads.queries.js';
import { LeadInputSchema } from '../../../domain/marketdata/leads.schemas.js';
import { ticketOptionsOfShow } from '../../../domain/events/events.queries.js';
import { DEFAULT_HOLD_LIMITS } from '../../../domain/partners/partners.settings.js';
import { joinFromMarket, leaveFromMarket } from '../../../flows/waiting-list-market.js';

/**
 * The market page's loading and its Buy: what the page reads and shows (a plain view model,
 * see market.view.tsx), and what a Buy comes to (an outcome the handler answers). No request
 * here: the handlers (market.pages.tsx) read it and pass plain values.
 */

/** Most listings one checkout takes from the seat map (a pick of many singles). */
const MAX_SELECTION = 20;

/** The partner of the path, or null when there is none. */
export async function findPartner(deps: Pick<AppDeps, 'db'>, partnerId: string): Promise<PartnerRow | null> {
  return (await deps.db.read(async (tx) => await partnerById(tx, partnerId))) ?? null;
}

// ------------------------------------------------------------------ the page

/**
 * Everything the market page shows, read at once (one turn of the queue): the partner, its
 * event, the visible shows, the show asked for (`showId`, else the first), and for a show not
 * cancelled its offers and the partner's primary-sale report (market data).
 */
export async function readMarket(deps: Pick<AppDeps, 'db'>, ref: { partnerId: string; eventRef: string; showId: string | undefined }) {
  return await deps.db.read(async (tx) => {
    const partner = (await partnerById(tx, ref.partnerId)) ?? null;
    const found = partner ? await marketEvent(tx, partner.id, ref.eventRef) : null;
    const visible = found?.shows.filter((s) => s.status !== 'HIDDEN') ?? [];
    const show = visible.find((s) => s.showId === ref.showId) ?? visible[0];
    const live = show !== undefined && show.status !== 'CANCELLED';
    // The show's live holds and how many tickets each keeps off sale: the viewer's own, and others' that may come back.
    const holds = live ? await liveHoldsOfShow(tx, show.id) : [];
    const held = holds.length > 0 && partner ? await listingsByIds(tx, partner.id, holds.flatMap((h) => h.listingIds)) : [];
    const ticketsOf = new Map(held.map((l) => [l.id, l.quantity]));
    const holdsWithTickets = holds.map((h) => ({ ...h, tickets: h.listingIds.reduce((n, id) => n + (ticketsOf.get(id) ?? 0), 0) }));
    return { partner, found, visible, show, everything: live ? await offers(tx, show.id) : [], primary: live ? await primarySale(tx, show.id) : null, holds: holdsWithTickets };
  });
}

/** What {@link readMarket} read. */
export type MarketRead = Awaited<ReturnType<typeof readMarket>>;

/** The market page's query parameters (besides `showId` and `lang`), as the request has them. */
export interface MarketQuery {
  /** Only this ticket option's offers. */
  ticketOptionId: string | undefined;
  /** Listings picked on the seat map (`a,b`): reserved together with one form. */
  listingIds: string | undefined;
  /** A shared listing, marked. */
  listingId: string | undefined;
  /** A shared ticket: its listing is marked. */
  ticketId: string | undefined;
  /** The way back to the partner's site, shown and carried on only once checked. */
  returnTo: string | undefined;
  returnTag: string | undefined;
}

/** An offer as the page lists it. */
export interface MarketOffer {
  offer: Offer;
  /** The listing or ticket the link was shared for. */
  shared: boolean;
  /**
   * Set when the orphan-seat rule would refuse this listing's own Buy: the neighbour it is
   * offered with instead, or null (then the seat map, if any, is the way to pick it).
   */
  stranded: { companion: Offer | null } | null;
}

/** What every Buy form carries besides its listings: the show (to come back to it after sign-in) and the checked way back. */
export interface BuyFormFields {
  showId: string;
  /** The page's `returnTo` as given, when it checked out; else null. */
  returnTo: string | null;
  /** Its tag, when the way back checked out and has one; else null. */
  returnTag: string | null;
}

/** The market page's view model: what market.view.tsx renders, data only. */
export interface MarketView {
  eventTitle: string;
  show: { showId: string; title: string; startsAt: number; cancelled: boolean };
  /** The show's location's (else the event's) time zone and venue. */
  timeZone: string | undefined;
  venueName: string | null | undefined;
  /** What the partner's primary-sale report says, when resale is the way in; else null. */
  primary: 'soldOut' | 'almostSoldOut' | null;
  /** The seat map's pick (`listingIds`), as asked. */
  picked: string[];
  /** The picked listings still for sale, and their total, fees included. */
  selection: Offer[];
  selectionTotal: number;
  /** A seated event with offers: the seat map shows (and the page is wide). */
  hasMap: boolean;
  /** The seat map's data URL (with the checked way back). */
  seatMapSrc: string;
  /** The offers (of the `ticketOptionId` asked, if any) by area and option, cheapest first. */
  groups: { title: string; offers: MarketOffer[] }[];
  /** The other visible shows of the event, with their market links. */
  otherShows: { href: string; title: string; startsAt: number; timeZone: string | undefined }[];
  /** Where the Buy forms post. */
  buyAction: string;
  buyFields: BuyFormFields;
  /** Whether any Buy form shows (a CSRF token is made only then). */
  hasBuyForm: boolean;
  /** The checked way back to the partner's site (the header carries it), or null. */
  back: string | null;
  /** The signed-in viewer's own live checkouts of this show: the way back to each, and its release. */
  ownHolds: { tickets: number; expiresAt: number; checkout: string; release: string }[];
  /** Tickets held by other fans' checkouts, and when the first of those holds ends (they may be back then); null when none. */
  othersHold: { tickets: number; backAt: number } | null;
  /** Tickets held for other fans in the waiting list's offers, and when the first offer ends (they pass to the next fan then, not back on sale); null when none. */
  heldForLine: { tickets: number; until: number } | null;
  /** The server's now, for the countdowns (a device's wrong clock neither shortens nor lengthens them). */
  now: number;
  /** The show's primary sale (an http(s) URL the partner sent), offered when nothing is for sale; else null. */
  primarySalesUrl: string | null;
  /** Where "tell me when tickets appear" posts. */
  notifyAction: string;
}

/** `url` when it is an http(s) URL (partner data is shown as a link only then), else null. */
function httpUrlOrNull(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol) ? url : null;
  } catch {
    return null;
  }
}

/** The holds of other fans than `viewerPk` of one kind: their tickets, and when the first ends; null when none. */
function othersOf(holds: MarketRead['holds'], viewerPk: string | null, kind: MarketRead['holds'][number]['kind']): { tickets: number; at: number } | null {
  const others = holds.filter((h) => h.kind === kind && (h.buyerPk === null || h.buyerPk !== viewerPk));
  if (others.length === 0) return null;
  return { tickets: others.reduce((n, h) => n + h.tickets, 0), at: Math.min(...others.map((h) => h.expiresAt)) };
}

/** The tickets other fans' checkouts hold (not `viewerPk`'s), and when the first hold ends, or null. */
function othersHoldOf(holds: MarketRead['holds'], viewerPk: string | null): MarketView['othersHold'] {
  const o = othersOf(holds, viewerPk, 'checkout');
  return o && { tickets: o.tickets, backAt: o.at };
}

/** The tickets held for other fans by waiting-list offers, and when the first offer ends, or null. */
function heldForLineOf(holds: MarketRead['holds'], viewerPk: string | null): MarketView['heldForLine'] {
  const o = othersOf(holds, viewerPk, 'waitinglist');
  return o && { tickets: o.tickets, until: o.at };
}

/** The market page, or a 404 when the partner, the event or a visible show is missing. */
export type MarketPage = { kind: 'notFound' } | { kind: 'page'; partner: PartnerRow; view: MarketView };

/**
 * The market page's view model from what {@link readMarket} read: the offers grouped by ticket
 * option and area, the seat map's pick, the shared listing, the listings the orphan-seat rule
 * offers only with a neighbour, the other shows, and the checked way back.
 */
export function marketPage(deps: Pick<AppDeps, 'box' | 'clock'>, read: MarketRead, lang: Lang, query: MarketQuery, viewerPk: string | null = null): MarketPage {
  const { partner, found, visible, everything, primary } = read;
  if (partner === null) return { kind: 'notFound' };
  if (!found || visible.length === 0 || !read.show) return { kind: 'notFound' };
  const show = read.show;
  const optionFilter = query.ticketOptionId;
  const all = everything.filter((o) => !optionFilter || o.ticketOptionId === optionFilter);
  // Listings picked on the seat map (`listingIds=a,b`): reserved together with one form.
  const picked = (query.listingIds ?? '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, MAX_SELECTION);
  const selection = everything.filter((o) => picked.includes(o.listingId));
  const selectionTotal = selection.reduce((sum, o) => sum + o.buyerTotalMinor * o.quantity, 0);
  const seating = found.event.seating;
  const hasMap = Boolean(seating?.svgCode || seating?.image) && everything.length > 0;
  const isShared = (o: Offer) => o.listingId === query.listingId || o.seats.some((s) => s.ticketId === query.ticketId);
  // Listings whose own Buy the orphan-seat rule would refuse: offered with a neighbour instead.
  const stranded = strandedAlone(partner, seating?.svgCode, everything);
  const groups = new Map<string, MarketOffer[]>();
  for (const o of all) {
    // The area and the option, once when they are named alike ("Stalls", not "Stalls · Stalls").
    const key = o.area && o.area !== o.optionTitle ? `${o.area} · ${o.optionTitle}` : o.optionTitle;
    const offer: MarketOffer = { offer: o, shared: isShared(o), stranded: stranded.has(o.listingId) ? { companion: stranded.get(o.listingId) ?? null } : null };
    groups.set(key, [...(groups.get(key) ?? []), offer]);
  }
  const location = show.location ?? found.event.location;
  const eventRef = found.event.externalReferenceId;
  // The way back to the partner's site: only a checked return address is shown or carried on.
  const { returnTo, returnTag } = query;
  const back = partnerReturnTo(deps.box, partner, returnTo, returnTag);
  const listed = [...groups.entries()].map(([title, offers]) => ({ title, offers }));
  return {
    kind: 'page',
    partner,
    view: {
      eventTitle: found.event.title,
      show: { showId: show.showId, title: show.title, startsAt: show.startsAt, cancelled: show.status === 'CANCELLED' },
      timeZone: location.timeZone,
      venueName: location.venueName,
      // `primary`: the partner's primary-sale report (market data), to say when resale is the way in.
      primary: isPrimaryScarce(primary) ? (primary?.soldOut ? 'soldOut' : 'almostSoldOut') : null,
      picked,
      selection,
      selectionTotal,
      hasMap,
      seatMapSrc: servicePaths.marketSeatMap(partner.id, eventRef, { showId: show.showId, lang, ...(back && returnTo ? { returnTo, ...(returnTag ? { [RETURN_TO_TAG_PARAM]: returnTag } : {}) } : {}) }),
      groups: listed,
      otherShows:
        visible.length > 1
          ? visible
              .filter((s) => s.id !== show.id)
              .map((s) => ({ href: servicePaths.market(partner.id, eventRef, { showId: s.showId, lang }), title: s.title, startsAt: s.startsAt, timeZone: (s.location ?? found.event.location).timeZone }))
          : [],
      buyAction: servicePaths.marketBuy(partner.id, eventRef),
      buyFields: { showId: show.showId, returnTo: back ? (returnTo ?? null) : null, returnTag: back && returnTag ? returnTag : null },
      hasBuyForm: selection.length > 0 || listed.some((g) => g.offers.some((o) => o.stranded === null || o.stranded.companion !== null)),
      back,
      ownHolds: read.holds
        .filter((h) => viewerPk !== null && h.buyerPk === viewerPk)
        .map((h) => ({ tickets: h.tickets, expiresAt: h.expiresAt, checkout: servicePaths.checkout(partner.id, h.intentionId, { lang }), release: servicePaths.checkoutRelease(partner.id, h.intentionId) })),
      othersHold: othersHoldOf(read.holds, viewerPk),
      heldForLine: heldForLineOf(read.holds, viewerPk),
      now: deps.clock.now(),
      primarySalesUrl: httpUrlOrNull(show.primarySalesUrl),
      notifyAction: servicePaths.marketNotify(partner.id, eventRef),
    },
  };
}

// ------------------------------------------------------------------ the seat map's data

/**
 * The seat map's data for the page's `<resale-seat-map src>`, in the page's language (`lang`
 * picks it from the partner: the request's, else the partner's default), read at once with the
 * partner. `carry`: the page's way back, travelling with the map's Continue (checked again when
 * the page shows it).
 *
 * @throws 404 ApiError for an unknown partner, event or show
 */
export async function marketSeatMap(
  deps: Pick<AppDeps, 'db' | 'config'>,
  ref: { partnerId: string; eventRef: string; showId: string },
  carry: Record<string, string>,
  lang: (partner: PartnerRow) => Lang,
): Promise<SeatMapData> {
  return await deps.db.read(async (tx) => {
    const partner = await partnerById(tx, ref.partnerId);
    if (!partner) throw ApiError.notFound('event', ref.eventRef);
    return await seatMapData(tx, partner, { eventId: ref.eventRef, showId: ref.showId }, { publicBaseUrl: deps.config.publicBaseUrl, lang: lang(partner), carry });
  });
}

// ------------------------------------------------------------------ Buy

/** A Buy form, read: the listings picked, the show, and the way back as posted. */
export interface BuyForm {
  /** One listing from a Buy button, or several picked on the seat map (at most {@link MAX_SELECTION}). */
  listingIds: string[];
  showId: string | undefined;
  returnTo: string | undefined;
  returnTag: string | undefined;
}

/**
 * Reads a posted Buy form (`parseBody({ all: true })`: a repeated field is an array, so only
 * `listingId` may repeat); null when it names no listing, or a listing's id holds a NUL (no
 * listing's does, and PostgreSQL refuses one in any text it is sent: a 500).
 */
export function readBuyForm(form: Record<string, string | File | (string | File)[]>): BuyForm | null {
  const one = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : undefined);
  // One listing from a Buy button, or several picked on the seat map (one option, one checkout).
  const listingIds = [form.listingId ?? []].flat().filter((v): v is string => typeof v === 'string').slice(0, MAX_SELECTION);
  if (listingIds.length === 0 || listingIds.some((id) => id.includes('\u0000'))) return null;
  return { listingIds, showId: one('showId'), returnTo: one('returnTo'), returnTag: one(RETURN_TO_TAG_PARAM) };
}

/**
 * The seat map's Continue (`GET …/buy/pick?listingIds=a,b&showId&returnTo`), read as a Buy form;
 * null when it names no listing (or a listing's id holds a NUL, as {@link readBuyForm}).
 */
export function readPickQuery(query: URLSearchParams): BuyForm | null {
  const listingIds = (query.get('listingIds') ?? '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, MAX_SELECTION);
  if (listingIds.length === 0 || listingIds.some((id) => id.includes('\u0000'))) return null;
  const one = (k: string) => query.get(k) ?? undefined;
  return { listingIds, showId: one('showId'), returnTo: one('returnTo'), returnTag: one(RETURN_TO_TAG_PARAM) };
}

/** How long a pick carried through sign-in stays good: long enough to sign in, short enough that prices and holds have not moved much. */
export const PICK_TTL_MS = 15 * 60_000;

const PICK_PURPOSE = 'market-pick';

/**
 * What a market link carried through sign-in is signed over: its purpose, the partner, the
 * event, every query value that matters, and this browser (a hash of its anonymous CSRF
 * secret), so the link acts only for the browser that asked, and only as it was made.
 */
function continueData(partnerId: string, eventRef: string, query: URLSearchParams, browserSecret: string, extra: readonly string[] = []): string {
  const fields = ['l', 's', 'x', 'returnTo', RETURN_TO_TAG_PARAM, ...extra].map((k) => `${k}=${query.get(k) ?? ''}`);
  return [partnerId, eventRef, ...fields, createHash('sha256').update(browserSecret).digest('base64url')].join('\n');
}

/** `query` with its end (`x`, {@link PICK_TTL_MS} ahead) and its signature for `purpose`. */
function signContinue(deps: Pick<AppDeps, 'box' | 'clock'>, purpose: string, partnerId: string, eventRef: string, query: URLSearchParams, browserSecret: string, extra: readonly string[] = []): URLSearchParams {
  query.set('x', String(deps.clock.now() + PICK_TTL_MS));
  query.set('sig', deps.box.sign(purpose, continueData(partnerId, eventRef, query, browserSecret, extra)));
  return query;
}

/** Whether `query` was signed for `purpose` for this partner, event and browser: `ok`, `expired`, or null (not signed so, or changed). */
function checkContinue(deps: Pick<AppDeps, 'box' | 'clock'>, purpose: string, partnerId: string, eventRef: string, query: URLSearchParams, browserSecret: string, extra: readonly string[] = []): 'ok' | 'expired' | null {
  if (!deps.box.verify(purpose, continueData(partnerId, eventRef, query, browserSecret, extra), query.get('sig') ?? '')) return null;
  return Number(query.get('x')) < deps.clock.now() ? 'expired' : 'ok';
}

/**
 * Where a signed-out buyer comes back to after signing in: the market's Buy, continued
 * (`…/buy/continue`) with the pick (`l`: listing ids, `s`: show), its end (`x`), the way back
 * when it checked out, and a signature over all of it and this browser's anonymous CSRF secret
 * (`browserSecret`). So the hold is made on the way back, without a second press, and only for
 * the browser that pressed Buy: a link to it sent to someone else (or opened by a page they
 * visit) holds nothing.
 */
export function pickContinueUrl(deps: Pick<AppDeps, 'box' | 'clock'>, partner: Pick<PartnerRow, 'id'>, eventRef: string, form: BuyForm, lang: Lang, back: string | null, browserSecret: string): string {
  const query = new URLSearchParams({ l: form.listingIds.join(','), lang });
  if (form.showId) query.set('s', form.showId);
  if (back) {
    query.set('returnTo', form.returnTo!);
    if (form.returnTag) query.set(RETURN_TO_TAG_PARAM, form.returnTag);
  }
  return `${servicePaths.marketBuy(partner.id, eventRef)}/continue?${signContinue(deps, PICK_PURPOSE, partner.id, eventRef, query, browserSecret)}`;
}

/**
 * The pick of a continued Buy (see {@link pickContinueUrl}): the form it stood for, `expired`
 * past its end, or null when it was not signed for this partner, event and browser (or was
 * changed).
 */
export function readPick(deps: Pick<AppDeps, 'box' | 'clock'>, partnerId: string, eventRef: string, query: URLSearchParams, browserSecret: string): BuyForm | 'expired' | null {
  const checked = checkContinue(deps, PICK_PURPOSE, partnerId, eventRef, query, browserSecret);
  if (checked !== 'ok') return checked;
  const listingIds = (query.get('l') ?? '').split(',').filter(Boolean).slice(0, MAX_SELECTION);
  if (listingIds.length === 0) return null;
  return { listingIds, showId: query.get('s') ?? undefined, returnTo: query.get('returnTo') ?? undefined, returnTag: query.get(RETURN_TO_TAG_PARAM) ?? undefined };
}

// ------------------------------------------------------------------ "tell me when tickets appear"

const NOTIFY_PURPOSE = 'market-notify';

/**
 * Where a signed-out fan who asked to be told when tickets appear comes back after signing in:
 * `…/notify/continue` for the show `showId`, signed for this browser as a continued Buy is
 * (see {@link pickContinueUrl}), so the request is recorded on the way back without a second press.
 */
export function notifyContinueUrl(deps: Pick<AppDeps, 'box' | 'clock'>, partner: Pick<PartnerRow, 'id'>, eventRef: string, showId: string, lang: Lang, browserSecret: string): string {
  const query = new URLSearchParams({ s: showId, lang });
  return `${servicePaths.marketNotify(partner.id, eventRef)}/continue?${signContinue(deps, NOTIFY_PURPOSE, partner.id, eventRef, query, browserSecret)}`;
}

/** The show of a continued "tell me", `expired`, or null when it was not signed for this browser (see {@link notifyContinueUrl}). */
export function readNotify(deps: Pick<AppDeps, 'box' | 'clock'>, partnerId: string, eventRef: string, query: URLSearchParams, browserSecret: string): { showId: string } | 'expired' | null {
  const checked = checkContinue(deps, NOTIFY_PURPOSE, partnerId, eventRef, query, browserSecret);
  if (checked !== 'ok') return checked;
  const showId = query.get('s');
  return showId ? { showId } : null;
}

/** A fan's identity as the leads know it: the partner's user id when known, else the e-mail (leads.service.ts `buyerKey`). */
function fanIdentity(user: { externalId: string | null; email: string | null }): { id?: string; email?: string } {
  return { ...(user.externalId ? { id: user.externalId } : {}), ...(user.email ? { email: user.email } : {}) };
}

/**
 * Puts the signed-in fan on the show's wishlist: a WISHLIST lead (leads.service.ts), which the
 * wishlist job e-mails once when resale stock appears. Until the waiting list exists, this is
 * the "tell me when tickets appear" of an empty market. Answers false when the fan has neither
 * a partner id nor an e-mail to be told at (nothing written), or the show is unknown.
 */
export async function joinWishlist(deps: Pick<AppDeps, 'db' | 'clock' | 'leads'>, partner: Pick<PartnerRow, 'id'>, eventRef: string, showId: string, userPk: string): Promise<boolean> {
  return await deps.db.transact(async (tx) => {
    const user = await userByPk(tx, userPk);
    const buyer = user ? fanIdentity(user) : {};
    if (!buyer.id && !buyer.email) return false;
    try {
      await deps.leads.upsert(tx, partner.id, LeadInputSchema.parse({ type: 'WISHLIST', externalReferenceEventId: eventRef, showId, buyer, date: new Date(deps.clock.now()).toISOString() }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return false;
      throw err;
    }
    return true;
  });
}

/** Whether the signed-in fan is on the show's wishlist already (so the page says so instead of offering it again), and the e-mail it tells. */
export async function wishlistOf(deps: Pick<AppDeps, 'db'>, partner: Pick<PartnerRow, 'id'>, showPk: string, userPk: string): Promise<{ on: boolean; email: string | null }> {
  return await deps.db.read(async (tx) => {
    const user = await userByPk(tx, userPk);
    if (!user) return { on: false, email: null };
    const identity = fanIdentity(user);
    if (!identity.id && !identity.email) return { on: false, email: user.email };
    const lead = await leadOfBuyer(tx, partner.id, showPk, buyerKey(identity));
    return { on: lead !== null && lead.type === 'WISHLIST' && lead.notifiedAt === null, email: user.email };
  });
}

/**
 * The buyer's own checkout already holding every listing of `listingIds`, or null: a continued
 * Buy opened twice (a reload, the back button) goes to the checkout it made, not to "taken".
 */
export async function ownPendingCheckout(deps: Pick<AppDeps, 'db'>, partner: Pick<PartnerRow, 'id'>, listingIds: readonly string[], buyerPk: string, lang: Lang): Promise<string | null> {
  return await deps.db.read(async (tx) => {
    const held = await listingsByIds(tx, partner.id, listingIds);
    const intentionId = held[0]?.intentionId;
    if (!intentionId || held.length !== listingIds.length || held.some((l) => l.state !== 'RESERVED' || l.intentionId !== intentionId)) return null;
    const intention = await intentionById(tx, intentionId);
    return intention && intention.state === 'PENDING' && intention.buyerPk === buyerPk ? servicePaths.checkout(partner.id, intention.id, { lang }) : null;
  });
}

/** What a Buy came to: the checkout, or why not (with the way back to the market where there is one). */
export type BuyOutcome =
  | { kind: 'checkout'; to: string }
  /** Too many live holds (partner setting `holdLimits`); `pendingCheckout`: the buyer's checkout waiting for payment, if any. */
  | { kind: 'holdLimit'; limit: HoldLimit; max: number; retryAfterSeconds: number; pendingCheckout: string | null }
  | { kind: 'notFound' }
  /** A pick that would leave a single seat empty in a row (the seat map's rule). */
  | { kind: 'orphanSeat'; market: string }
  /** A pick across ticket options (one checkout holds one option), or an empty or repeated pick: `message` says which. */
  | { kind: 'invalid'; message: string }
  | { kind: 'ownListing'; market: string }
  /** Taken meanwhile, or otherwise refused. */
  | { kind: 'taken'; market: string };

/** The refusals of a Buy that answer a notice (every outcome but the checkout and the 404). */
export type BuyRefusal = Exclude<BuyOutcome, { kind: 'checkout' } | { kind: 'notFound' }>;

/**
 * Buy: reserves the listings for the signed-in buyer (`buyerPk`) in one transaction and names
 * the checkout; a refusal becomes its outcome (any other failure is thrown). `eventRef` and
 * `showId` are the path's and the form's, for the way back to the market. `clientKey`: the
 * HMAC of the client address, for the per-address hold limit.
 */
export async function buyListings(
  deps: Pick<AppDeps, 'db' | 'clock' | 'intentions' | 'listings' | 'metrics' | 'reservations'>,
  input: { partner: PartnerRow; eventRef: string; showId: string | undefined; listingIds: string[]; buyerPk: string; returnTo: string | null; clientKey: string; lang: Lang },
): Promise<BuyOutcome> {
  const { partner, lang } = input;
  try {
    await refuseTaken(deps, partner.id, input.listingIds);
    const intention = await deps.reservations.transact(async (tx) =>
      await reserveListings(deps, tx, { partner, listingIds: input.listingIds, buyerPk: input.buyerPk, returnTo: input.returnTo, clientKey: input.clientKey }),
    );
    return { kind: 'checkout', to: servicePaths.checkout(partner.id, intention.id, { lang }) };
  } catch (err) {
    if (err instanceof HoldLimitError) {
      return {
        kind: 'holdLimit',
        limit: err.limit,
        max: err.max,
        retryAfterSeconds: err.retryAfterSeconds,
        pendingCheckout: err.pendingIntentionId ? servicePaths.checkout(partner.id, err.pendingIntentionId, { lang }) : null,
      };
    }
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'not_found') return { kind: 'notFound' };
    const market = servicePaths.market(partner.id, input.eventRef, { showId: input.showId || undefined, lang });
    // An orphan seat is an `invalid_value` too: it says so, with the way back.
    if (err instanceof OrphanSeatError) return { kind: 'orphanSeat', market };
    if (err.reason === 'mixed_items' || err.code === 'missing_field' || err.code === 'invalid_value') return { kind: 'invalid', message: err.message };
    if (err.reason === 'own_listing') return { kind: 'ownListing', market };
    return { kind: 'taken', market };
  }
}

// ------------------------------------------------------------------ the waiting list

/** The join form's fields a refusal can name; `form`: the whole form (already waiting, closed…). */
export type JoinField = 'quantity' | 'ticketOptionId' | 'together' | 'form';

/** Why a join was refused, as the page says it (market.messages.ts keys). */
export type JoinErrorKey = 'wlQuantityError' | 'wlOptionError' | 'wlTogetherError' | 'wlAlreadyWaiting' | 'wlClosed' | 'wlResaleClosed' | 'wlNoContact';

/** Every refusal of a join at once, by field. */
export type JoinErrors = Partial<Record<JoinField, JoinErrorKey>>;

/** The join form as typed (kept when refused). */
export interface JoinValues {
  quantity: string;
  together: boolean;
  /** '' for any category. */
  ticketOptionId: string;
}

/** What the market shows of the show's waiting list when it is enabled. */
export interface WaitingListView {
  /** Live entries: "N fans waiting". */
  waiting: number;
  joinAction: string;
  leaveAction: string;
  /** The most tickets one fan may wait for (the partner's `holdLimits.ticketsPerBuyerPerShow`). */
  max: number;
  /** The event has a seating chart: "seats together" is offered. */
  seated: boolean;
  /** The show's categories, for the optional choice. */
  options: { id: string; title: string }[];
  /** The signed-in viewer's live entry: their place, or their live offer. */
  mine: { entryId: string; position: number | null; quantity: number; offer: { checkout: string; release: string; expiresAt: number; tickets: number } | null } | null;
}

/** A show id as a form or link names it: printable text up to 200 characters, else null (no show has another; PostgreSQL refuses a NUL). */
function printableShowId(value: unknown): string | null {
  const showId = typeof value === 'string' ? value.slice(0, 200) : '';
  return showId && ![...showId].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) ? showId : null;
}

/** A posted join form: the show (null when it names none) and the values as typed. */
export function readJoinForm(form: Record<string, string | File>): { showId: string; values: JoinValues } | null {
  const showId = printableShowId(form.showId);
  if (!showId) return null;
  const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max).trim() : '');
  return { showId, values: { quantity: text(form.quantity, 10), together: form.together === '1' || form.together === 'on', ticketOptionId: text(form.ticketOptionId, 200) } };
}

/**
 * The show's waiting list as the market shows it, or null when it is not enabled (the page is
 * then the wishlist's, as before) or the show is cancelled. With `viewerPk`, their live entry.
 */
export async function readWaitingList(
  deps: Pick<AppDeps, 'db' | 'waitingList'>,
  partner: Pick<PartnerRow, 'id' | 'settings'>,
  ref: { eventRef: string; showId: string; showPk: string; seated: boolean; cancelled: boolean },
  viewerPk: string | null,
  lang: Lang,
): Promise<WaitingListView | null> {
  if (ref.cancelled) return null;
  return await deps.db.read(async (tx) => {
    const key = { externalReferenceEventId: ref.eventRef, showId: ref.showId };
    const settings = await deps.waitingList.getSettings(tx, partner.id, key);
    if (!settings.enabled) return null;
    const options = (await ticketOptionsOfShow(tx, ref.showPk)).map((o) => ({ id: o.ticketId, title: o.title }));
    const entry = viewerPk ? (await deps.waitingList.entriesOf(tx, partner.id, viewerPk, { show: key, live: true }))[0] : undefined;
    return {
      waiting: settings.waiting,
      joinAction: servicePaths.marketWaitingList(partner.id, ref.eventRef),
      leaveAction: servicePaths.marketWaitingListLeave(partner.id, ref.eventRef),
      max: (partner.settings.holdLimits ?? DEFAULT_HOLD_LIMITS).ticketsPerBuyerPerShow,
      seated: ref.seated,
      options,
      mine: entry
        ? {
            entryId: entry.id,
            position: entry.position,
            quantity: entry.quantity,
            offer: entry.offer
              ? {
                  checkout: servicePaths.checkout(partner.id, entry.offer.intentionId, { lang }),
                  release: servicePaths.checkoutRelease(partner.id, entry.offer.intentionId),
                  expiresAt: entry.offer.expiresAt,
                  tickets: entry.offer.quantity,
                }
              : null,
          }
        : null,
    };
  });
}

/**
 * The join form checked against the list as the page shows it, every refusal at once: the
 * quantity a whole number from 1 to the most per fan, the category one of the show's (or any),
 * "seats together" only for a seated event. The values to join with when none.
 */
export function checkJoin(wl: Pick<WaitingListView, 'max' | 'seated' | 'options'>, values: JoinValues): { errors: JoinErrors; quantity: number; ticketOptionId: string | undefined } {
  const errors: JoinErrors = {};
  const quantity = /^\d{1,3}$/.test(values.quantity) ? Number(values.quantity) : NaN;
  if (!(quantity >= 1 && quantity <= wl.max)) errors.quantity = 'wlQuantityError';
  if (values.ticketOptionId !== '' && !wl.options.some((o) => o.id === values.ticketOptionId)) errors.ticketOptionId = 'wlOptionError';
  if (values.together && !wl.seated) errors.together = 'wlTogetherError';
  return { errors, quantity, ticketOptionId: values.ticketOptionId === '' ? undefined : values.ticketOptionId };
}

/** The service's refusal of a join, as the page's errors (every field it named); null for anything else. */
function joinRefusal(err: unknown): { status: number; errors: JoinErrors } | null {
  if (!(err instanceof ApiError)) return null;
  if (err.status === 400) {
    const errors: JoinErrors = {};
    for (const e of err.entries) {
      if (e.path === 'quantity') errors.quantity = 'wlQuantityError';
      else if (e.path === 'ticketOptionId') errors.ticketOptionId = 'wlOptionError';
      else if (e.path === 'together') errors.together = 'wlTogetherError';
      else if (e.path === 'user') errors.form = 'wlNoContact';
    }
    return Object.keys(errors).length > 0 ? { status: 400, errors } : null;
  }
  if (err.status === 409) {
    if (err.reason === 'already_waiting') return { status: 409, errors: { form: 'wlAlreadyWaiting' } };
    if (err.reason === 'waitinglist_closed') return { status: 409, errors: { form: 'wlClosed' } };
    return { status: 409, errors: { form: 'wlResaleClosed' } };
  }
  return null;
}

/** What a join from the market came to. */
export type JoinOutcome = { kind: 'joined' } | { kind: 'refused'; status: number; errors: JoinErrors } | { kind: 'notFound' };

/**
 * Puts the signed-in fan (`userPk`) on the show's waiting list from the market (the join flow:
 * a Wishlist lead, and an offer at once when fitting tickets are on sale). The form is checked
 * first (every refusal at once), then the service's own refusals are the page's.
 */
export async function joinWaitingListFromMarket(
  deps: Pick<AppDeps, 'db' | 'clock' | 'auth' | 'events' | 'intentions' | 'waitingList' | 'leads'>,
  partner: Pick<PartnerRow, 'id' | 'settings'>,
  input: { eventRef: string; showId: string; values: JoinValues; wl: WaitingListView; userPk: string },
): Promise<JoinOutcome> {
  const checked = checkJoin(input.wl, input.values);
  if (Object.keys(checked.errors).length > 0) return { kind: 'refused', status: 400, errors: checked.errors };
  try {
    await deps.db.transact(async (tx) =>
      await joinFromMarket(deps, tx, partner, input.userPk, { externalReferenceEventId: input.eventRef, showId: input.showId, ticketOptionId: checked.ticketOptionId, quantity: checked.quantity, together: input.values.together }),
    );
    return { kind: 'joined' };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { kind: 'notFound' };
    const refused = joinRefusal(err);
    if (refused) return { kind: 'refused', ...refused };
    throw err;
  }
}

/**
 * The signed-in fan leaves the show's waiting list (`entryId`, theirs only); with a live offer,
 * that is "No thanks": the offer is declined and its tickets pass to the next fan. `left`, or
 * `gone` when the entry is not theirs or has ended meanwhile (the page shows as it now is).
 */
export async function leaveWaitingListFromMarket(deps: Pick<AppDeps, 'db' | 'clock' | 'auth' | 'events' | 'intentions' | 'waitingList' | 'leads'>, partnerId: string, userPk: string, entryId: string): Promise<'left' | 'gone'> {
  try {
    await deps.db.transact(async (tx) => await leaveFromMarket(deps, tx, partnerId, userPk, entryId));
    return 'left';
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 409)) return 'gone';
    throw err;
  }
}

const WAITING_LIST_PURPOSE = 'market-waitinglist';
/** The join form's values a continued join carries (signed with the rest). */
const WAITING_LIST_FIELDS = ['q', 't', 'o'] as const;

/**
 * Where a signed-out fan who pressed "Join the waiting list" comes back to after signing in:
 * `…/waitinglist/continue` with the show and the form's values, signed for this browser as a
 * continued Buy is (see {@link pickContinueUrl}), so they are joined on the way back.
 */
export function waitingListContinueUrl(deps: Pick<AppDeps, 'box' | 'clock'>, partner: Pick<PartnerRow, 'id'>, eventRef: string, showId: string, values: JoinValues, lang: Lang, browserSecret: string): string {
  const query = new URLSearchParams({ s: showId, q: values.quantity, t: values.together ? '1' : '', o: values.ticketOptionId, lang });
  return `${servicePaths.marketWaitingList(partner.id, eventRef)}/continue?${signContinue(deps, WAITING_LIST_PURPOSE, partner.id, eventRef, query, browserSecret, WAITING_LIST_FIELDS)}`;
}

/** The show and values of a continued join, `expired`, or null when it was not signed for this browser (see {@link waitingListContinueUrl}). */
export function readWaitingListContinue(deps: Pick<AppDeps, 'box' | 'clock'>, partnerId: string, eventRef: string, query: URLSearchParams, browserSecret: string): { showId: string; values: JoinValues } | 'expired' | null {
  const checked = checkContinue(deps, WAITING_LIST_PURPOSE, partnerId, eventRef, query, browserSecret, WAITING_LIST_FIELDS);
  if (checked !== 'ok') return checked;
  const showId = printableShowId(query.get('s'));
  return showId ? { showId, values: { quantity: query.get('q') ?? '', together: query.get('t') === '1', ticketOptionId: query.get('o') ?? '' } } : null;
}
