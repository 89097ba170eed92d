import type { Lang } from '@resale/shared/lang';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/client.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { toMajor } from '../../lib/money.js';
import { authService, type AuthServiceDeps } from '../../domain/auth/auth.service.js';
import { signingWith } from '../../domain/auth/auth.urls.js';
import { isResaleOpen } from '../../domain/events/events.model.js';
import type { PartnerRow } from '../../domain/partners/partners.service.js';
import type { BuyAccessLayerSettings } from '../../domain/partners/partners.settings.js';
import type { WaitingListEntry } from '../../domain/waitinglist/waitinglist.model.js';
import type { WaitingListService } from '../../domain/waitinglist/waitinglist.service.js';
import { isPrimaryScarce } from '../../domain/marketdata/marketdata.service.js';
import type { DbVersion } from '../../db/change-counter.js';
import { ShowSnapshots, type OptionSnapshot, type ShowSnapshot, type SnapshotEntry, type SnapshotHold } from './accesslayer.buy.cache.js';
import type { Kernel } from '../../lib/kernel.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';

/**
 * The buy access layer (GET /v1/wrapper/accesslayer?type=buy and POST …/bulk): the
 * components a partner renders on its event pages to show resale inventory and send buyers
 * to the market. Which components, their texts, colours and images come from the partner's
 * `buyAccessLayer` setting (see partners.settings.ts); the numbers come from the show's
 * ACTIVE listings through an in-memory cache that the next request after any write checks
 * (see accesslayer.buy.cache.ts for the rule and its two bounds).
 *
 * Rendering rules (the spec's, and ours where it is silent):
 * - components come in this order: buyBanner, buyModal, buyButton, categoriesList, integratedMap;
 *   a component the partner has not configured is absent; `visible: false` is returned as such;
 * - ticket options disabled for the event or show are absent everywhere (categories, counts,
 *   floors, map, best listing), as if they had no listings;
 * - a configured buyBanner is `visible: true`, whatever its `visible` setting, while the show's
 *   primary sale is sold out or nearly (the partner reported `soldOut: true` or `soldPercentage`
 *   ≥ 90 through PUT /v1/marketdata/events/…/inventory, see `isPrimaryScarce`) and resale is
 *   open: that is when resale is the official way to get tickets. Otherwise it follows the
 *   setting. Only the banner, and only when configured: no component appears on its own;
 * - a call to action is `enabled: false` when resale is closed (show cancelled or hidden,
 *   `resaleEnabled` false, or the show has started) or nothing is for sale (for a category:
 *   nothing of that category). `visible` still says what the setting (or a scarce primary)
 *   says: the answer describes the configuration and the stock, and whoever renders decides.
 *   The widgets render neither the banner nor the modal while their call to action is disabled
 *   (an announcement of resale with nothing to buy is a false promise; a modal must lead
 *   somewhere), and a partner drawing its own should do the same;
 * - every URL goes to the market page `{publicBaseUrl}/market/{partnerId}/{eventId}?showId&lang`
 *   (`&ticketOptionId` for a category, `&listingId` for the best listing) and, with Login
 *   Trust, carries its own single-use `oneTimeToken`. No `returnTo`: one answer serves every
 *   page of the show (and is cached), so the widgets add the address of the page they are on,
 *   which the market shows as its way back only on the partner's `allowedOrigins` (see
 *   `partnerReturnTo`); a partner building links on its server uses the buying-flow entry URL,
 *   whose `returnTo` is tagged;
 * - prices are per ticket with the buyer fee, in major units of the option's currency; 0
 *   when nothing is for sale;
 * - the map is returned only when the event has a seating chart, the partner configured it,
 *   and some offer's ticket option has an `area`.
 */

/** Turns a URL into the URL to return (signed with a one-time token, or unchanged). */
export type Signer = (url: string) => string;

export interface Colors {
  background: string;
  text: string;
}

