import type { Lang } from '@resale/shared/lang';
import { inOrder } from '../../lib/in-order.js';
import type { Kernel } from '../../lib/kernel.js';
import type { ListingsService } from '../../domain/listings/listings.service.js';
import type { PayoutsService } from '../../domain/payouts/payouts.service.js';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { toMajor } from '../../lib/money.js';
import { isResaleOpen } from '../../domain/events/events.model.js';
import { eventByRef, priceTypesByPks, showOfEvent, showsWithEvents, ticketOptionOfShow, ticketOptionsByPks } from '../../domain/events/events.queries.js';
import { soldListingOfTicket, soldListingsOfSeller, ticketPksOfListings } from '../../domain/listings/listings.queries.js';
import type { ListingRow } from '../../domain/listings/listings.service.js';
import { ticketByRef, ticketRowsByPks, ticketsOfOrder } from '../../domain/tickets/tickets.queries.js';
import type { UserRow } from '../../domain/users/users.service.js';
import type { PartnerRow } from '../../domain/partners/partners.service.js';
import { sellerPayoutReady } from '../../domain/payouts/payouts.queries.js';
import { servicePaths, serviceUrl } from '../../lib/urls.js';

/**
 * The sell access layer (POST /v1/wrapper/accesslayer): for each ticket or order the
 * partner shows on its "My tickets" page, the resale status and the calls to action.
 * Business logic stays here so partners never replicate it.
 */
export type SellStatus = 'SELLABLE' | 'NOT_SELLABLE' | 'FOR_SALE' | 'SOLD';
export type CtaKey = 'SELL' | 'EDIT' | 'DETAILS' | 'P2P' | 'PENDING_PAYOUT_INFO' | 'MANAGE';

export interface Cta {
  key: CtaKey;
  text: string;
  url: string;
  enabled: boolean;
}

const CTA_TEXT: Record<Lang, Record<CtaKey, string>> = {
  en: { SELL: 'Sell', EDIT: 'Edit listing', DETAILS: 'View sale', P2P: 'Share', PENDING_PAYOUT_INFO: 'Add payout details', MANAGE: 'Manage' },
  es: { SELL: 'Vender', EDIT: 'Editar anuncio', DETAILS: 'Ver venta', P2P: 'Compartir', PENDING_PAYOUT_INFO: 'Añadir datos de cobro', MANAGE: 'Gestionar' },
};

export interface TicketRef {
  eventId: string;
  showId: string;
  ticketId: string;
  ticketOptionId: string;
  priceTypeId?: string | undefined;
}

export interface OrderRef {
  orderId: string;
  eventId: string;
  showId: string;
  combinations: { ticketOptionId: string; priceTypeId?: string | undefined }[];
}

/** One ticket's evaluation: its status and, when listed or sold, the listing (its group). */
export interface Evaluated {
  status: SellStatus;
  sync: boolean;
  listing: ListingRow | null;
}

export class SellAccessLayer {
  constructor(private readonly deps: Pick<Kernel, 'clock' | 'config'> & { listings: ListingsService; payouts: PayoutsService }) {}

  /** PENDING_PAYOUT_INFO goes beside the other CTAs while a seller with listings cannot be paid yet (no account, or Stripe onboarding unfinished). */
  private async needsPayout(tx: Tx, user: UserRow | null, status: SellStatus): Promise<boolean> {
    return !!user && (status === 'FOR_SALE' || status === 'SOLD') && !(await sellerPayoutReady(tx, user.id, !!this.deps.payouts.connect));
  }

