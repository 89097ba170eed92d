import { html, nothing, type PropertyDeclarations, type PropertyValues } from 'lit';
import { ResaleCtaClickEvent } from '../../events/cta-click.js';
import { ResaleErrorEvent } from '../../events/error.js';
import { ResaleReadyEvent } from '../../events/ready.js';
import { apiBase, fetchData, isAbort, LoadError, toErrorDetail } from '../../internal/api.js';
import { ResaleElement } from '../../internal/base-element.js';
import { formatPrice, t, ticketCount, type Lang } from '../../internal/i18n.js';
import { FloatingTooltip } from '../../internal/positioning.js';
import { isObject, safeUrl } from '../../internal/safe.js';
import type { Seat, SeatMapArea, SeatMapData, SeatMapListing } from '../../internal/types.js';
import { availabilityByArea, buildRows, continueUrl, indexSeats, selectionLeavesOrphan, seatKey, type Availability, type Row } from './seat-rules.js';
import { seatMapStyles } from './seat-map.styles.js';

/** Loads the sanitiser chunk (DOMPurify) only for SVG charts. */
const loadSanitizer = () => import('../../internal/sanitize-svg.js');

function isSeatMapData(d: unknown): d is SeatMapData {
  return (
    isObject(d) &&
    isObject(d['chart']) &&
    isObject(d['config']) &&
    Array.isArray(d['areas']) &&
    Array.isArray(d['listings']) &&
    typeof d['selectUrl'] === 'string' &&
    (d['listings'] as unknown[]).every((l) => isObject(l) && typeof l['listingId'] === 'string' && Array.isArray(l['seats']))
  );
}

/** Precomputed lookups for one SeatMapData. */
interface Model {
  data: SeatMapData;
  areas: Map<string, SeatMapArea>;
  availability: Map<string, Availability>;
  listings: Map<string, SeatMapListing>;
  seatIndex: Map<string, SeatMapListing>;
  rows: Map<string, Row>;
}

/** The seat triple of a chart seat element; section and row may sit on an ancestor group. */
function seatOf(el: Element): Seat {
  return {
    section: el.closest('[data-section]')?.getAttribute('data-section') ?? null,
    row: el.closest('[data-row]')?.getAttribute('data-row') ?? null,
    seat: el.getAttribute('data-seat'),
  };
}

/**
 * The interactive seat map: the event's seating chart (a sanitised SVG, or an image with the area
 * list beside it), zones coloured by availability, tooltips, the offers of the chosen area, a
 * selection under the checkout rules and a Continue link to the hosted checkout.
 *
 * Data: `.data` (a SeatMapData), or `src` (a URL answering `{status, data, errors}`), or
 * `api-base` + `event-id` + `show-id` (then `GET {api-base}/v1/wrapper/seatmap?eventId&showId`).
 * `public-key` goes in the Authorization header. Requests never carry credentials.
 *
 * Lives in its own chunk: `<resale-access-layer>` imports it only when the response contains
 * an integratedMap. See seat-map.md for the chart convention (`data-area`, `data-section`,
 * `data-row`, `data-seat`).
 *
 * @csspart base - the layout grid
 * @csspart chart - the chart container
 * @csspart image - the chart image (image-only charts)
 * @csspart sidebar - areas, offers and the selection
 * @csspart areas - the area list (`<ul>`; image-only or chart-less maps)
 * @csspart area - one area button
 * @csspart listings - the offers of the active area
 * @csspart listing - one offer
 * @csspart toggle - the select button of an offer (`aria-pressed`)
 * @csspart message - a refused pick, visible (`role="alert"`)
 * @csspart summary - selection count, clear, continue
 * @csspart clear - the clear-selection button
 * @csspart continue - the Continue link (`<a>`), or `<button disabled>` while nothing is picked
 * @csspart tooltip - the tooltip
 * @cssproperty --resale-zone-none - zones and seats without stock
 * @cssproperty --resale-zone-some - zones and seats with stock
 * @cssproperty --resale-zone-cheapest - the cheapest zone
 * @cssproperty --resale-zone-selected - picked seats and offers
 * @event resale-ready - data loaded and rendered (detail.count = areas)
 * @event resale-error - loading failed; the element renders nothing
 * @event resale-cta-click - before Continue navigates (detail.listingIds, ticketOptionId); cancelable
 */
