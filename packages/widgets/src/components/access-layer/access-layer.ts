import { html, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { ResaleErrorEvent } from '../../events/error.js';
import { ResaleReadyEvent } from '../../events/ready.js';
import { ResaleStockEvent } from '../../events/stock.js';
import { apiBase, fetchData, isAbort, LoadError, toErrorDetail } from '../../internal/api.js';
import { ResaleElement } from '../../internal/base-element.js';
import { isOffered } from '../../internal/cta.js';
import { isObject } from '../../internal/safe.js';
import { loadSeatMap } from '../../internal/seat-map-loader.js';
import { StockStream, type Stock } from '../../internal/stock-stream.js';
import type { AccessLayerComponent, BuyCallToAction, Reserved } from '../../internal/types.js';
import { accessLayerStyles } from './access-layer.styles.js';

const KNOWN = new Set(['buyBanner', 'buyModal', 'buyButton', 'categoriesList', 'integratedMap', 'sellBanner']);

/** Parts of the inner elements, re-exported with a prefix: `::part(buy-button-cta)`. */
const exportParts = (prefix: string, parts: string[]) => parts.map((p) => `${p}:${prefix}-${p}`).join(', ');
const BANNER_PARTS = ['base', 'image', 'body', 'title', 'description', 'cta', 'cta-disabled'];
/** The parts of the fan's own hold (buy button, categories list). */
const HOLD_PARTS = ['your-hold', 'your-hold-title', 'your-hold-time', 'your-hold-continue', 'your-hold-release'];
/** The parts of the show's waiting list (buy button, categories list). */
const WAITING_PARTS = ['waiting-join', 'waiting-fans', 'waiting-place', 'waiting-place-link'];

/**
 * Items the element can render; unknown classes (a newer server) are skipped, never fatal.
 * Only the fields the renderers test are checked here; each component checks the rest.
 */
function toComponents(data: unknown): AccessLayerComponent[] {
  if (!Array.isArray(data)) throw new LoadError({ reason: 'parse', message: 'the access layer is not a list' });
  return data.filter((c): c is AccessLayerComponent => isObject(c) && typeof c['class'] === 'string' && KNOWN.has(c['class']) && isObject(c[c['class']]));
}

/**
 * A call to action with the live `enabled`, `reserved` and waiting-list count, as a new object; the URL, the text,
 * the colours and the fan's own hold stay. One carrying the fan's own hold (an answer signed for
 * the fan) keeps its `reserved` too: the stream counts every checkout, the fan's included. One
 * whose answer was signed for a fan without a hold in its scope (`whose: 'others'`) keeps saying
 * the holds are other fans' (the stream cannot tell whose: it says `any`).
 */
function liveCta(cta: unknown, enabled: boolean, reserved: Reserved | undefined, waitingFans: number | undefined): BuyCallToAction {
  const next = { ...(cta as BuyCallToAction), enabled };
  // The fans in line follow the stream; a list switched off (or resale closed) takes its join
  // away. A list switched on after the load shows with the next load: the stream has no URLs.
  if (next.waitingList) {
    if (waitingFans === undefined) delete next.waitingList;
    else next.waitingList = { ...next.waitingList, fans: waitingFans };
  }
  if (!next.yourHold) {
    if (reserved) next.reserved = next.reserved?.whose === 'others' ? { ...reserved, whose: 'others' } : reserved;
    else delete next.reserved;
  }
  return next;
}

/**
 * The components with live stock, as new objects where something may change (Lit renders what
 * changed); the others as they were. Categories and areas are matched by id and name: one the
 * components do not have is ignored. The buy modal is left alone (see access-layer.md); items the
 * server sent malformed too.
 */
function withStock(items: AccessLayerComponent[], stock: Stock): AccessLayerComponent[] {
  const categories = new Map(stock.categories.map((c) => [c.ticketOptionId, c]));
  const areas = new Map(stock.areas.map((a) => [a.area, a]));
  // The show's holds: the sum of its categories', ending first when the first of them does.
  let show: Reserved | undefined;
  for (const { reserved: r } of stock.categories) if (r) show = { tickets: (show?.tickets ?? 0) + r.tickets, backAt: show && show.backAt < r.backAt ? show.backAt : r.backAt, whose: 'any' };
  return items.map((c) => {
    const item = (c as unknown as Record<string, Record<string, unknown>>)[c.class]!;
    if ((c.class === 'buyBanner' || c.class === 'buyButton') && isObject(item['callToAction'])) return { ...c, [c.class]: { ...item, callToAction: liveCta(item['callToAction'], stock.enabled, show, stock.waitingFans) } } as AccessLayerComponent;
    if (c.class === 'categoriesList' && Array.isArray(item['categories'])) {
      return {
        ...c,
        categoriesList: {
          ...c.categoriesList,
          categories: c.categoriesList.categories.map((k) => {
            const s = isObject(k) && isObject(k.callToAction) ? categories.get(k.ticketOptionId) : undefined;
            return s ? { ...k, quantityForSale: s.quantityForSale, floorPrice: s.floorPrice, callToAction: liveCta(k.callToAction, s.enabled, s.reserved, stock.waitingFans) } : k;
          }),
        },
      };
    }
    const map = item['map'];
    if (c.class === 'integratedMap' && isObject(map) && Array.isArray(map['results'])) {
      const m = c.integratedMap.map;
      const results = m.results.map((r) => {
        const a = isObject(r) ? areas.get(r.area) : undefined;
        return a ? { ...r, quantityForSale: a.quantityForSale, floorPrice: a.floorPrice } : r;
      });
      return { ...c, integratedMap: { ...c.integratedMap, map: { ...m, totalCount: stock.totalCount, results } } };
    }
    return c;
  });
}

/** Whether the item shows anything: the banner and the modal only with offers to lead to (as they render). */
function isVisible(c: AccessLayerComponent): boolean {
  if (c.class === 'integratedMap') return true;
  const item = (c as unknown as Record<string, { visible?: unknown; callToAction?: { enabled?: unknown; url?: unknown } }>)[c.class];
  if (item?.visible !== true) return false;
  return c.class === 'buyBanner' || c.class === 'buyModal' ? isOffered(item.callToAction) : true;
}

/**
 * The one-tag integration: fetches the buy access layer for an event's show with the partner's
 * public key and renders the components it receives, in the server's order (banner, modal,
 * button, categories list, seat map). A partner whose server already called the API (sell mode,
 * Login Trust) passes the components in with `.components` instead, and nothing is fetched.
 *
 * Every buy call to action carries the way back to the partner (`returnTo`: the `return-to`
 * attribute, else the page's address). The banner and the modal show only while something is for
 * sale (see their docs).
 *
 * A failed load (network, non-2xx, not JSON) renders nothing and dispatches `resale-error`: the
 * partner's page never breaks. Success dispatches `resale-ready`. A request in flight is aborted
 * when the element is removed or an attribute changes.
 *
 * Live stock: while it is in the page (and the page visible), with event, show and key known and
 * `live` not off, the element listens to `GET {api-base}/v1/wrapper/accesslayer/stream` and
 * brings the numbers of its components up to date (quantities, floor prices, calls to action
 * enabled, tickets reserved; never texts, URLs or the fan's own hold), fetched or passed in, and
 * asks the seat map to reload when its areas changed; each change rendered dispatches
 * `resale-stock`. See access-layer.md.
 *
 * The inner elements' own parts are exported with the element's part as a prefix
 * (`::part(buy-button-cta)`, `::part(seat-map-chart)`; see access-layer.md).
 *
 * @csspart base - the wrapper grid
 * @csspart buy-banner - the inner `<resale-buy-banner>`
 * @csspart buy-modal - the inner `<resale-buy-modal>`
 * @csspart buy-button - the inner `<resale-buy-button>`
 * @csspart categories-list - the inner `<resale-categories-list>`
 * @csspart seat-map - the inner `<resale-seat-map>`
 * @csspart sell-banner - the inner `<resale-sell-banner>`
 * @event resale-ready - components rendered; detail `{source, count}`
 * @event resale-stock - live stock changed what the components show; detail `{source: 'stream'}`
 * @event resale-error - the load failed; detail `{reason, status?, message}`
 * @event resale-cta-click - bubbles from the inner components; cancelable
 */
export class ResaleAccessLayer extends ResaleElement {
  static override styles = accessLayerStyles;
  static override properties: PropertyDeclarations = {
    eventId: { type: String, attribute: 'event-id' },
    showId: { type: String, attribute: 'show-id' },
    publicKey: { type: String, attribute: 'public-key' },
    apiBase: { type: String, attribute: 'api-base' },
    currency: { type: String },
    returnTo: { type: String, attribute: 'return-to' },
    components: { attribute: false },
    labels: { attribute: false },
    live: { converter: (v: string | null) => v !== 'off' && v !== 'false' },
    _items: { state: true },
  };

  /** The partner's event id (externalReferenceId). */
  declare eventId: string | undefined;
  declare showId: string | undefined;
  /** The partner's public key (never the private key in a page). */
  declare publicKey: string | undefined;
  /** The service origin; default: where resale.js was loaded from. */
  declare apiBase: string | undefined;
  /** ISO 4217 code for category prices; default: the map's best listing currency when present. */
  declare currency: string | undefined;
  /**
   * The partner page the market links back to, given to every buy call to action; default: this
   * page's address (see `returnAddress`). Shown by the market only on the partner's allowed origins.
   */
  declare returnTo: string | undefined;
  /** Components given by the partner's server; when set, nothing is fetched. */
  declare components: AccessLayerComponent[] | undefined;
  /** Category display names by ticketOptionId, for the categories list. */
  declare labels: Record<string, string> | undefined;
  /**
   * Live stock (default on): `live="off"` or `.live = false` leaves the numbers as first loaded.
   * See access-layer.md.
   */
  declare live: boolean;

  declare private _items: AccessLayerComponent[];

  #abort: AbortController | undefined;
  #requested: string | undefined;
  #stream = new StockStream((stock) => this.#onStock(stock));
  #streamUrl: string | undefined;
  /** The last stock the stream gave: applied to components that arrive later too. */
  #stock: Stock | undefined;
  #reload: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this._items = [];
    this.live = true;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Load (if the earlier request was aborted) and listen to the stream again.
    this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stream.close();
    this.#streamUrl = undefined;
    clearTimeout(this.#reload);
    this.#reload = undefined;
    if (this.#abort) {
      this.#abort.abort();
      this.#abort = undefined;
      this.#requested = undefined; // load again if put back in the page
    }
  }

  /** The access-layer URL for the current attributes, or undefined while one is missing. */
  get requestUrl(): string | undefined {
    const base = apiBase(this.apiBase);
    if (!base || !this.eventId || !this.showId || !this.publicKey) return undefined;
    const q = new URLSearchParams({ type: 'buy', eventId: this.eventId, showId: this.showId, lang: this.locale });
    return `${base}/v1/wrapper/accesslayer?${q}`;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // The stream of the show, with the key in the query (EventSource sends no headers).
    const stream = this.isConnected && this.live && this.requestUrl ? `${this.requestUrl.replace('?', '/stream?')}&publicKey=${encodeURIComponent(this.publicKey!)}` : undefined;
    if (stream !== this.#streamUrl) {
      this.#streamUrl = stream;
      this.#stock = undefined;
      if (stream) this.#stream.open(stream);
      else this.#stream.close();
    }
    if (this.components !== undefined) {
      if (changed.has('components')) {
        this.#abort?.abort();
        this.#requested = undefined;
        try {
          this._items = toComponents(this.components);
          this.#afterRender('property');
        } catch (err) {
          this.#fail(err);
        }
      }
      return;
    }
    const url = this.requestUrl;
    if (!this.isConnected || url === this.#requested) return;
    this.#abort?.abort();
    this.#abort = undefined;
    this.#requested = url;
    if (url) void this.#load(url, this.publicKey);
  }

  async #load(url: string, publicKey: string | undefined): Promise<void> {
    const abort = (this.#abort = new AbortController());
    try {
      const data = await fetchData(url, { publicKey, signal: abort.signal });
      if (abort.signal.aborted) return;
      this._items = toComponents(data);
      this.#afterRender('fetch');
    } catch (err) {
      if (isAbort(err) || abort.signal.aborted) return;
      this.#fail(err);
    } finally {
      if (this.#abort === abort) this.#abort = undefined;
    }
  }

  #fail(err: unknown): void {
    this._items = [];
    this.dispatchEvent(new ResaleErrorEvent(toErrorDetail(err)));
  }

  #onStock(stock: Stock): void {
    if (stock.eventId !== this.eventId || stock.showId !== this.showId) return;
    this.#stock = stock;
    // Components on their way: the stock is applied when they arrive.
    if (this.#abort) return;
    const before = this._items;
    const after = withStock(before, stock);
    const json = (items: AccessLayerComponent[]) => items.map((c) => JSON.stringify(c));
    const [was, is] = [json(before), json(after)];
    // The same numbers (the first snapshot, usually): nothing to render or say.
    if (is.every((j, i) => j === was[i])) return;
    this._items = after;
    void this.updateComplete.then(() => this.dispatchEvent(new ResaleStockEvent({ source: 'stream' })));
    // The map's areas changed: its listings did. Reloads are gathered and spread (1 to 3 s) so a
    // burst of sales, or every page of a show at once, is one request per page, not a stampede.
    const m = before.findIndex((c) => c.class === 'integratedMap');
    if (m >= 0 && was[m] !== is[m]) {
      this.#reload ??= setTimeout(() => {
        this.#reload = undefined;
        void this.renderRoot.querySelector('resale-seat-map')?.reload?.();
      }, 1000 + Math.random() * 2000);
    }
  }

  #afterRender(source: 'fetch' | 'property'): void {
    if (this.#stock) this._items = withStock(this._items, this.#stock);
    const items = this._items;
    if (items.some((c) => c.class === 'integratedMap')) {
      loadSeatMap()
        .then(async () => {
          // Browsers upgrade the map inside this shadow root on definition; upgrading explicitly
          // covers DOM implementations that only walk the document (happy-dom).
          await this.updateComplete;
          customElements.upgrade(this.renderRoot);
        })
        .catch((err: unknown) => this.dispatchEvent(new ResaleErrorEvent({ reason: 'network', message: `seat map: ${err instanceof Error ? err.message : String(err)}` })));
    }
    void this.updateComplete.then(() => {
      if (this._items === items) this.dispatchEvent(new ResaleReadyEvent({ source, count: items.filter(isVisible).length }));
    });
  }

  #currency(): string | undefined {
    if (this.currency) return this.currency;
    for (const c of this._items) if (c.class === 'integratedMap') return c.integratedMap.map.bestListing?.currency ?? undefined;
    return undefined;
  }

  #renderItem(c: AccessLayerComponent, holdInList: boolean, placeOnButton: boolean): TemplateResult | typeof nothing {
    const lang = this.lang;
    switch (c.class) {
      case 'buyBanner':
        return html`<resale-buy-banner part="buy-banner" exportparts=${exportParts('buy-banner', BANNER_PARTS)} .lang=${lang} .returnTo=${this.returnTo} .component=${c}></resale-buy-banner>`;
      case 'buyModal':
        return html`<resale-buy-modal part="buy-modal" exportparts=${exportParts('buy-modal', ['dialog', 'panel', 'close', 'image', 'title', 'description', 'cta'])} .lang=${lang} .returnTo=${this.returnTo} .component=${c}></resale-buy-modal>`;
      case 'buyButton':
        return html`<resale-buy-button part="buy-button" exportparts=${exportParts('buy-button', ['cta', 'cta-disabled', 'reserved', ...HOLD_PARTS, ...WAITING_PARTS])} .lang=${lang} .returnTo=${this.returnTo} .holdElsewhere=${holdInList} .component=${c}></resale-buy-button>`;
      case 'categoriesList':
        return html`<resale-categories-list
          part="categories-list"
          exportparts=${exportParts('categories-list', ['list', 'category', 'name', 'quantity', 'price', 'cta', 'cta-disabled', ...HOLD_PARTS, ...WAITING_PARTS])}
          .lang=${lang}
          .labels=${this.labels}
          .currency=${this.#currency()}
          .returnTo=${this.returnTo}
          .placeElsewhere=${placeOnButton}
          .component=${c}
        ></resale-categories-list>`;
      case 'integratedMap':
        // The map fetches its own data (chart, listings) with the same key.
        if (!this.eventId || !this.showId || !this.publicKey) return nothing;
        // Attributes for inspection, properties as well: an element upgraded after its chunk loads
        // keeps properties set before the upgrade on every engine.
        return html`<resale-seat-map
          part="seat-map"
          exportparts=${exportParts('seat-map', ['base', 'toolbar', 'zoom-in', 'zoom-out', 'zoom-reset', 'chart', 'image', 'legend', 'sidebar', 'list', 'area', 'listings', 'listing', 'toggle', 'message', 'summary', 'clear', 'continue', 'tooltip'])}
          .lang=${lang}
          api-base=${apiBase(this.apiBase)}
          public-key=${this.publicKey}
          event-id=${this.eventId}
          show-id=${this.showId}
          .apiBase=${apiBase(this.apiBase)}
          .publicKey=${this.publicKey}
          .eventId=${this.eventId}
          .showId=${this.showId}
          .returnTo=${this.returnTo}
        ></resale-seat-map>`;
      case 'sellBanner':
        return html`<resale-sell-banner part="sell-banner" exportparts=${exportParts('sell-banner', BANNER_PARTS)} .lang=${lang} .component=${c}></resale-sell-banner>`;
      default:
        return nothing;
    }
  }

  override render() {
    const items = this._items.filter(isVisible);
    if (items.length === 0) return nothing;
    // The fan's own hold is said once: in its category when the list shows one, else on the button.
    const holdInList = items.some((c) => c.class === 'categoriesList' && Array.isArray(c.categoriesList.categories) && c.categoriesList.categories.some((k) => k?.visible === true && k.callToAction?.yourHold !== undefined));
    // The fan's place in the waiting list is said once too: on the button when it shows, else atop the list.
    const placeOnButton = items.some((c) => c.class === 'buyButton');
    return html`<div class="stack" part="base">${items.map((c) => this.#renderItem(c, holdInList, placeOnButton))}</div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-access-layer': ResaleAccessLayer;
  }
}