  /** Tickets mode: status, `sync` (known to the service) and CTAs per ticket, in request order. */
  async tickets(tx: Tx, partnerId: string, user: UserRow | null, refs: readonly TicketRef[], lang: Lang, sign: (url: string) => string) {
    return await inOrder(refs, async (ref) => {
      const e = await this.evaluate(tx, partnerId, user, ref);
      const ctas: Cta[] = [];
      // Only calls to action that take the seller to their own pages are signed (see auth.urls.ts,
      // "Where sign-in tokens go"): Share is a link the seller passes on, so it never carries one.
      const cta = (key: CtaKey, url: string, signed = true) => ctas.push({ key, text: CTA_TEXT[lang][key], url: signed ? sign(url) : url, enabled: true });
      const base = this.deps.config.publicBaseUrl;
      const q = (extra: Record<string, string> = {}) => ({ lang, ...extra });
      if (e.status === 'SELLABLE') cta('SELL', serviceUrl(base, servicePaths.sellTicket(partnerId, ref.ticketId, q(e.sync ? {} : { sync: '1', eventId: ref.eventId, showId: ref.showId }))));
      if (e.status === 'FOR_SALE' && e.listing) {
        cta('EDIT', serviceUrl(base, servicePaths.sellListing(partnerId, e.listing.id, q())));
        cta('P2P', (await this.deps.listings.toApi(tx, e.listing)).shareUrl, false);
      }
      if (e.status === 'SOLD' && e.listing) cta('DETAILS', serviceUrl(base, servicePaths.sellListing(partnerId, e.listing.id, q())));
      if (await this.needsPayout(tx, user, e.status)) cta('PENDING_PAYOUT_INFO', serviceUrl(base, servicePaths.sellPayout(partnerId, q())));
      return { status: e.status, ticketId: ref.ticketId, ticketOptionId: ref.ticketOptionId, priceTypeId: ref.priceTypeId ?? null, sync: e.sync, callToActions: ctas };
    });
  }

  /**
   * Orders mode: each order's tickets are evaluated and the order's status is the first
   * matching row of the spec's table:
   * 1. all NOT_SELLABLE → NOT_SELLABLE, no CTA;
   * 2. some SELLABLE and others listed or sold → SELLABLE, MANAGE;
   * 3. all SELLABLE → SELLABLE, SELL;
   * 4. the listed/sold tickets share one listing and some are listed → FOR_SALE, EDIT;
   * 5. the listed/sold tickets share one listing and all are sold → SOLD, DETAILS;
   * 6. the listed/sold tickets are in different listings → FOR_SALE, MANAGE.
   */
  async orders(tx: Tx, partnerId: string, user: UserRow | null, refs: readonly OrderRef[], lang: Lang, sign: (url: string) => string) {
    const base = this.deps.config.publicBaseUrl;
    return await inOrder(refs, async (order) => {
      const known = (await this.orderTickets(tx, partnerId, order)).filter(
        (r) => order.combinations.length === 0 || order.combinations.some((c) => c.ticketOptionId === r.optionId && (c.priceTypeId === undefined || c.priceTypeId === r.priceTypeId)),
      );
      const evaluated: Evaluated[] =
        known.length > 0
          ? await inOrder(known, async (r) => await this.evaluate(tx, partnerId, user, { eventId: order.eventId, showId: order.showId, ticketId: r.t.ticketId, ticketOptionId: r.optionId }))
          : // An order the service has not seen yet: sellable when its show and options allow, synchronised when the seller starts.
            await inOrder(order.combinations, async (c) => await this.evaluate(tx, partnerId, user, { eventId: order.eventId, showId: order.showId, ticketId: '', ticketOptionId: c.ticketOptionId }));
      const { status, cta } = aggregate(evaluated);
      const q = { lang, ...(known.length === 0 ? { sync: '1', eventId: order.eventId, showId: order.showId } : {}) };
      const groups = [...new Set(evaluated.filter((e) => e.listing).map((e) => e.listing!.id))];
      const url =
        cta === 'SELL' || cta === 'MANAGE'
          ? serviceUrl(base, servicePaths.sellOrder(partnerId, order.orderId, q))
          : cta === 'EDIT' || cta === 'DETAILS'
            ? serviceUrl(base, servicePaths.sellListing(partnerId, groups[0]!, { lang }))
            : null;
      const callToActions: Cta[] = cta && url ? [{ key: cta, text: CTA_TEXT[lang][cta], url: sign(url), enabled: true }] : [];
      if (await this.needsPayout(tx, user, status)) {
        callToActions.push({ key: 'PENDING_PAYOUT_INFO', text: CTA_TEXT[lang].PENDING_PAYOUT_INFO, url: sign(serviceUrl(base, servicePaths.sellPayout(partnerId, { lang }))), enabled: true });
      }
      return { orderId: order.orderId, status, callToActions };
    });
  }