export interface BuyCta {
  text: string;
  url: string;
  enabled: boolean;
  colors?: Colors;
  /**
   * Additive: tickets of the CTA's scope (the show, or the category) held in checkouts waiting
   * for payment, and when the first of those holds ends (they may be back on sale then). Absent
   * when none. `whose`: `others` in an answer signed for a fan (their own holds are in
   * `yourHold` instead), `any` in an unsigned one (it cannot tell whose).
   */
  reserved?: { tickets: number; backAt: string; whose: 'others' | 'any' };
  /**
   * Additive, only in an answer signed for a fan (Login Trust): the fan's own checkout of this
   * scope still holding tickets: how many, until when, the way back to it (`url`) and to the
   * market, where the fan can let them go (`releaseUrl`). Each URL signed as the others.
   */
  yourHold?: { tickets: number; expiresAt: string; url: string; releaseUrl: string };
  /**
   * Additive, while the organiser has the show's waiting list on and resale is open: the fans
   * in the show's line (one line per show, whatever the category), and the market's join form.
   * With nothing for sale (`enabled` false) say "Join the waiting list · N fans waiting"
   * linking `joinUrl` rather than a disabled button. `yours`: only in an answer signed for a
   * fan who is in the line.
   */
  waitingList?: BuyCtaWaitingList;
}

/** A call to action's `waitingList` (see {@link BuyCta}). */
export interface BuyCtaWaitingList {
  /** Fans in the show's line: waiting, or holding an offer. */
  fans: number;
  /** The market page's join form (`#waitinglist`), with the category of a category's call to action; signed as the other URLs. */
  joinUrl: string;
  /**
   * The signed-for fan's place in the line: their position (1 = next), the tickets they wait
   * for, and while an offer holds tickets for them (`state: OFFERED`) until when; `url` is the
   * offer's checkout then, the market (where they can leave the line) otherwise. Signed.
   */
  yours?: { position: number; quantity: number; state: 'WAITING' | 'OFFERED'; offerExpiresAt?: string; url: string };
}

export interface BuyBannerComponent {
  type: 'banner';
  class: 'buyBanner';
  buyBanner: { title: string; description: string; image: string | null; visible: boolean; colors: Colors; callToAction: BuyCta };
}

/**
 * The buy banner as the access layer answers it, from its setting in `lang` (`visible`, the
 * call to action's `url` and `enabled` are the show's: see the rendering rules above). The
 * console's preview draws the widget with what this returns, so it shows what fans will see.
 */
export function buyBannerComponent(b: NonNullable<BuyAccessLayerSettings['buyBanner']>, lang: Lang, show: { visible: boolean; url: string; enabled: boolean }): BuyBannerComponent {
  return {
    type: 'banner',
    class: 'buyBanner',
    buyBanner: {
      title: b.title[lang],
      description: b.description[lang],
      image: b.image ?? null,
      visible: show.visible,
      colors: b.colors,
      callToAction: { text: b.ctaText[lang], url: show.url, enabled: show.enabled },
    },
  };
}

export interface BuyModalComponent {
  type: 'modal';
  class: 'buyModal';
  buyModal: { title: string; description: string; image: string; visible: boolean; callToAction: BuyCta };
}

export interface BuyButtonComponent {
  type: 'button';
  class: 'buyButton';
  buyButton: { visible: boolean; callToAction: BuyCta; colors: Colors };
}

export interface Category {
  ticketOptionId: string;
  /** Additive to the spec's shape: the option's visible name, so a widget need not map ids. */
  title: string;
  /** Additive: ISO 4217 code of floorPrice. */
  currency: string;
  quantityForSale: number;
  floorPrice: number;
  visible: boolean;
  callToAction: BuyCta;
  colors?: Colors;
}

export interface CategoriesListComponent {
  type: 'list';
  class: 'categoriesList';
  categoriesList: { visible: boolean; categories: Category[] };
}

export interface BestListing {
  listingId: string;
  ticketOptionId: string;
  area: string | null;
  quantity: number;
  currency: string;
  price: number;
  seats: { section: string | null; row: string | null; seat: string | null }[];
  url: string;
}

export interface MapArea {
  area: string;
  quantityForSale: number;
  floorPrice: number;
  ticketOptionIds: string[];
}

export interface IntegratedMapComponent {
  type: 'map';
  class: 'integratedMap';
  integratedMap: { map: { config: { allowOrphanTicketSelection: boolean }; totalCount: number; bestListing: BestListing | null; results: MapArea[] } };
}