export class ResaleSeatMap extends ResaleElement {
  static override styles = seatMapStyles;
  static override properties: PropertyDeclarations = {
    data: { attribute: false },
    src: { type: String },
    publicKey: { type: String, attribute: 'public-key' },
    apiBase: { type: String, attribute: 'api-base' },
    eventId: { type: String, attribute: 'event-id' },
    showId: { type: String, attribute: 'show-id' },
    _model: { state: true },
    _svg: { state: true },
    _activeArea: { state: true },
    _selection: { state: true },
    _message: { state: true },
    _announcement: { state: true },
    _tip: { state: true },
  };

  /** The map data given by the page (wins over `src`). */
  declare data: SeatMapData | undefined;
  /** A URL answering the envelope with SeatMapData. */
  declare src: string | undefined;
  declare publicKey: string | undefined;
  declare apiBase: string | undefined;
  declare eventId: string | undefined;
  declare showId: string | undefined;

  declare private _model: Model | undefined;
  declare private _svg: SVGSVGElement | null;
  declare private _activeArea: string | undefined;
  declare private _selection: string[];
  declare private _message: string;
  declare private _announcement: string;
  declare private _tip: string;

  #abort: AbortController | undefined;
  #loadedKey: string | undefined;
  #generation = 0;
  #tooltip: FloatingTooltip | undefined;

  constructor() {
    super();
    this._svg = null;
    this._selection = [];
    this._message = '';
    this._announcement = '';
    this._tip = '';
  }

  /** The picked listing ids, in picking order. */
  get selection(): readonly string[] {
    return this._selection;
  }

  /** Where Continue goes now; undefined while nothing is picked, the pick strands a seat, or the URL is not http(s). */
  get continueHref(): string | undefined {
    const base = this._model ? safeUrl(this._model.data.selectUrl) : undefined;
    return base && this._selection.length > 0 && !this.#strandsSeat ? continueUrl(base, this._selection) : undefined;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Reconnected after a move in the DOM: load again if the earlier request was aborted.
    if (!this._model && this.data === undefined) {
      this.#loadedKey = undefined;
      this.requestUpdate();
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#abort?.abort();
    this.#abort = undefined;
    this.#tooltip?.hide();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('data') && this.data !== undefined) {
      this.#loadedKey = 'data';
      this.#abort?.abort();
      void this.#setData(this.data, 'property');
      return;
    }
    if (this.data !== undefined) return;
    const url = this.#sourceUrl();
    if (url && url !== this.#loadedKey && this.isConnected) {
      this.#loadedKey = url;
      void this.#load(url);
    }
  }