  /**
   * E-mail-only mode: the seller's sales across all events. `soldTickets` is flat;
   * `soldOrders` groups them by primary-sale order (tickets without an order form their own group).
   */
  async sales(tx: Tx, partnerId: string, user: UserRow | null) {
    if (!user) return { soldTickets: [], soldOrders: [] };
    // The seller's sold listings (latest first), then their tickets, shows and options, one read each.
    const sold = await soldListingsOfSeller(tx, partnerId, user.id);
    const pairs = await ticketPksOfListings(tx, sold.map((l) => l.id));
    const ticketsByPk = new Map((await ticketRowsByPks(tx, [...new Set(pairs.map((p) => p.ticketPk))])).map((t) => [t.id, t]));
    const shows = await showsWithEvents(tx, sold.map((l) => l.showPk));
    const options = await ticketOptionsByPks(tx, sold.map((l) => l.ticketOptionPk));
    const ticketsOf = new Map<string, string[]>();
    for (const p of pairs) ticketsOf.set(p.listingId, [...(ticketsOf.get(p.listingId) ?? []), p.ticketPk]);
    const rows = sold.flatMap((l) => {
      const s = shows.get(l.showPk);
      const o = options.get(l.ticketOptionPk);
      if (!s || !o) return [];
      return (ticketsOf.get(l.id) ?? []).flatMap((pk) => {
        const t = ticketsByPk.get(pk);
        return t ? [{ l, t, eventRef: s.event.externalReferenceId, showId: s.show.showId, optionId: o.ticketId }] : [];
      });
    });
    const soldTickets = rows.map((r) => ({
      ticketId: r.t.ticketId,
      orderId: r.t.orderId,
      eventId: r.eventRef,
      showId: r.showId,
      ticketOptionId: r.optionId,
      listingId: r.l.id,
      currency: r.l.currency,
      price: toMajor(r.l.priceMinor, r.l.currency),
      payout: toMajor(r.l.payoutMinor, r.l.currency),
      soldAt: r.l.soldAt === null ? null : toIso(r.l.soldAt),
    }));
    const byOrder = new Map<string, typeof soldTickets>();
    for (const s of soldTickets) {
      const key = s.orderId ?? `ticket:${s.ticketId}`;
      byOrder.set(key, [...(byOrder.get(key) ?? []), s]);
    }
    const soldOrders = [...byOrder.values()].map((list) => ({
      orderId: list[0]!.orderId,
      eventId: list[0]!.eventId,
      showId: list[0]!.showId,
      currency: list[0]!.currency,
      payout: Math.round(list.reduce((sum, s) => sum + s.payout * 100, 0)) / 100,
      tickets: list,
    }));
    return { soldTickets, soldOrders };
  }

  /**
   * The tickets of an order the service knows, in its show, with the partner's ids of their
   * ticket option and price type (none when the event or show is unknown).
   */
  private async orderTickets(tx: Tx, partnerId: string, order: OrderRef) {
    const event = await eventByRef(tx, partnerId, order.eventId);
    const show = event && await showOfEvent(tx, event.id, order.showId);
    if (!show) return [];
    const rows = await ticketsOfOrder(tx, partnerId, order.orderId, show.id);
    const options = await ticketOptionsByPks(tx, rows.map((t) => t.ticketOptionPk));
    const priceTypes = await priceTypesByPks(tx, rows.map((t) => t.priceTypePk));
    return rows.flatMap((t) => {
      const option = options.get(t.ticketOptionPk);
      if (!option) return [];
      return [{ t, optionId: option.ticketId, priceTypeId: t.priceTypePk === null ? null : (priceTypes.get(t.priceTypePk)?.priceTypeId ?? null) }];
    });
  }

