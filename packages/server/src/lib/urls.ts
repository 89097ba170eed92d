/**
 * The addresses of the service's hosted pages: the one place they are spelled. Every path
 * segment that carries an id is percent-encoded, and the query is written by URLSearchParams
 * in the order given (a value that is undefined or null is left out).
 *
 * `servicePaths` gives paths (what a page links and redirects to, on its own origin);
 * {@link serviceUrl} makes one absolute on the public base URL (what the API answers, e-mails
 * and webhooks carry, what a payment provider comes back to).
 *
 * @example serviceUrl(config.publicBaseUrl, servicePaths.market('ptr_1', 'tour 2026', { showId: 's-1', lang: 'es' }))
 * // 'https://resale.example/market/ptr_1/tour%202026?showId=s-1&lang=es'
 */

/** A query: named values in order (undefined and null are left out), or a URLSearchParams as it is. */
export type UrlQuery = Readonly<Record<string, string | number | null | undefined>> | URLSearchParams;

/** `path` with `query` (no `?` when the query is empty). */
export function withQuery(path: string, query?: UrlQuery): string {
  if (!query) return path;
  const params =
    query instanceof URLSearchParams
      ? query
      : new URLSearchParams(Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined || v === null ? [] : [[k, String(v)]])));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

const seg = encodeURIComponent;

const market = (partnerId: string, eventRef: string) => `/market/${seg(partnerId)}/${seg(eventRef)}`;
const checkout = (partnerId: string, intentionId: string) => `/checkout/${seg(partnerId)}/${seg(intentionId)}`;
const sell = (partnerId: string) => `/sell/${seg(partnerId)}`;
const listing = (partnerId: string, listingId: string) => `${sell(partnerId)}/listings/${seg(listingId)}`;

/** Paths of the hosted pages (see the module's comment). */
export const servicePaths = {
  /** The venue's scanner page (a door's token follows `#` in its link: flows/console-doors.ts). */
  door: () => '/door',
  /** The widgets' script-tag entry (every element defined; http/api/widgets.static.ts serves it). */
  widgetsEntry: () => '/widgets/v1/resale.js',
  /** An event's market (`showId`, `listingId`, `ticketId`, `lang`, `returnTo`…). */
  market: (partnerId: string, eventRef: string, query?: UrlQuery) => withQuery(market(partnerId, eventRef), query),
  /** The market's Buy form (POST). */
  marketBuy: (partnerId: string, eventRef: string) => `${market(partnerId, eventRef)}/buy`,
  /** The seat map's Continue: the pick reserved at once, then the checkout (`?listingIds=a,b&showId`). */
  marketPick: (partnerId: string, eventRef: string) => `${market(partnerId, eventRef)}/buy/pick`,
  /** The market's "tell me when tickets appear" (POST). */
  marketNotify: (partnerId: string, eventRef: string) => `${market(partnerId, eventRef)}/notify`,
  /** The market's "join the waiting list" (POST); `/continue` carries it through sign-in. */
  marketWaitingList: (partnerId: string, eventRef: string) => `${market(partnerId, eventRef)}/waitinglist`,
  /** The market's "leave the waiting list" and an offer's "No thanks" (POST). */
  marketWaitingListLeave: (partnerId: string, eventRef: string) => `${market(partnerId, eventRef)}/waitinglist/leave`,
  /** The market's seat map data. */
  marketSeatMap: (partnerId: string, eventRef: string, query?: UrlQuery) => withQuery(`${market(partnerId, eventRef)}/seatmap.json`, query),
  /** A buy intention's checkout. */
  checkout: (partnerId: string, intentionId: string, query?: UrlQuery) => withQuery(checkout(partnerId, intentionId), query),
  /** The receipt of a paid checkout. */
  checkoutDone: (partnerId: string, intentionId: string, query?: UrlQuery) => withQuery(`${checkout(partnerId, intentionId)}/done`, query),
  /** A checkout's release (POST): the buyer gives the tickets back before paying. */
  checkoutRelease: (partnerId: string, intentionId: string) => `${checkout(partnerId, intentionId)}/release`,
  /** Where a hosted payment provider brings the buyer back. */
  checkoutReturn: (partnerId: string, intentionId: string, query?: UrlQuery) => withQuery(`${checkout(partnerId, intentionId)}/return`, query),
  /** The payment provider's extra verification of a payment. */
  checkoutVerify: (partnerId: string, paymentId: string, query?: UrlQuery) => withQuery(`/checkout/${seg(partnerId)}/verify/${seg(paymentId)}`, query),
  /** Selling one ticket. */
  sellTicket: (partnerId: string, ticketId: string, query?: UrlQuery) => withQuery(`${sell(partnerId)}/ticket/${seg(ticketId)}`, query),
  /** A seller's listing. */
  sellListing: (partnerId: string, listingId: string, query?: UrlQuery) => withQuery(listing(partnerId, listingId), query),
  /** A listing's forms (POST): change its price, remove it. */
  sellListingAction: (partnerId: string, listingId: string, action: 'price' | 'remove', query?: UrlQuery) => withQuery(`${listing(partnerId, listingId)}/${action}`, query),
  /** Selling the tickets of an order. */
  sellOrder: (partnerId: string, orderId: string, query?: UrlQuery) => withQuery(`${sell(partnerId)}/order/${seg(orderId)}`, query),
  /** Smart publish: the seller's tickets. */
  sellStart: (partnerId: string, query?: UrlQuery) => withQuery(`${sell(partnerId)}/start`, query),
  /** The seller's tickets of one show. */
  sellShow: (partnerId: string, showPk: string, query?: UrlQuery) => withQuery(`${sell(partnerId)}/show/${seg(showPk)}`, query),
  /** The seller's payout details. */
  sellPayout: (partnerId: string, query?: UrlQuery) => withQuery(`${sell(partnerId)}/payout`, query),
  /** Where Stripe's onboarding comes back (`return`) or renews its link (`refresh`). */
  sellPayoutStripe: (partnerId: string, step: 'return' | 'refresh', query?: UrlQuery) => withQuery(`${sell(partnerId)}/payout/stripe/${step}`, query),
  /** Every sell page of a partner starts with this. */
  sellPrefix: (partnerId: string) => `${sell(partnerId)}/`,
  /** A ticket's secure view (its signed token). */
  ticketView: (token: string) => `/tickets/view/${seg(token)}`,
  /** Who is signed in, with the sign-out button. */
  session: (query?: UrlQuery) => withQuery('/auth/session', query),
  /** The console's home (operators and partners' people). */
  console: (query?: UrlQuery) => withQuery('/console', query),
  /** A partner's pages in the console: its settings, or a section (`/events`, `/sales` …) and what lies under it. */
  consolePartner: (partnerId: string, section = '', query?: UrlQuery) => withQuery(`/console/partners/${seg(partnerId)}${section}`, query),
} as const;

/** `path` (of {@link servicePaths}) as an absolute URL on the public base URL (which has no trailing slash). */
export function serviceUrl(publicBaseUrl: string, path: string): string {
  return publicBaseUrl + path;
}