export type BuyComponent = BuyBannerComponent | BuyModalComponent | BuyButtonComponent | CategoriesListComponent | IntegratedMapComponent;
/** What bulk answers: buttons, modals and banners only. */
export type BulkBuyComponent = BuyBannerComponent | BuyModalComponent | BuyButtonComponent;

export interface BulkItem {
  eventId: string;
  showIds: string[];
}

export interface BulkAnswer {
  eventId: string;
  showId: string;
  components: BulkBuyComponent[];
}

/** The configuration of a partner without a `buyAccessLayer` setting: a visible buy button and the categories list. */
export const DEFAULT_BUY_ACCESS_LAYER: BuyAccessLayerSettings = {
  buyButton: {
    visible: true,
    ctaText: { en: 'Buy resale tickets', es: 'Comprar entradas de reventa' },
    colors: { background: '#0b4fb3', text: '#ffffff' },
  },
  categoriesList: { visible: true, ctaText: { en: 'See tickets', es: 'Ver entradas' } },
  disabledTicketOptions: [],
};

/**
 * What the sandbox partner starts with, so `npm start` and the demo show the buy components at
 * work: the banner, the button, the categories and the seat map. Not the modal: it opens by
 * itself over every page that loads it, which a partner chooses knowingly.
 */
export const SANDBOX_BUY_ACCESS_LAYER: BuyAccessLayerSettings = {
  buyBanner: {
    visible: true,
    title: { en: 'Sold out? Not quite.', es: '¿Agotado? No del todo.' },
    description: { en: 'Fans who cannot go resell their tickets here, at prices the organiser allows.', es: 'Quien no puede ir revende aquí sus entradas, a los precios que permite el organizador.' },
    ctaText: { en: 'See resale tickets', es: 'Ver entradas de reventa' },
    colors: { background: '#0b3d91', text: '#ffffff' },
  },
  ...DEFAULT_BUY_ACCESS_LAYER,
  integratedMap: { allowOrphanTicketSelection: false },
};

/** The partner's configuration (stored settings from before the setting existed read as null). */
export function buyConfig(partner: PartnerRow): BuyAccessLayerSettings {
  return partner.settings.buyAccessLayer ?? DEFAULT_BUY_ACCESS_LAYER;
}

/**
 * Login Trust for one answer: `withLoginTrustSigner` (auth.urls.ts) without its partner lookup
 * per token (the token lifetime is read from the partner at hand). `work` renders with a
 * signer that mints a fresh single-use token per URL (and is told the user's key, so the answer
 * can show the fan's own holds); the tokens are written together once it is done. The user is
 * resolved once, created on first sight.
 *
 * @throws ApiError 400 `invalid_format` naming `loginTrust[user]` when the user is not usable
 * @example const components = await loginTrustSigning(deps, tx, partner, 'ana@example.com', (sign) => buy.show(partner, ref, lang, sign));
 */
export async function loginTrustSigning<T>(deps: AuthServiceDeps, tx: Tx, partner: PartnerRow, user: string, work: (sign: Signer, userPk: string) => T | Promise<T>): Promise<T> {
  const auth = authService(deps);
  const row = await auth.resolveUser(tx, partner.id, user, { path: 'loginTrust[user]' });
  return signingWith(tx, await auth.tokenBatch(tx, partner.id, row.id, 'accessLayer', { ttlSeconds: partner.settings.oneTimeTokenTtlSeconds }), (sign) => work(sign, row.id));
}

/** Whether resale of the show is open now: resale enabled, not cancelled or hidden, not started. */
export function resaleOpen(s: Pick<ShowSnapshot, 'status' | 'resaleEnabled' | 'startsAt'>, now: number): boolean {
  return isResaleOpen(s) && now < s.startsAt;
}

/** What the buy access layer reads: the snapshots (db, clock), the public URL, and a signed-for fan's place in a waiting list. */
export type BuyAccessLayerDeps = Pick<Kernel, 'db' | 'clock' | 'config'> & { waitingList: Pick<WaitingListService, 'liveEntryOfFan'> };

export class BuyAccessLayer {
  readonly snapshots: ShowSnapshots;

