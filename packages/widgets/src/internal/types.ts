/**
 * The access-layer shapes the components render, declared here so the widgets compile on their
 * own (DOM tsconfig, no zod at run time). They mirror the server's zod schemas
 * (packages/server/src/flows/accesslayer/accesslayer.buy.schemas.ts and accesslayer.schemas.ts);
 * `types.conformance.ts` fails the type check when the two drift apart.
 */

/** Colours of a component or a call to action, as configured by the partner (hex expected). */
export interface Colors {
  background: string;
  text: string;
}

/**
 * Tickets of a call to action's scope held in other checkouts, and when the first hold ends
 * (`backAt`, ISO). `whose`: `others` when the answer was signed for the fan, `any` otherwise.
 */
export interface Reserved {
  tickets: number;
  backAt: string;
  whose: 'others' | 'any';
}

/** The fan's own checkout holding tickets (answers signed for the fan only): until when, and the ways to it and to release it. */
export interface YourHold {
  tickets: number;
  expiresAt: string;
  url: string;
  releaseUrl: string;
}

/** The signed-for fan's place in the show's waiting list (answers signed for the fan only). */
export interface WaitingPlace {
  position: number;
  quantity: number;
  state: 'WAITING' | 'OFFERED';
  offerExpiresAt?: string | undefined;
  url: string;
}

/** The show's waiting list on a call to action, while it is on and resale is open: the fans in line and the join form. */
export interface CtaWaitingList {
  fans: number;
  joinUrl: string;
  yours?: WaitingPlace | undefined;
}

/** A buy call to action. `enabled` false: show it disabled. */
export interface BuyCallToAction {
  text: string;
  url: string;
  enabled: boolean;
  colors?: Colors | undefined;
  reserved?: Reserved | undefined;
  yourHold?: YourHold | undefined;
  waitingList?: CtaWaitingList | undefined;
}

export interface BuyBanner {
  title: string;
  description: string;
  image: string | null;
  visible: boolean;
  colors: Colors;
  callToAction: BuyCallToAction;
}

export interface BuyModal {
  title: string;
  description: string;
  image: string;
  visible: boolean;
  callToAction: BuyCallToAction;
}

export interface BuyButton {
  visible: boolean;
  callToAction: BuyCallToAction;
  colors: Colors;
}

export interface Category {
  ticketOptionId: string;
  /** The option's visible name (this service adds it to the spec's shape). */
  title?: string | undefined;
  /** ISO 4217 code of floorPrice (this service adds it to the spec's shape). */
  currency?: string | undefined;
  quantityForSale: number;
  floorPrice: number;
  visible: boolean;
  callToAction: BuyCallToAction;
  colors?: Colors | undefined;
}

export interface CategoriesList {
  visible: boolean;
  categories: Category[];
}

export interface Seat {
  section: string | null;
  row: string | null;
  seat: string | null;
}

export interface BestListing {
  listingId: string;
  ticketOptionId: string;
  area: string | null;
  quantity: number;
  currency: string;
  price: number;
  seats: Seat[];
  url: string;
}

export interface IntegratedMap {
  map: {
    config: { allowOrphanTicketSelection: boolean };
    totalCount: number;
    bestListing: BestListing | null;
    results: { area: string; quantityForSale: number; floorPrice: number; ticketOptionIds: string[] }[];
  };
}

export interface BuyBannerComponent {
  type: 'banner';
  class: 'buyBanner';
  buyBanner: BuyBanner;
}
export interface BuyModalComponent {
  type: 'modal';
  class: 'buyModal';
  buyModal: BuyModal;
}
export interface BuyButtonComponent {
  type: 'button';
  class: 'buyButton';
  buyButton: BuyButton;
}
export interface CategoriesListComponent {
  type: 'list';
  class: 'categoriesList';
  categoriesList: CategoriesList;
}
export interface IntegratedMapComponent {
  type: 'map';
  class: 'integratedMap';
  integratedMap: IntegratedMap;
}

/** One item of `GET /v1/wrapper/accesslayer` (buy mode). */
export type BuyComponent = BuyBannerComponent | BuyModalComponent | BuyButtonComponent | CategoriesListComponent | IntegratedMapComponent;

/** Keys of sell calls to action (SPEC "Smart access layer", CTA table). */
export type SellCtaKey = 'SELL' | 'EDIT' | 'DETAILS' | 'P2P' | 'PENDING_PAYOUT_INFO' | 'MANAGE';

/** A sell call to action. */
export interface SellCallToAction {
  key: SellCtaKey;
  text: string;
  url: string;
  enabled: boolean;
  colors?: Colors | undefined;
}

/** Sell status of a ticket or an order (`MIXED` is named by the spec for aggregated results). */
export type SellStatus = 'SELLABLE' | 'NOT_SELLABLE' | 'FOR_SALE' | 'SOLD' | 'MIXED';

/** A ticket entry of the sell response (tickets mode). */
export interface SellTicketEntry {
  status: SellStatus;
  ticketId: string;
  ticketOptionId?: string;
  priceTypeId?: string | null;
  sync?: boolean;
  callToActions: SellCallToAction[];
}

/** An order entry of the sell response (orders mode). */
export interface SellOrderEntry {
  status: SellStatus;
  orderId: string;
  callToActions: SellCallToAction[];
}

export type SellEntry = SellTicketEntry | SellOrderEntry;

export interface SellBanner {
  title: string;
  description: string;
  image: string | null;
  visible: boolean;
  colors: Colors;
  callToAction: { text: string; url: string; enabled: boolean; colors?: Colors | undefined };
}

/** The sell banner component of `POST /v1/wrapper/accesslayer` (sell mode). */
export interface SellBannerComponent {
  type: 'banner';
  class: 'sellBanner';
  sellBanner: SellBanner;
}

/** Anything `<resale-access-layer>` can render. */
export type AccessLayerComponent = BuyComponent | SellBannerComponent;

/** A listing on the seat map: sold whole (a pack is never split). */
export interface SeatMapListing {
  listingId: string;
  ticketOptionId: string;
  area: string | null;
  quantity: number;
  /** Per ticket, buyer fee included, major units. */
  price: number;
  currency: string;
  seats: Seat[];
}

export interface SeatMapArea {
  area: string;
  quantityForSale: number;
  floorPrice: number;
  currency: string;
  ticketOptionIds: string[];
}

/** `data` of `GET /v1/wrapper/seatmap` (public key). */
export interface SeatMapData {
  eventId: string;
  showId: string;
  chart: { svgCode: string | null; image: string | null };
  config: { allowOrphanTicketSelection: boolean };
  areas: SeatMapArea[];
  /** Cheapest first. */
  listings: SeatMapListing[];
  /** The hosted market page; `&listingIds=a,b` continues to checkout with those listings. */
  selectUrl: string;
}

/** The server's response envelope. */
export interface Envelope<T> {
  status: number;
  data: T;
  errors: { code: string; message: string; param?: string }[] | null;
}