  #sourceUrl(): string | undefined {
    if (this.src) return safeUrl(this.src);
    const base = apiBase(this.apiBase);
    if (!base || !this.eventId || !this.showId) return undefined;
    const q = new URLSearchParams({ eventId: this.eventId, showId: this.showId });
    return `${base}/v1/wrapper/seatmap?${q}`;
  }

  async #load(url: string): Promise<void> {
    this.#abort?.abort();
    const abort = (this.#abort = new AbortController());
    try {
      const data = await fetchData(url, { publicKey: this.publicKey, signal: abort.signal });
      if (abort.signal.aborted) return;
      if (!isSeatMapData(data)) throw new LoadError({ reason: 'parse', message: 'not seat map data' });
      await this.#setData(data, 'fetch');
    } catch (err) {
      if (isAbort(err) || abort.signal.aborted) return;
      this._model = undefined;
      this._svg = null;
      this.dispatchEvent(new ResaleErrorEvent(toErrorDetail(err)));
    }
  }

  async #setData(data: SeatMapData, source: 'fetch' | 'property'): Promise<void> {
    const generation = ++this.#generation;
    if (!isSeatMapData(data)) {
      this._model = undefined;
      this.dispatchEvent(new ResaleErrorEvent({ reason: 'parse', message: 'not seat map data' }));
      return;
    }
    let svg: SVGSVGElement | null = null;
    if (typeof data.chart.svgCode === 'string' && data.chart.svgCode.trim() !== '') {
      const { sanitizeSvg } = await loadSanitizer();
      if (generation !== this.#generation) return;
      svg = sanitizeSvg(data.chart.svgCode);
    }
    const chartSeats = svg ? [...svg.querySelectorAll('[data-seat]')].map(seatOf) : [];
    this._model = {
      data,
      areas: new Map(data.areas.map((a) => [a.area, a])),
      availability: availabilityByArea(data.areas),
      listings: new Map(data.listings.map((l) => [l.listingId, l])),
      seatIndex: indexSeats(data.listings),
      rows: buildRows(chartSeats, data.listings),
    };
    this._svg = svg;
    if (svg) {
      svg.setAttribute('role', 'group');
      svg.setAttribute('aria-label', t(this.locale, 'seatingChart'));
      svg.removeAttribute('width');
      svg.removeAttribute('height');
    }
    // Keep what is still on sale picked; drop the rest.
    this._selection = this._selection.filter((id) => this._model?.listings.has(id));
    if (this._activeArea && !this._model.areas.has(this._activeArea)) this._activeArea = undefined;
    await this.updateComplete;
    if (generation !== this.#generation) return;
    this.dispatchEvent(new ResaleReadyEvent({ source, count: data.areas.length }));
  }

  // ---- chart decoration -------------------------------------------------------------------

  protected override updated(): void {
    this.#decorate();
    if (!this.#tooltip) {
      const tip = this.renderRoot.querySelector<HTMLElement>('.tooltip');
      if (tip) this.#tooltip = new FloatingTooltip(tip);
    }
  }

  #areaLabel(lang: Lang, area: SeatMapArea | undefined, name: string): string {
    if (!area || !(area.quantityForSale > 0)) return `${name}: ${t(lang, 'notAvailable')}`;
    const price = area.floorPrice > 0 ? `, ${t(lang, 'from')} ${formatPrice(lang, area.floorPrice, area.currency)}` : '';
    return `${name}: ${ticketCount(lang, area.quantityForSale)}${price}`;
  }

  #seatText(lang: Lang, s: Seat): string {
    return [s.section !== null ? `${t(lang, 'section')} ${s.section}` : '', s.row !== null ? `${t(lang, 'row')} ${s.row}` : '', s.seat !== null ? `${t(lang, 'seat')} ${s.seat}` : '']
      .filter(Boolean)
      .join(', ');
  }

  #seatLabel(lang: Lang, s: Seat, listing: SeatMapListing | undefined): string {
    const where = this.#seatText(lang, s);
    if (!listing) return `${where}: ${t(lang, 'notAvailable')}`;
    const pack = listing.quantity > 1 ? ` (${ticketCount(lang, listing.quantity)})` : '';
    return `${where}: ${formatPrice(lang, listing.price, listing.currency)} ${t(lang, 'perTicket')}${pack}`;
  }

  /** Availability, focusability and names on the chart's own elements (they are not Lit's). */
  #decorate(): void {
    const svg = this._svg;
    const model = this._model;
    if (!svg || !model) return;
    const lang = this.locale;
    const selected = new Set(this._selection);
    for (const zone of svg.querySelectorAll<SVGElement>('[data-area]')) {
      const name = zone.getAttribute('data-area') ?? '';
      const area = model.areas.get(name);
      zone.setAttribute('data-availability', model.availability.get(name) ?? 'none');
      zone.toggleAttribute('data-active', name === this._activeArea);
      const hasSeats = zone.querySelector('[data-seat]') !== null;
      if (area && area.quantityForSale > 0 && !hasSeats) {
        // Zones with seat elements inside are not buttons themselves: no nested controls.
        zone.setAttribute('tabindex', '0');
        zone.setAttribute('role', 'button');
        zone.setAttribute('aria-label', this.#areaLabel(lang, area, name));
      } else {
        zone.removeAttribute('tabindex');
        zone.setAttribute('role', hasSeats ? 'group' : 'img');
        zone.setAttribute('aria-label', this.#areaLabel(lang, area, name));
      }
    }
    for (const el of svg.querySelectorAll<SVGElement>('[data-seat]')) {
      const seat = seatOf(el);
      const listing = model.seatIndex.get(seatKey(seat));
      el.setAttribute('data-availability', listing ? 'some' : 'none');
      el.toggleAttribute('data-selected', !!listing && selected.has(listing.listingId));
      el.setAttribute('aria-label', this.#seatLabel(lang, seat, listing));
      if (listing) {
        el.setAttribute('tabindex', '0');
        el.setAttribute('role', 'button');
        el.setAttribute('aria-pressed', String(selected.has(listing.listingId)));
      } else {
        el.removeAttribute('tabindex');
        el.removeAttribute('aria-pressed');
        el.setAttribute('role', 'img');
      }
    }
  }

  // ---- interaction --------------------------------------------------------------------------

  /** The chart element an event is about: a seat with stock, or a zone button. */
  #target(e: Event): SVGElement | null {
    const el = e.target instanceof Element ? e.target.closest('[data-seat], [data-area]') : null;
    return el instanceof SVGElement && el.getAttribute('role') === 'button' ? el : null;
  }

  #activate(el: SVGElement): void {
    const model = this._model;
    if (!model) return;
    if (el.hasAttribute('data-seat')) {
      const listing = model.seatIndex.get(seatKey(seatOf(el)));
      if (!listing) return;
      const area = el.closest('[data-area]')?.getAttribute('data-area') ?? listing.area ?? undefined;
      if (area) this._activeArea = area;
      this.toggle(listing.listingId);
    } else {
      this.showArea(el.getAttribute('data-area') ?? '');
    }
  }

  #onChartClick = (e: MouseEvent): void => {
    const el = this.#target(e);
    if (el) this.#activate(el);
  };

  #onChartKeydown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') {
      this.#tooltip?.hide();
      return;
    }
    if (e.key !== 'Enter' && e.key !== ' ') return;
    const el = this.#target(e);
    if (!el) return;
    e.preventDefault();
    this.#activate(el);
  };

  #onChartOver = (e: Event): void => {
    const el = this.#target(e);
    if (!el) return;
    this._tip = el.getAttribute('aria-label') ?? '';
    this.#tooltip?.show(el);
  };

  #onChartOut = (e: Event): void => {
    const related = (e as FocusEvent).relatedTarget;
    const el = this.#target(e);
    if (el && related instanceof Node && el.contains(related)) return;
    this.#tooltip?.hide();
  };

  /** Shows the offers of an area (as a click on its zone does). */
  showArea(area: string): void {
    if (!this._model?.areas.has(area)) return;
    this._activeArea = area;
    this._message = '';
  }

  /**
   * Picks or unpicks a listing (a listing is sold whole). A pick that mixes ticket options is
   * refused with a visible message (a checkout stays within one option). Unless the event allows
   * orphan seats, a selection that would leave a single free seat between taken seats in a row
   * shows a message and keeps Continue disabled until it is completed or changed: the selection
   * is judged as a whole, so seats that only make sense together can be picked one by one.
   * Returns whether the selection changed.
   */
  toggle(listingId: string): boolean {
    const model = this._model;
    const listing = model?.listings.get(listingId);
    if (!model || !listing) return false;
    const lang = this.locale;
    const what = this.#listingText(lang, listing);
    if (this._selection.includes(listingId)) {
      this._selection = this._selection.filter((id) => id !== listingId);
      this.#afterChange(t(lang, 'removed', { what, count: this.#ticketsPicked() }));
      return true;
    }
    const first = this._selection[0] ? model.listings.get(this._selection[0]) : undefined;
    if (first && first.ticketOptionId !== listing.ticketOptionId) return this.#refuse(t(lang, 'refusedOption'));
    this._selection = [...this._selection, listingId];
    this.#afterChange(t(lang, 'added', { what, count: this.#ticketsPicked() }));
    return true;
  }

  /** Whether the current selection strands a seat the event's rules protect. */
  get #strandsSeat(): boolean {
    const model = this._model;
    if (!model || model.data.config.allowOrphanTicketSelection || this._selection.length === 0) return false;
    const picked = this._selection.map((id) => model.listings.get(id)).filter((l): l is SeatMapListing => l !== undefined);
    return selectionLeavesOrphan(picked, model.rows, model.seatIndex);
  }

  #afterChange(announcement: string): void {
    const orphan = this.#strandsSeat ? t(this.locale, 'refusedOrphan') : '';
    this._message = orphan;
    this._announcement = orphan ? `${announcement} ${orphan}` : announcement;
  }

  /** Empties the selection. */
  clearSelection(): void {
    this._selection = [];
    this._message = '';
    this._announcement = t(this.locale, 'selection', { count: 0 });
  }

  #refuse(message: string): false {
    this._message = message;
    this._announcement = message;
    return false;
  }

  #ticketsPicked(): number {
    return this._selection.reduce((n, id) => n + (this._model?.listings.get(id)?.quantity ?? 0), 0);
  }

  #listingText(lang: Lang, l: SeatMapListing): string {
    const seats = l.seats.map((s) => this.#seatText(lang, s)).filter(Boolean);
    return seats.length > 0 ? seats.join('; ') : `${l.area ?? ''} ${ticketCount(lang, l.quantity)}`.trim();
  }

  #onContinue = (e: MouseEvent): void => {
    const url = this.continueHref;
    const first = this._model?.listings.get(this._selection[0] ?? '');
    if (!url) return;
    const proceed = this.dispatchEvent(
      new ResaleCtaClickEvent({ componentClass: 'integratedMap', url, listingIds: [...this._selection], ...(first ? { ticketOptionId: first.ticketOptionId } : {}) }),
    );
    if (!proceed) e.preventDefault();
  };

  // ---- rendering ----------------------------------------------------------------------------

  #renderAreas(lang: Lang, model: Model) {
    return html`<section>
      <h3>${t(lang, 'areas')}</h3>
      <ul part="areas">
        ${model.data.areas.map((a) => {
          const stock = a.quantityForSale > 0;
          return html`<li>
            <button
              class="area"
              part="area"
              type="button"
              data-area=${a.area}
              data-availability=${model.availability.get(a.area) ?? 'none'}
              ?data-active=${a.area === this._activeArea}
              aria-pressed=${a.area === this._activeArea ? 'true' : 'false'}
              ?disabled=${!stock}
              @click=${() => this.showArea(a.area)}
            >
              <span>${a.area}</span>
              <span class="muted">${stock ? ticketCount(lang, a.quantityForSale) : t(lang, 'noneForSale')}${stock && a.floorPrice > 0 ? html` · ${t(lang, 'from')} ${formatPrice(lang, a.floorPrice, a.currency)}` : nothing}</span>
            </button>
          </li>`;
        })}
      </ul>
    </section>`;
  }

  #renderListings(lang: Lang, model: Model) {
    const area = this._activeArea;
    if (area === undefined) return html`<p class="muted" part="hint">${t(lang, 'chooseArea')}</p>`;
    const listings = model.data.listings.filter((l) => l.area === area);
    return html`<section part="listings" aria-labelledby="listings-title">
      <h3 id="listings-title">${t(lang, 'listings', { area })}</h3>
      ${listings.length === 0
        ? html`<p class="muted">${t(lang, 'noListings')}</p>`
        : html`<ul>
            ${listings.map((l) => {
              const picked = this._selection.includes(l.listingId);
              return html`<li class="listing" part="listing" data-listing-id=${l.listingId} ?data-selected=${picked}>
                <span>
                  <span>${this.#listingText(lang, l)}</span><br />
                  <span class="muted">${formatPrice(lang, l.price, l.currency)} ${t(lang, 'perTicket')} · ${ticketCount(lang, l.quantity)}</span>
                </span>
                <button class="toggle" part="toggle" type="button" aria-pressed=${picked ? 'true' : 'false'} aria-label=${`${t(lang, picked ? 'selected' : 'select')}: ${this.#listingText(lang, l)}`} @click=${() => this.toggle(l.listingId)}>
                  ${t(lang, picked ? 'selected' : 'select')}
                </button>
              </li>`;
            })}
          </ul>`}
    </section>`;
  }

  #renderChart(lang: Lang, model: Model) {
    if (this._svg) {
      return html`<div class="chart" part="chart" @click=${this.#onChartClick} @keydown=${this.#onChartKeydown} @pointerover=${this.#onChartOver} @focusin=${this.#onChartOver} @pointerout=${this.#onChartOut} @focusout=${this.#onChartOut}>${this._svg}</div>`;
    }
    const image = safeUrl(model.data.chart.image);
    return image ? html`<div class="chart" part="chart"><img part="image" src=${image} alt=${t(lang, 'seatingChart')} /></div>` : nothing;
  }

  override render() {
    const model = this._model;
    if (!model) return nothing;
    const lang = this.locale;
    const href = this.continueHref;
    const count = this.#ticketsPicked();
    return html`<div class="base" part="base">
      ${this.#renderChart(lang, model)}
      <div class="sidebar" part="sidebar">
        ${this._svg ? nothing : this.#renderAreas(lang, model)} ${this.#renderListings(lang, model)}
        ${this._message ? html`<p class="message" part="message" role="alert">${this._message}</p>` : nothing}
        <div class="summary" part="summary">
          <span>${count > 0 ? t(lang, 'selection', { count }) : t(lang, 'nothingSelected')}</span>
          ${count > 0 ? html`<button class="clear" part="clear" type="button" @click=${() => this.clearSelection()}>${t(lang, 'clear')}</button>` : nothing}
          ${href
            ? html`<a class="cta" part="cta continue" href=${href} @click=${this.#onContinue}>${t(lang, 'continue')}</a>`
            : html`<button class="cta" part="cta continue cta-disabled" type="button" disabled>${t(lang, 'continue')}</button>`}
        </div>
      </div>
      <div class="visually-hidden" part="live" aria-live="polite" aria-atomic="true">${this._announcement}</div>
      <div class="tooltip" part="tooltip" role="tooltip" hidden>${this._tip}</div>
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-seat-map': ResaleSeatMap;
  }
}