  constructor(private readonly deps: BuyAccessLayerDeps) {
    this.snapshots = new ShowSnapshots(deps.db, deps.clock);
  }

  /**
   * Every component of one show (GET). `sign` is called once per URL, in order.
   *
   * @throws ApiError 404 when the partner has no such event or show (another partner's reads the same)
   * @example
   * const components = buy.show(partner, { eventId: 'tour-2026', showId: 'show-1' }, 'es', (u) => u);
   */
  async show(partner: PartnerRow, ref: { eventId: string; showId: string }, lang: Lang, sign: Signer, version: DbVersion = this.snapshots.counter.read(), via?: Db, viewerPk: string | null = null): Promise<BuyComponent[]> {
    const r = await this.snapshots.get(partner.id, ref.eventId, ref.showId, version, via);
    if (!r.found) throw notFound(r.missing, ref);
    const line = await this.fanInLine(r.snapshot, viewerPk, via);
    return this.render(partner, r.snapshot, lang, sign, false, this.deps.clock.now(), viewerPk, line);
  }

  /** The signed-for fan's live entry in the show's waiting list (null: no fan, the list off, or not in it). */
  private async fanInLine(s: ShowSnapshot, viewerPk: string | null, via: Db | undefined): Promise<WaitingListEntry | null> {
    if (viewerPk === null || s.waitingList === null) return null;
    return await (via ?? this.deps.db).read(async (tx) => await this.deps.waitingList.liveEntryOfFan(tx, s.showPk, viewerPk));
  }

  /**
   * The unsigned answer of one show: the envelope `ok(components)` as UTF-8 JSON bytes (what
   * `c.json` would send; bytes, so the server neither re-encodes nor re-measures them). With
   * `cacheable` (the partner was read at `version`, so its settings are those of the snapshot's
   * moment) the bytes are kept with the snapshot, per language and resale state (open or
   * closed, which the clock alone can change), and served again while the snapshot holds.
   *
   * @throws ApiError 404 as {@link show}
   */
  showJson(partner: PartnerRow, ref: { eventId: string; showId: string }, lang: Lang, version: DbVersion, cacheable: boolean): Uint8Array<ArrayBuffer> | Promise<Uint8Array<ArrayBuffer>> {
    const found = this.snapshots.entry(partner.id, ref.eventId, ref.showId, version);
    // A cached snapshot answers synchronously, without a turn of the event loop (the hot path).
    if (found instanceof Promise) return found.then((entry) => this.answerBytes(partner, ref, lang, cacheable, entry));
    return this.answerBytes(partner, ref, lang, cacheable, found);
  }

  private answerBytes(partner: PartnerRow, ref: { eventId: string; showId: string }, lang: Lang, cacheable: boolean, entry: SnapshotEntry): Uint8Array<ArrayBuffer> {
    const r = entry.result;
    if (!r.found) throw notFound(r.missing, ref);
    const now = this.deps.clock.now();
    const key = `${lang}|${resaleOpen(r.snapshot, now) ? 'open' : 'closed'}`;
    const hit = cacheable ? entry.rendered.get(key) : undefined;
    if (hit !== undefined) return hit;
    const bytes = Buffer.from(JSON.stringify(ok(this.render(partner, r.snapshot, lang, (url) => url, false, now))), 'utf8');
    if (cacheable) entry.rendered.set(key, bytes);
    return bytes;
  }

  /**
   * Buttons, modals and banners of many shows (bulk), one answer per requested show in
   * request order; an unknown event or show answers an empty list.
   */
  async bulk(partner: PartnerRow, items: readonly BulkItem[], lang: Lang, sign: Signer, version: DbVersion = this.snapshots.counter.read(), via?: Db, viewerPk: string | null = null): Promise<BulkAnswer[]> {
    const out: BulkAnswer[] = [];
    const now = this.deps.clock.now();
    for (const item of items) {
      for (const showId of item.showIds) {
        const got = this.snapshots.get(partner.id, item.eventId, showId, version, via);
        const r = got instanceof Promise ? await got : got;
        const line = r.found ? await this.fanInLine(r.snapshot, viewerPk, via) : null;
        out.push({ eventId: item.eventId, showId, components: r.found ? (this.render(partner, r.snapshot, lang, sign, true, now, viewerPk, line) as BulkBuyComponent[]) : [] });
      }
    }
    return out;
  }

