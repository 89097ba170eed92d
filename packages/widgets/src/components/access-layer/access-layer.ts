import { html, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { ResaleErrorEvent } from '../../events/error.js';
import { ResaleReadyEvent } from '../../events/ready.js';
import { apiBase, fetchData, isAbort, LoadError, toErrorDetail } from '../../internal/api.js';
import { ResaleElement } from '../../internal/base-element.js';
import { isOffered } from '../../internal/cta.js';
import { isObject } from '../../internal/safe.js';
import { loadSeatMap } from '../../internal/seat-map-loader.js';
import type { AccessLayerComponent } from '../../internal/types.js';
import { accessLayerStyles } from './access-layer.styles.js';

const KNOWN = new Set(['buyBanner', 'buyModal', 'buyButton', 'categoriesList', 'integratedMap', 'sellBanner']);

/** Parts of the inner elements, re-exported with a prefix: `::part(buy-button-cta)`. */
const exportParts = (prefix: string, parts: string[]) => parts.map((p) => `${p}:${prefix}-${p}`).join(', ');
const BANNER_PARTS = ['base', 'image', 'body', 'title', 'description', 'cta', 'cta-disabled'];
/** The parts of the fan's own hold (buy button, categories list). */
const HOLD_PARTS = ['your-hold', 'your-hold-title', 'your-hold-time', 'your-hold-continue', 'your-hold-release'];

/**
 * Items the element can render; unknown classes (a newer server) are skipped, never fatal.
 * Only the fields the renderers test are checked here; each component checks the rest.
 */
function toComponents(data: unknown): AccessLayerComponent[] {
  if (!Array.isArray(data)) throw new LoadError({ reason: 'parse', message: 'the access layer is not a list' });
  return data.filter((c): c is AccessLayerComponent => isObject(c) && typeof c['class'] === 'string' && KNOWN.has(c['class']) && isObject(c[c['class']]));
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

  declare private _items: AccessLayerComponent[];

  #abort: AbortController | undefined;
  #requested: string | undefined;

  constructor() {
    super();
    this._items = [];
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.components === undefined && this.#requested === undefined) this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
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

  #afterRender(source: 'fetch' | 'property'): void {
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

  #renderItem(c: AccessLayerComponent, holdInList: boolean): TemplateResult | typeof nothing {
    const lang = this.lang;
    switch (c.class) {
      case 'buyBanner':
        return html`<resale-buy-banner part="buy-banner" exportparts=${exportParts('buy-banner', BANNER_PARTS)} .lang=${lang} .returnTo=${this.returnTo} .component=${c}></resale-buy-banner>`;
      case 'buyModal':
        return html`<resale-buy-modal part="buy-modal" exportparts=${exportParts('buy-modal', ['dialog', 'panel', 'close', 'image', 'title', 'description', 'cta'])} .lang=${lang} .returnTo=${this.returnTo} .component=${c}></resale-buy-modal>`;
      case 'buyButton':
        return html`<resale-buy-button part="buy-button" exportparts=${exportParts('buy-button', ['cta', 'cta-disabled', 'reserved', ...HOLD_PARTS])} .lang=${lang} .returnTo=${this.returnTo} .holdElsewhere=${holdInList} .component=${c}></resale-buy-button>`;
      case 'categoriesList':
        return html`<resale-categories-list
          part="categories-list"
          exportparts=${exportParts('categories-list', ['list', 'category', 'name', 'quantity', 'price', 'cta', 'cta-disabled', ...HOLD_PARTS])}
          .lang=${lang}
          .labels=${this.labels}
          .currency=${this.#currency()}
          .returnTo=${this.returnTo}
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
    return html`<div class="stack" part="base">${items.map((c) => this.#renderItem(c, holdInList))}</div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-access-layer': ResaleAccessLayer;
  }
}