  private async evaluate(tx: Tx, partnerId: string, user: UserRow | null, ref: TicketRef): Promise<Evaluated> {
    const ticket = ref.ticketId ? await ticketByRef(tx, partnerId, ref.ticketId) : undefined;
    if (!ticket) {
      // Unknown to the service: sellable when the event, show and option exist and resale is open.
      const event = await eventByRef(tx, partnerId, ref.eventId);
      const show = event && await showOfEvent(tx, event.id, ref.showId);
      const option = show && await ticketOptionOfShow(tx, show.id, ref.ticketOptionId);
      const open = !!show && !!option && isResaleOpen(show) && this.deps.clock.now() < show.startsAt;
      return { status: open ? 'SELLABLE' : 'NOT_SELLABLE', sync: false, listing: null };
    }
    const mine = (l: ListingRow | null | undefined) => (l && user && l.sellerPk === user.id ? l : null);
    // Resold: the ticket now belongs to its buyer; to its seller it shows as SOLD.
    if (user && ticket.ownerPk !== user.id) {
      const soldByUser = await soldListingOfTicket(tx, ticket.id, user.id);
      if (soldByUser) return { status: 'SOLD', sync: true, listing: soldByUser };
    }
    if (ticket.state === 'LISTED') {
      const listing = mine(await this.deps.listings.liveListingOf(tx, ticket.id));
      return { status: listing ? 'FOR_SALE' : 'NOT_SELLABLE', sync: true, listing };
    }
    if (ticket.state === 'SOLD') {
      const listing = mine(await soldListingOfTicket(tx, ticket.id));
      return { status: listing ? 'SOLD' : 'NOT_SELLABLE', sync: true, listing };
    }
    const sellable = (await this.deps.listings.notSellable(tx, ticket)) === null ? 'SELLABLE' : 'NOT_SELLABLE';
    // Our record names another owner: the platform is the source of truth, so treat it as not
    // synchronised; the sell flow re-synchronises and checks ownership live before listing.
    if (!user || ticket.ownerPk !== user.id) return { status: sellable, sync: false, listing: null };
    return { status: sellable, sync: true, listing: null };
  }
}

/**
 * The sell banner component when the partner configured one: `{type: 'banner', class:
 * 'sellBanner', sellBanner: {title, description, image, visible, colors, callToAction}}`. Its
 * call to action opens smart publish for the seller.
 */
export function sellBannerComponent(deps: Pick<Kernel, 'config'>, partner: PartnerRow, lang: Lang, sign: (url: string) => string) {
  const b = partner.settings.sellBanner;
  if (!b) return [];
  return [
    {
      type: 'banner' as const,
      class: 'sellBanner' as const,
      sellBanner: {
        title: b.title[lang],
        description: b.description[lang],
        image: b.image ?? null,
        visible: b.visible,
        colors: b.colors,
        callToAction: { text: b.ctaText[lang], url: sign(serviceUrl(deps.config.publicBaseUrl, servicePaths.sellStart(partner.id, { lang }))), enabled: true },
      },
    },
  ];
}

/** The order aggregation table (see `orders`). Exported for its own tests. */
export function aggregate(items: readonly Evaluated[]): { status: SellStatus; cta: CtaKey | null } {
  const sellable = items.filter((i) => i.status === 'SELLABLE').length;
  const placed = items.filter((i) => i.status === 'FOR_SALE' || i.status === 'SOLD');
  if (items.length === 0 || items.every((i) => i.status === 'NOT_SELLABLE')) return { status: 'NOT_SELLABLE', cta: null };
  if (sellable > 0 && placed.length > 0) return { status: 'SELLABLE', cta: 'MANAGE' };
  if (sellable === items.length) return { status: 'SELLABLE', cta: 'SELL' };
  const groups = new Set(placed.map((p) => p.listing?.id));
  if (groups.size === 1 && placed.some((p) => p.status === 'FOR_SALE')) return { status: 'FOR_SALE', cta: 'EDIT' };
  if (groups.size === 1) return { status: 'SOLD', cta: 'DETAILS' };
  if (placed.length > 0) return { status: 'FOR_SALE', cta: 'MANAGE' };
  // Some sellable next to not-sellable ones, none placed: row 3 asks for *all* sellable, so
  // this mix falls through the table; we offer SELL for the sellable ones.
  return { status: 'SELLABLE', cta: 'SELL' };
}