  /**
   * Runs `work` (which signs URLs: it writes one-time tokens and maybe a user) without
   * evicting the cached snapshots; see {@link DbChangeCounter.forgive}.
   */
  signing<T>(work: () => T): T {
    return this.snapshots.counter.forgive(work);
  }

  /**
   * Renders the components. `viewerPk`: the fan the answer is signed for (Login Trust), whose
   * own holds become `yourHold` (each URL signed) and are not counted as `reserved`; null for an
   * unsigned answer, which is the same for everyone (and cached). `line`: that fan's live entry
   * in the show's waiting list (`waitingList.yours`).
   */
  private render(partner: PartnerRow, s: ShowSnapshot, lang: Lang, sign: Signer, bulk: boolean, now: number, viewerPk: string | null = null, line: WaitingListEntry | null = null): BuyComponent[] {
    const cfg = buyConfig(partner);
    const { options, total, open, enabled, holds } = showMarket(cfg, s, now);
    const base = serviceUrl(this.deps.config.publicBaseUrl, servicePaths.market(partner.id, s.eventId, { showId: s.showId, lang }));
    // The holds of a scope as a call to action's additive fields (nothing when none).
    const held = (ticketOptionId?: string): Pick<BuyCta, 'reserved' | 'yourHold' | 'waitingList'> => {
      const out: Pick<BuyCta, 'reserved' | 'yourHold' | 'waitingList'> = {};
      const reserved = reservedOf(holds, viewerPk, ticketOptionId);
      if (reserved) out.reserved = reserved;
      // The fan's own checkout that ends first and has not ended yet (this answer is not cached: the clock may decide).
      const own = viewerPk === null ? undefined : holds.find((h) => inScope(h, ticketOptionId) && h.buyerPk === viewerPk && h.expiresAt > now);
      if (own) {
        out.yourHold = {
          tickets: own.tickets,
          expiresAt: new Date(own.expiresAt).toISOString(),
          url: sign(serviceUrl(this.deps.config.publicBaseUrl, servicePaths.checkout(partner.id, own.intentionId, { lang }))),
          // The market shows the fan's hold with "release them" (a form the widget cannot post across sites).
          releaseUrl: sign(`${base}#own-hold-0`),
        };
      }
      if (open && s.waitingList) out.waitingList = waitingListCta(s.waitingList.fans, ticketOptionId);
      return out;
    };
    // The line is the show's: the same `yours` in every call to action (its URLs signed once each).
    const yours = open && line ? yoursOf(line, this.deps.config.publicBaseUrl, partner.id, base, lang, sign) : undefined;
    const waitingListCta = (fans: number, ticketOptionId: string | undefined): BuyCtaWaitingList => ({
      fans,
      joinUrl: sign(`${ticketOptionId === undefined ? base : `${base}&${new URLSearchParams({ ticketOptionId })}`}#waitinglist`),
      ...(yours ? { yours } : {}),
    });
    const out: BuyComponent[] = [];

    if (cfg.buyBanner) {
      const b = cfg.buyBanner;
      // Prominent while the primary is (nearly) sold out and resale is open (see the rules above).
      const visible = b.visible || (open && isPrimaryScarce(s.primary));
      const banner = buyBannerComponent(b, lang, { visible, url: sign(base), enabled });
      Object.assign(banner.buyBanner.callToAction, held());
      out.push(banner);
    }
    if (cfg.buyModal) {
      const m = cfg.buyModal;
      out.push({
        type: 'modal',
        class: 'buyModal',
        buyModal: { title: m.title[lang], description: m.description[lang], image: m.image, visible: m.visible, callToAction: { text: m.ctaText[lang], url: sign(base), enabled, ...held() } },
      });
    }
    if (cfg.buyButton) {
      const b = cfg.buyButton;
      out.push({
        type: 'button',
        class: 'buyButton',
        buyButton: { visible: b.visible, callToAction: { text: b.ctaText[lang], url: sign(base), enabled, ...(b.ctaColors ? { colors: b.ctaColors } : {}), ...held() }, colors: b.colors },
      });
    }
    if (bulk) return out;

    if (cfg.categoriesList) {
      const l = cfg.categoriesList;
      out.push({
        type: 'list',
        class: 'categoriesList',
        categoriesList: {
          visible: l.visible,
          categories: options.map((o) => ({
            ticketOptionId: o.ticketOptionId,
            title: o.title,
            currency: o.currency,
            quantityForSale: o.quantityForSale,
            floorPrice: floorPriceOf(o),
            visible: l.visible && o.webVisibility,
            callToAction: {
              text: l.ctaText[lang],
              url: sign(`${base}&${new URLSearchParams({ ticketOptionId: o.ticketOptionId })}`),
              enabled: open && o.quantityForSale > 0,
              ...(l.ctaColors ? { colors: l.ctaColors } : {}),
              ...held(o.ticketOptionId),
            },
            ...(l.colors ? { colors: l.colors } : {}),
          })),
        },
      });
    }
    const map = cfg.integratedMap;
    if (map && s.hasSeating && options.some((o) => o.area !== null && o.quantityForSale > 0)) {
      out.push({
        type: 'map',
        class: 'integratedMap',
        integratedMap: { map: { config: { allowOrphanTicketSelection: map.allowOrphanTicketSelection }, totalCount: total, bestListing: bestListing(options, base, sign), results: mapAreas(options) } },
      });
    }
    return out;
  }
}

/**
 * The signed-for fan's place in the line as a call to action shows it: with a live offer, its
 * checkout (the tickets held for them) and when it ends; otherwise the market, where the fan
 * sees the line and can leave it.
 */
function yoursOf(entry: WaitingListEntry, publicBaseUrl: string, partnerId: string, base: string, lang: Lang, sign: Signer): NonNullable<BuyCtaWaitingList['yours']> {
  const offer = entry.state === 'OFFERED' ? entry.offer : null;
  return {
    position: entry.position ?? 1,
    quantity: entry.quantity,
    state: offer ? 'OFFERED' : 'WAITING',
    ...(offer ? { offerExpiresAt: new Date(offer.expiresAt).toISOString() } : {}),
    url: sign(offer ? serviceUrl(publicBaseUrl, servicePaths.checkout(partnerId, offer.intentionId, { lang })) : `${base}#waitinglist`),
  };
}

function notFound(missing: 'event' | 'show', ref: { eventId: string; showId: string }): ApiError {
  return missing === 'event' ? ApiError.notFound('event', ref.eventId) : ApiError.notFound('show', ref.showId);
}

/**
 * What every number of the buy access layer is computed from, for one show at `now` under the
 * partner's configuration: the components (`render`) and the live stock of the stream
 * (accesslayer.stream.ts) both start here, so they never disagree.
 */
export interface ShowMarket {
  /** The show's options the operator has not disabled, in the show's order (see {@link enabledOptions}). */
  options: OptionSnapshot[];
  /** Tickets for sale among those options. */
  total: number;
  /** Resale is open now (see {@link resaleOpen}). */
  open: boolean;
  /** The show's call to action: resale open and something for sale. */
  enabled: boolean;
  /** The live holds of those options; none while resale is closed (nothing to wait for). */
  holds: SnapshotHold[];
}

/**
 * The market of a show as the buy access layer counts it (see {@link ShowMarket}).
 *
 * @example const { total, enabled } = showMarket(buyConfig(partner), snapshot, clock.now());
 */
export function showMarket(cfg: BuyAccessLayerSettings, s: ShowSnapshot, now: number): ShowMarket {
  const options = enabledOptions(cfg, s);
  let total = 0;
  for (const o of options) total += o.quantityForSale;
  const open = resaleOpen(s, now);
  const holds = open ? s.holds.filter((h) => options.some((o) => o.ticketOptionId === h.ticketOptionId)) : [];
  return { options, total, open, enabled: open && total > 0, holds };
}

/** An option's floor as the access layer answers it: per ticket with the buyer fee, in major units of its currency; 0 when nothing is for sale. */
export function floorPriceOf(o: Pick<OptionSnapshot, 'floorMinor' | 'currency'>): number {
  return o.floorMinor === null ? 0 : toMajor(o.floorMinor, o.currency);
}

/** Whether a hold is of a scope: the whole show (`ticketOptionId` undefined) or one option. */
function inScope(h: SnapshotHold, ticketOptionId: string | undefined): boolean {
  return ticketOptionId === undefined || h.ticketOptionId === ticketOptionId;
}

/**
 * A call to action's `reserved`: the tickets of a scope (the show, or one option) held in
 * checkouts other than the viewer's, and when the first of those holds ends; undefined when
 * none. `viewerPk` null (an unsigned answer, or the live stock) counts every hold, `whose: 'any'`.
 * Waiting-list offers are left out: their tickets pass to the next fan in line when they end,
 * not back on sale, so "may be back at 18:42" would promise what will not happen (the line is
 * said by `waitingList`).
 *
 * @example reservedOf(showMarket(cfg, s, now).holds, null, 'opt-vip') // { tickets: 2, backAt: '2026-…Z', whose: 'any' }
 */
export function reservedOf(holds: readonly SnapshotHold[], viewerPk: string | null, ticketOptionId?: string): NonNullable<BuyCta['reserved']> | undefined {
  let tickets = 0;
  let backAt = Infinity;
  for (const h of holds) {
    if (h.kind === 'waitinglist' || !inScope(h, ticketOptionId) || (viewerPk !== null && h.buyerPk === viewerPk)) continue;
    tickets += h.tickets;
    backAt = Math.min(backAt, h.expiresAt);
  }
  if (backAt === Infinity) return undefined;
  return { tickets, backAt: new Date(backAt).toISOString(), whose: viewerPk === null ? 'any' : 'others' };
}

/** The show's options minus those the operator disabled for the event or for this show. */
export function enabledOptions(cfg: BuyAccessLayerSettings, s: ShowSnapshot): OptionSnapshot[] {
  const disabled = cfg.disabledTicketOptions ?? [];
  if (disabled.length === 0) return s.options;
  const off = new Set<string>();
  for (const d of disabled) if (d.eventId === s.eventId && (d.showId === undefined || d.showId === s.showId)) off.add(d.ticketOptionId);
  return off.size === 0 ? s.options : s.options.filter((o) => !off.has(o.ticketOptionId));
}

function bestListing(options: readonly OptionSnapshot[], base: string, sign: Signer): BestListing | null {
  let best: OptionSnapshot | null = null;
  for (const o of options) {
    const c = o.cheapest;
    if (!c) continue;
    const b = best?.cheapest;
    if (!b || c.buyerTotalMinor < b.buyerTotalMinor || (c.buyerTotalMinor === b.buyerTotalMinor && c.listingId < b.listingId)) best = o;
  }
  const c = best?.cheapest;
  if (!best || !c) return null;
  return {
    listingId: c.listingId,
    ticketOptionId: best.ticketOptionId,
    area: best.area,
    quantity: c.quantity,
    currency: c.currency,
    price: toMajor(c.buyerTotalMinor, c.currency),
    seats: c.seats,
    url: sign(`${base}&${new URLSearchParams({ ticketOptionId: best.ticketOptionId, listingId: c.listingId })}`),
  };
}

/**
 * Per area (in the order areas first appear among the options): tickets for sale, floor and
 * the options in it. The seat map's `results`, and the live stock's `areas`.
 */
export function mapAreas(options: readonly OptionSnapshot[]): MapArea[] {
  const byArea = new Map<string, { quantity: number; floorMinor: number | null; currency: string; ids: string[] }>();
  for (const o of options) {
    if (o.area === null) continue;
    const a = byArea.get(o.area) ?? { quantity: 0, floorMinor: null, currency: o.currency, ids: [] };
    a.quantity += o.quantityForSale;
    a.ids.push(o.ticketOptionId);
    if (o.floorMinor !== null && (a.floorMinor === null || o.floorMinor < a.floorMinor)) {
      a.floorMinor = o.floorMinor;
      a.currency = o.currency;
    }
    byArea.set(o.area, a);
  }
  return [...byArea].map(([area, a]) => ({ area, quantityForSale: a.quantity, floorPrice: floorPriceOf(a), ticketOptionIds: a.ids }));
}
