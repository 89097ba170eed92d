import { html, nothing, svg as svgTemplate, type PropertyDeclarations, type PropertyValues } from 'lit';
import { ResaleCtaClickEvent } from '../../events/cta-click.js';
import { ResaleErrorEvent } from '../../events/error.js';
import { ResaleReadyEvent } from '../../events/ready.js';
import { apiBase, fetchData, isAbort, LoadError, toErrorDetail } from '../../internal/api.js';
import { ResaleElement } from '../../internal/base-element.js';
import type { Lang } from '@resale/shared/lang';
import { formatPrice, t, ticketCount } from '../../internal/i18n.js';
import { FloatingTooltip } from '../../internal/positioning.js';
import { isObject, safeUrl } from '../../internal/safe.js';
import { returnAddress, withReturnTo } from '../../internal/cta.js';
import type { Seat, SeatMapArea, SeatMapData, SeatMapListing } from '../../internal/types.js';
import { TOKENS } from '../../styles/tokens.js';
import { mt } from './seat-map.i18n.js';
import { FILL_TOKENS, PALETTE_ROLES, seatMapStyles, type FillToken } from './seat-map.styles.js';
import { availabilityByArea, buildRows, continueUrl, indexSeats, seatKey, selectionLeavesOrphan, type Availability, type Row } from '@resale/shared/seat-rules';
import type { ChartView, seatPalette } from './seat-map.view.js';

/**
 * What only SVG charts need, in chunks of their own loaded side by side: the sanitiser
 * (DOMPurify), and the zoom and pan of the chart with the colours of its seats (seatPalette).
 * Image-only and chart-less maps load neither.
 */
const loadChartModules = () => Promise.all([import('../../internal/sanitize-svg.js'), import('./seat-map.view.js')]);

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

/** A seat element of the chart with the seat it stands for and the zone element around it, if any. */
interface ChartSeat {
  el: SVGElement;
  seat: Seat;
  zone: SVGElement | null;
}

/** Precomputed lookups for one SeatMapData. */
interface Model {
  data: SeatMapData;
  areas: Map<string, SeatMapArea>;
  availability: Map<string, Availability>;
  listings: Map<string, SeatMapListing>;
  seatIndex: Map<string, SeatMapListing>;
  rows: Map<string, Row>;
  /** Chart seat elements by seat key, and by element. */
  seatEls: Map<string, ChartSeat>;
  byEl: WeakMap<Element, ChartSeat>;
  /** The list: area -> row key (`section|row`, '' for offers without a row) -> offers in seat order. */
  groups: Map<string, Map<string, SeatMapListing[]>>;
  /** The colours seats can stand on (the zone tokens and the surface), and the centre of picked seats, as resolved on the host. */
  fills: Record<FillToken, string>;
  selectedColor: string;
}

/** The row of a listing in the list (`section|row` of its first seat with a row), '' without one. */
function rowKeyOf(l: SeatMapListing): string {
  const s = l.seats.find((x) => x.row !== null);
  return s ? `${s.section ?? ''}|${s.row}` : '';
}

/** Offers by area, then row, in section, row and seat order (numbers as numbers). */
function groupOffers(data: SeatMapData): Map<string, Map<string, SeatMapListing[]>> {
  const compare = new Intl.Collator('en', { numeric: true }).compare;
  const seat = (l: SeatMapListing) => l.seats[0]?.seat ?? '';
  const sorted = [...data.listings].sort((a, b) => compare(rowKeyOf(a), rowKeyOf(b)) || compare(seat(a), seat(b)));
  const groups = new Map<string, Map<string, SeatMapListing[]>>(data.areas.map((a) => [a.area, new Map()]));
  for (const l of sorted) {
    const area = l.area ?? '';
    let rows = groups.get(area);
    if (!rows) groups.set(area, (rows = new Map()));
    const key = rowKeyOf(l);
    rows.set(key, [...(rows.get(key) ?? []), l]);
  }
  return groups;
}

/**
 * The chart's seats in document order, with `data-section` and `data-row` inherited from the
 * nearest element that has them (as seat-rules.ts's `chartSeats` reads the markup on the server),
 * in one walk instead of two `closest()` lookups per seat.
 */
function walkSeats(root: Element): ChartSeat[] {
  const out: ChartSeat[] = [];
  const visit = (el: Element, section: string | null, row: string | null, zone: SVGElement | null) => {
    for (const child of el.children) {
      const s = child.getAttribute('data-section') ?? section;
      const r = child.getAttribute('data-row') ?? row;
      const seat = child.getAttribute('data-seat');
      if (seat !== null) out.push({ el: child as SVGElement, seat: { section: s, row: r, seat }, zone });
      visit(child, s, r, child.hasAttribute('data-area') ? (child as SVGElement) : zone);
    }
  };
  visit(root, root.getAttribute('data-section'), root.getAttribute('data-row'), null);
  return out;
}

let colorContext: CanvasRenderingContext2D | null | undefined;

/** A CSS colour as `#rrggbb` (a canvas normalises names, hsl() …); undefined where none is readable. */
function cssColor(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  colorContext ??= typeof document.createElement('canvas').getContext === 'function' ? document.createElement('canvas').getContext('2d') : null;
  if (!colorContext) return /^#|^rgb/.test(v) ? v : undefined;
  colorContext.fillStyle = '#000';
  colorContext.fillStyle = v;
  return colorContext.fillStyle;
}

/**
 * The zone an element is drawn on when it is not inside one: the one zone shape among its
 * siblings (a group of a zone's shape, its row letters and seats, as the demo draws), if exactly
 * one area is there. A zone that is a group is no shape under its siblings. Memoised per parent:
 * a group may hold thousands of seats.
 */
function soleZoneBeside(): (el: Element) => SVGElement | undefined {
  const byParent = new Map<Element, SVGElement | undefined>();
  return (el) => {
    const parent = el.parentElement;
    if (!parent) return undefined;
    if (!byParent.has(parent)) {
      const found = [...parent.children].filter((z): z is SVGElement => z.hasAttribute('data-area') && z.matches(SHAPES));
      byParent.set(parent, new Set(found.map((z) => z.getAttribute('data-area'))).size === 1 ? found[0] : undefined);
    }
    return byParent.get(parent);
  };
}

/** The shapes a zone may be drawn with. */
const SHAPES = 'path, rect, polygon, polyline, circle, ellipse';

/**
 * The interactive seat map: the event's seating chart (a sanitised SVG, or an image with the area
 * list beside it), zones coloured by availability, every seat drawn in its state (for sale,
 * selected, not for sale) by colour and shape in the ink that contrasts with the zone behind it,
 * a legend, zoom and pan (buttons, pinch, drag, keys), tooltips, the same seats as a list by
 * area (the chosen area open), a selection under the checkout rules and a Continue link to the
 * hosted checkout.
 *
 * Data: `.data` (a SeatMapData), or `src` (a URL answering `{status, data, errors}`), or
 * `api-base` + `event-id` + `show-id` (then `GET {api-base}/v1/wrapper/seatmap?eventId&showId`).
 * `public-key` goes in the Authorization header. Requests never carry credentials. `selected`
 * (listing ids, comma-separated) is a selection made earlier (the market page passes the one in
 * its URL), shown as picked.
 *
 * Lives in its own chunk: `<resale-access-layer>` imports it only when the response contains
 * an integratedMap. See seat-map.md for the chart convention (`data-area`, `data-section`,
 * `data-row`, `data-seat`).
 *
 * @csspart base - the layout grid
 * @csspart toolbar - the zoom buttons (SVG charts)
 * @csspart zoom-in - the zoom-in button
 * @csspart zoom-out - the zoom-out button
 * @csspart zoom-reset - the show-everything button
 * @csspart chart - the chart container (drag to pan, pinch to zoom)
 * @csspart image - the chart image (image-only charts)
 * @csspart legend - the legend of seat states and zone colours (SVG charts)
 * @csspart sidebar - the list, the selection
 * @csspart list - every area with its offers: the same seats as the chart, as a list
 * @csspart area - one area (`<details>`, with `data-area`, `data-availability`)
 * @csspart listings - the offers of an open area
 * @csspart listing - one offer
 * @csspart toggle - the select button of an offer (`aria-pressed`)
 * @csspart message - a refused pick, visible (`role="alert"`)
 * @csspart summary - selection count and total, clear, continue
 * @csspart count - the number of tickets picked (or "Nothing selected")
 * @csspart total - what the picked tickets cost, fees included
 * @csspart clear - the clear-selection button
 * @csspart continue - the Continue link (`<a>`), or `<button disabled>` while nothing is picked
 * @csspart cta - Continue too, styled as the other calls to action
 * @csspart cta-disabled - Continue while disabled
 * @csspart live - the polite live region (visually hidden) that announces picks and refusals
 * @csspart tooltip - the tooltip
 * @cssproperty --resale-zone-none - zones without stock
 * @cssproperty --resale-zone-some - zones with stock
 * @cssproperty --resale-zone-cheapest - the cheapest zone
 * @cssproperty --resale-zone-selected - the centre of picked seats, picked offers
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
    selected: { type: String },
    returnTo: { type: String, attribute: 'return-to' },
    _model: { state: true },
    _svg: { state: true },
    _activeArea: { state: true },
    _selection: { state: true },
    _message: { state: true },
    _announcement: { state: true },
    _tip: { state: true },
    _activeRow: { state: true },
    _open: { state: true },
    _zoom: { state: true },
    _legendFill: { state: true },
  };

  /** The map data given by the page (wins over `src`). */
  declare data: SeatMapData | undefined;
  /** A URL answering the envelope with SeatMapData. */
  declare src: string | undefined;
  declare publicKey: string | undefined;
  declare apiBase: string | undefined;
  declare eventId: string | undefined;
  declare showId: string | undefined;
  /** Listing ids picked before (comma-separated), shown as the selection once the data is in. */
  declare selected: string | undefined;
  /**
   * The partner page to come back to (see `returnAddress`), else the page the map is on when
   * that is another site than the market (a partner's page): Continue carries it as `returnTo`.
   * A `selectUrl` that already has one (the market page's own) keeps it.
   */
  declare returnTo: string | undefined;

  declare private _model: Model | undefined;
  declare private _svg: SVGSVGElement | null;
  declare private _activeArea: string | undefined;
  declare private _selection: string[];
  declare private _message: string;
  declare private _announcement: string;
  declare private _tip: string;
  /** The row (`area` + newline + row key) of the last seat picked on the map: open in the list. */
  declare private _activeRow: string | undefined;
  /** Areas (`area`) and rows (`area` + newline + row key) opened in the list. */
  declare private _open: ReadonlySet<string>;
  declare private _zoom: number;
  /** The fill the legend draws the seat states on: the one the seats for sale stand on. */
  declare private _legendFill: FillToken;

  #abort: AbortController | undefined;
  #loadedKey: string | undefined;
  /** A reload asked for while a load was under way: done when it ends. */
  #again = false;
  #generation = 0;
  #tooltip: FloatingTooltip | undefined;
  #view: ChartView | undefined;
  #View: typeof ChartView | undefined;
  #palette: typeof seatPalette | undefined;
  /** The model the chart was last decorated for, and the selection drawn on it. */
  #decorated: Model | undefined;
  #drawn = new Set<string>();
  #labels = new Map<string, string>();

  constructor() {
    super();
    this._svg = null;
    this._selection = [];
    this._message = '';
    this._announcement = '';
    this._tip = '';
    this._open = new Set();
    this._zoom = 1;
    this._legendFill = 'color-surface';
  }

  /** The picked listing ids, in picking order. */
  get selection(): readonly string[] {
    return this._selection;
  }

  /** Where Continue goes now; undefined while nothing is picked, the pick strands a seat, or the URL is not http(s). */
  get continueHref(): string | undefined {
    const base = this._model ? safeUrl(this._model.data.selectUrl) : undefined;
    if (!base || this._selection.length === 0 || this.#strandsSeat) return undefined;
    const back = returnAddress(this.returnTo);
    // On the market itself the page is no way back to the partner: nothing to add.
    const fromPartner = back !== undefined && (this.returnTo !== undefined || new URL(back).origin !== new URL(base).origin);
    return continueUrl(withReturnTo(base, fromPartner ? back : undefined), this._selection);
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
    this.#view?.disconnect();
    this.#view = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('selected') && this._model) this.#adoptSelected();
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

  /**
   * Fetches the data again (`<resale-access-layer>` calls it when live stock changed the areas):
   * picks still on sale stay picked, the chart keeps its zoom and focus when it is the same, and
   * nothing is dispatched; a failure keeps what is shown. Calls during a load are gathered into
   * one more load after it. Nothing happens before the first data or with `.data`.
   */
  reload(): void {
    const url = this.#sourceUrl();
    if (this.#abort) this.#again = true;
    else if (url && this._model && this.data === undefined && url === this.#loadedKey) void this.#load(url, true);
  }

  async #load(url: string, quiet?: boolean): Promise<void> {
    this.#abort?.abort();
    const abort = (this.#abort = new AbortController());
    try {
      const data = await fetchData(url, { publicKey: this.publicKey, signal: abort.signal });
      if (abort.signal.aborted) return;
      if (!isSeatMapData(data)) throw new LoadError({ reason: 'parse', message: 'not seat map data' });
      await this.#setData(data, quiet ? undefined : 'fetch');
    } catch (err) {
      if (quiet || isAbort(err) || abort.signal.aborted) return;
      this._model = undefined;
      this._svg = null;
      this.dispatchEvent(new ResaleErrorEvent(toErrorDetail(err)));
    } finally {
      if (this.#abort === abort) {
        this.#abort = undefined;
        if (this.#again) {
          this.#again = false;
          this.reload();
        }
      }
    }
  }

  /** `source` undefined: a reload, which says nothing. */
  async #setData(data: SeatMapData, source: 'fetch' | 'property' | undefined): Promise<void> {
    const generation = ++this.#generation;
    if (!isSeatMapData(data)) {
      this._model = undefined;
      this.dispatchEvent(new ResaleErrorEvent({ reason: 'parse', message: 'not seat map data' }));
      return;
    }
    let svg: SVGSVGElement | null = null;
    // The same chart (a reload): kept, with its zoom, pan and focus; #decorate redraws its states.
    if (this._svg && data.chart.svgCode === this._model?.data.chart.svgCode) svg = this._svg;
    else if (typeof data.chart.svgCode === 'string' && data.chart.svgCode.trim() !== '') {
      const [{ sanitizeSvg }, { ChartView, seatPalette }] = await loadChartModules();
      if (generation !== this.#generation) return;
      svg = sanitizeSvg(data.chart.svgCode);
      this.#View = ChartView;
      this.#palette = seatPalette;
    }
    const chartSeats = svg ? walkSeats(svg) : [];
    const first = this._model === undefined;
    // Read before the new chart is in the document: then resolving the host's style is cheap.
    const style = getComputedStyle(this);
    const resolved = (token: FillToken | 'zone-selected') => cssColor(style.getPropertyValue(`--_${token}`)) ?? TOKENS[token];
    const fills = Object.fromEntries(FILL_TOKENS.map((token) => [token, resolved(token)])) as Record<FillToken, string>;
    this._model = {
      data,
      areas: new Map(data.areas.map((a) => [a.area, a])),
      availability: availabilityByArea(data.areas),
      listings: new Map(data.listings.map((l) => [l.listingId, l])),
      seatIndex: indexSeats(data.listings),
      rows: buildRows(
        chartSeats.map((c) => c.seat),
        data.listings,
      ),
      seatEls: new Map(chartSeats.map((c) => [seatKey(c.seat), c])),
      byEl: new WeakMap(chartSeats.map((c) => [c.el, c])),
      groups: groupOffers(data),
      fills,
      selectedColor: resolved('zone-selected'),
    };
    this._svg = svg;
    this.#labels.clear();
    if (svg) {
      svg.setAttribute('role', 'group');
      svg.setAttribute('aria-label', t(this.locale, 'seatingChart'));
    }
    if (first && this.selected) this.#adoptSelected();
    else {
      // Keep what is still on sale picked; drop the rest.
      this._selection = this._selection.filter((id) => this._model?.listings.has(id));
      this._message = this.#strandsSeat ? t(this.locale, 'refusedOrphan') : '';
    }
    if (this._activeArea && !this._model.areas.has(this._activeArea)) this._activeArea = undefined;
    await this.updateComplete;
    if (generation !== this.#generation || !source) return;
    this.dispatchEvent(new ResaleReadyEvent({ source, count: data.areas.length }));
  }

  /** Takes `selected` (ids picked earlier, on this map or another page) as the selection. */
  #adoptSelected(): void {
    const model = this._model;
    if (!model) return;
    const ids = (this.selected ?? '').split(',').map((s) => s.trim());
    this._selection = [...new Set(ids)].filter((id) => model.listings.has(id));
    const first = model.listings.get(this._selection[0] ?? '');
    if (first) this.#showListing(first);
    this._message = this.#strandsSeat ? t(this.locale, 'refusedOrphan') : '';
  }

  // ---- chart decoration -------------------------------------------------------------------

  // Untyped: the private state's keys are not keys of `this` for TypeScript.
  protected override updated(changed: PropertyValues): void {
    if (changed.has('_svg')) {
      this.#view?.disconnect();
      this.#view = undefined;
      const frame = this.renderRoot.querySelector<HTMLElement>('.chart');
      if (this._svg && frame && this.#View) this.#view = new this.#View(this._svg, frame, (zoom) => (this._zoom = zoom));
      // A new chart starts whole; the zoom buttons were drawn before the view existed.
      this._zoom = 1;
      this.requestUpdate();
    }
    if (this._model !== this.#decorated) this.#decorate();
    else if (changed.has('_selection')) this.#drawSelection();
    if (changed.has('_activeArea') && this._svg) {
      for (const zone of this._svg.querySelectorAll('[data-area]')) zone.toggleAttribute('data-active', zone.getAttribute('data-area') === this._activeArea);
    }
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

  /** "€60.00 per ticket (2 tickets)", once per price: thousands of seats share a few prices. */
  #priceText(lang: Lang, listing: SeatMapListing): string {
    const key = `${listing.price}|${listing.currency}|${listing.quantity}`;
    let text = this.#labels.get(key);
    if (text === undefined) {
      const pack = listing.quantity > 1 ? ` (${ticketCount(lang, listing.quantity)})` : '';
      text = `${formatPrice(lang, listing.price, listing.currency)} ${t(lang, 'perTicket')}${pack}`;
      this.#labels.set(key, text);
    }
    return text;
  }

  /**
   * Availability, states, colours, names and focus on the chart's own elements (they are not
   * Lit's), once per data: the palettes of the fills (seatPalette, from the zone colours as
   * resolved on the host, so a partner's own colours count), the zones with the fill their seats
   * stand on, the seats and labels beside a zone, then the seats for sale. Seats not for sale keep
   * the default look (a thin muted ring) and need no write of their own when their zone is
   * around them: 20,000 seats cost what their offers cost.
   */
  #decorate(): void {
    const svg = this._svg;
    const model = this._model;
    const before = this.#decorated;
    this.#decorated = model;
    this.#drawn = new Set();
    if (!svg || !model) return;
    // Seats no longer for sale on a chart kept by a reload: back to the default look.
    for (const key of before?.seatIndex.keys() ?? []) {
      const el = before!.seatEls.get(key)?.el;
      if (el && !model.seatIndex.has(key)) for (const a of ['data-state', 'tabindex', 'role', 'aria-pressed', 'aria-label']) el.removeAttribute(a);
    }
    // The palette of every fill, for the chart and the legend alike (custom properties: set
    // through the CSSOM, which a strict style-src allows, where a style attribute is not).
    const base = this.renderRoot.querySelector<HTMLElement>('.base');
    for (const fill of FILL_TOKENS) {
      const palette = this.#palette!(model.fills[fill], model.selectedColor);
      for (const role of PALETTE_ROLES) base?.style.setProperty(`--_${fill}-${role}`, palette[role]);
    }
    const lang = this.locale;
    const zones = new Map<string, SVGElement>();
    const fillOf = new Map<SVGElement, FillToken>();
    const on = (zone: SVGElement) => {
      let found = fillOf.get(zone);
      if (!found) fillOf.set(zone, (found = this.#fillBehindSeats(zone, model)));
      return found;
    };
    for (const zone of svg.querySelectorAll<SVGElement>('[data-area]')) {
      const name = zone.getAttribute('data-area') ?? '';
      if (!zones.has(name)) zones.set(name, zone);
      const area = model.areas.get(name);
      zone.setAttribute('data-availability', model.availability.get(name) ?? 'none');
      // The palette of the zone's fill, inherited by the seats and labels inside it.
      zone.setAttribute('data-on', on(zone));
      const hasSeats = zone.querySelector('[data-seat]') !== null;
      zone.setAttribute('aria-label', this.#areaLabel(lang, area, name));
      if (area && area.quantityForSale > 0 && !hasSeats) {
        // Zones with seat elements inside are not buttons themselves: no nested controls.
        zone.setAttribute('tabindex', '0');
        zone.setAttribute('role', 'button');
      } else {
        zone.removeAttribute('tabindex');
        zone.setAttribute('role', hasSeats ? 'group' : 'img');
      }
    }
    // A seat or a label beside its zone (the zone drawn as a sibling shape) carries the palette
    // itself; nothing is written for the surface, which is the chart's own.
    const beside = soleZoneBeside();
    const mark = (el: Element, zone: SVGElement | undefined): FillToken => {
      const fill = zone ? on(zone) : 'color-surface';
      if (fill !== 'color-surface') el.setAttribute('data-on', fill);
      return fill;
    };
    for (const c of model.seatEls.values()) {
      if (!c.zone) mark(c.el, zones.get(model.seatIndex.get(seatKey(c.seat))?.area ?? '') ?? zones.get(c.seat.section ?? '') ?? beside(c.el));
    }
    // Text beside one zone shape is a label on it (row letters); text elsewhere is the chart's
    // own drawing (a stage's name on the stage) and keeps its colours.
    for (const label of svg.querySelectorAll('text')) if (!label.closest('[data-area]')) mark(label, beside(label));
    let legendFill: FillToken | undefined;
    for (const [key, listing] of model.seatIndex) {
      const c = model.seatEls.get(key);
      if (!c) continue;
      legendFill ??= c.zone ? on(c.zone) : ((c.el.getAttribute('data-on') as FillToken | null) ?? 'color-surface');
      c.el.setAttribute('data-state', 'sale');
      c.el.setAttribute('tabindex', '0');
      c.el.setAttribute('role', 'button');
      c.el.setAttribute('aria-pressed', 'false');
      c.el.setAttribute('aria-label', `${this.#seatText(lang, c.seat)}: ${this.#priceText(lang, listing)}`);
    }
    // The legend draws the seat states on the fill the seats for sale stand on (one more render
    // per new data, only when it changes).
    this._legendFill = legendFill ?? 'color-surface';
    this.#drawSelection();
    // Measuring needs layout: after the first frame is drawn, not before (the map answers at once).
    const view = this.#view;
    requestAnimationFrame(() => setTimeout(() => view?.measure()));
  }

  /**
   * The fill behind a zone's seats: the zone's colour token for its availability (the map's
   * stylesheet paints every zone shape with it, over the chart's own fill; the model holds it as
   * resolved on the host, so a partner's `--resale-zone-*` counts), the surface when the zone is
   * only a group of seats. Never a computed style inside the chart: in a fresh chart of 20,000
   * seats, it would compute all of them before the first frame. Marks the zone's own shapes on
   * the way.
   */
  #fillBehindSeats(zone: SVGElement, model: Model): FillToken {
    let shaped = zone.matches(SHAPES);
    for (const shape of shaped ? [] : zone.querySelectorAll(SHAPES)) {
      if (shape.hasAttribute('data-seat') || shape.closest('[data-seat]')) continue;
      // The zone's own drawing, painted in the zone colour (see seat-map.styles.ts).
      shape.setAttribute('data-zone-shape', '');
      shaped = true;
    }
    return shaped ? `zone-${model.availability.get(zone.getAttribute('data-area') ?? '') ?? 'none'}` : 'color-surface';
  }

  /** Picked seats drawn as picked, unpicked ones as for sale: only the seats that changed. */
  #drawSelection(): void {
    const model = this._model;
    if (!model || !this._svg) return;
    const now = new Set(this._selection);
    const setState = (listingId: string, picked: boolean) => {
      for (const s of model.listings.get(listingId)?.seats ?? []) {
        const c = model.seatEls.get(seatKey(s));
        if (!c) continue;
        c.el.setAttribute('data-state', picked ? 'selected' : 'sale');
        c.el.setAttribute('aria-pressed', String(picked));
      }
    };
    for (const id of this.#drawn) if (!now.has(id)) setState(id, false);
    for (const id of now) if (!this.#drawn.has(id)) setState(id, true);
    this.#drawn = now;
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
      const c = model.byEl.get(el);
      const listing = c ? model.seatIndex.get(seatKey(c.seat)) : undefined;
      if (!listing) return;
      this.#showListing(listing);
      this.toggle(listing.listingId);
    } else {
      this.showArea(el.getAttribute('data-area') ?? '');
    }
  }

  #onChartClick = (e: MouseEvent): void => {
    // The end of a drag is not a pick.
    if (this.#view?.consumeDrag()) return;
    const el = this.#target(e);
    // A pointer tap among seats drawn smaller than a finger (24 px, WCAG 2.5.8), on one of them or
    // beside (a seat of 2 px is hard to hit), zooms in there first; keyboard and list picks need
    // no zoom, and a zone that is a button (no seats) answers at once.
    if (e.detail > 0 && !el?.hasAttribute('data-area') && this.#view?.zoomToPick(e.clientX, e.clientY)) {
      this._announcement = mt(this.locale, 'zoomedToPick');
      return;
    }
    if (el) this.#activate(el);
  };

  #onChartKeydown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') {
      this.#tooltip?.hide();
      return;
    }
    if (this.#view?.key(e.key)) {
      e.preventDefault();
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
    if (e.type === 'focusin') this.#view?.reveal(el);
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
   * is judged as a whole, so seats that only make sense together can be picked one by one. The
   * server applies the same rule (seat-rules.ts) when the selection is reserved.
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

  /**
   * What the selection costs, buyer fees included: per currency (a selection stays within one
   * ticket option, so one in practice), added up in thousandths so cents add exactly.
   */
  #totalText(lang: Lang): string {
    const sums = new Map<string, number>();
    for (const id of this._selection) {
      const l = this._model?.listings.get(id);
      if (l) sums.set(l.currency, (sums.get(l.currency) ?? 0) + Math.round(l.price * 1000) * l.quantity);
    }
    return [...sums].map(([currency, milli]) => formatPrice(lang, milli / 1000, currency)).join(' + ');
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

  /** The area and row of a listing, opened in the list and marked on the chart. */
  #showListing(listing: SeatMapListing): void {
    if (listing.area === null) return;
    this._activeArea = listing.area;
    this._activeRow = `${listing.area}\n${rowKeyOf(listing)}`;
  }

  /** An area or a row opened or closed in the list; what the map shows stays open by being active. */
  #toggleOpen(key: string, open: boolean): void {
    const active = key === this._activeArea || key === this._activeRow;
    if (open === this._open.has(key) || (open && active)) return;
    const next = new Set(this._open);
    if (open) next.add(key);
    else {
      next.delete(key);
      if (key === this._activeArea) this._activeArea = undefined;
      if (key === this._activeRow) this._activeRow = undefined;
    }
    this._open = next;
  }

  // ---- rendering ----------------------------------------------------------------------------

  /** One offer with its select button. */
  #renderOffer(lang: Lang, l: SeatMapListing) {
    const picked = this._selection.includes(l.listingId);
    const what = this.#listingText(lang, l);
    return html`<li class="listing" part="listing" data-listing-id=${l.listingId} ?data-selected=${picked}>
      <span>
        <span>${what}</span><br />
        <span class="muted">${formatPrice(lang, l.price, l.currency)} ${t(lang, 'perTicket')} · ${ticketCount(lang, l.quantity)}</span>
      </span>
      <button class="toggle" part="toggle" type="button" aria-pressed=${picked ? 'true' : 'false'} aria-label=${`${t(lang, picked ? 'selected' : 'select')}: ${what}`} @click=${() => this.toggle(l.listingId)}>
        ${t(lang, picked ? 'selected' : 'select')}
      </button>
    </li>`;
  }

  /**
   * The same seats as a list, always there beside the chart (for screen readers, keyboards and
   * anyone who prefers it), and the whole map when there is no SVG chart: every area with its
   * stock; inside, its rows; inside a row, its offers in seat order with the map's selection.
   * Areas and rows open on their own (their summary) or from the map (a zone, a seat). Only
   * what is open is rendered: a row is a few dozen buttons, so 20,000 seats cost nothing until
   * asked for.
   */
  #renderList(lang: Lang, model: Model) {
    const isOpen = (key: string) => this._open.has(key) || key === this._activeArea || key === this._activeRow;
    const onToggle = (key: string) => (e: Event) => this.#toggleOpen(key, (e.currentTarget as HTMLDetailsElement).open);
    const picked = new Set(this._selection);
    return html`<section class="list" part="list" aria-labelledby="seat-list-title">
      <h3 id="seat-list-title">${mt(lang, 'seatList')}</h3>
      ${[...model.groups].map(([name, rows]) => {
        const area = model.areas.get(name);
        const count = area?.quantityForSale ?? [...rows.values()].flat().reduce((n, l) => n + l.quantity, 0);
        const open = rows.size > 0 && isOpen(name);
        return html`<details part="area" data-area=${name} data-availability=${model.availability.get(name) ?? 'none'} ?open=${open} @toggle=${onToggle(name)}>
          <summary>
            <span>${name}</span>
            <span class="muted">${count > 0 ? ticketCount(lang, count) : t(lang, 'noneForSale')}${area && count > 0 && area.floorPrice > 0 ? ` · ${t(lang, 'from')} ${formatPrice(lang, area.floorPrice, area.currency)}` : ''}</span>
          </summary>
          ${open
            ? html`<ul part="listings">
                ${[...rows].map(([rowKey, listings]) => {
                  if (rowKey === '') return listings.map((l) => this.#renderOffer(lang, l));
                  const key = `${name}\n${rowKey}`;
                  const [section, row] = rowKey.split('|') as [string, string];
                  const chosen = listings.filter((l) => picked.has(l.listingId)).length;
                  return html`<li>
                    <details data-row=${rowKey} ?open=${isOpen(key)} @toggle=${onToggle(key)}>
                      <summary>
                        <span>${this.#seatText(lang, { section: section || null, row, seat: null })}</span>
                        <span class="muted">${ticketCount(lang, listings.reduce((n, l) => n + l.quantity, 0))}${chosen > 0 ? ` · ${t(lang, 'selection', { count: chosen })}` : ''}</span>
                      </summary>
                      ${isOpen(key) ? html`<ul>${listings.map((l) => this.#renderOffer(lang, l))}</ul>` : nothing}
                    </details>
                  </li>`;
                })}
              </ul>`
            : nothing}
        </details>`;
      })}
    </section>`;
  }

  /**
   * The legend: each seat state is the chart's own seat element with the same attributes, on a
   * swatch of the fill the seats for sale stand on, so it takes the same rules and palette as
   * the seats (one definition of each state); each zone colour is a zone shape.
   */
  #renderLegend(lang: Lang, model: Model) {
    const fill = this._legendFill;
    const seat = (state: 'sale' | 'selected' | undefined) =>
      svgTemplate`<svg viewBox="0 0 20 20" aria-hidden="true" data-on=${fill}><rect width="20" height="20" rx="3" fill=${model.fills[fill]}></rect><circle cx="10" cy="10" r="6" data-seat="" data-state=${state ?? nothing}></circle></svg>`;
    const zone = (availability: string) => svgTemplate`<svg viewBox="0 0 20 20" aria-hidden="true"><rect x="2" y="4" width="16" height="12" rx="2" data-area="" data-availability=${availability}></rect></svg>`;
    return html`<ul class="legend" part="legend" aria-label=${mt(lang, 'legend')}>
      <li>${seat('sale')}${mt(lang, 'legendForSale')}</li>
      <li>${seat('selected')}${mt(lang, 'legendSelected')}</li>
      <li>${seat(undefined)}${mt(lang, 'legendUnavailable')}</li>
      <li>${zone('cheapest')}${mt(lang, 'legendCheapest')}</li>
      <li>${zone('some')}${mt(lang, 'legendSome')}</li>
      <li>${zone('none')}${mt(lang, 'legendNone')}</li>
    </ul>`;
  }

  #renderToolbar(lang: Lang) {
    const zoom = (factor: number) => () => this.#view?.zoomBy(factor);
    return html`<div class="toolbar" part="toolbar">
      <button type="button" part="zoom-in" aria-label=${mt(lang, 'zoomIn')} ?disabled=${this._zoom >= (this.#view?.maxZoom ?? 1)} @click=${zoom(2)}>+</button>
      <button type="button" part="zoom-out" aria-label=${mt(lang, 'zoomOut')} ?disabled=${this._zoom <= 1} @click=${zoom(0.5)}>−</button>
      <button type="button" part="zoom-reset" ?disabled=${this._zoom <= 1} @click=${zoom(0)}>${mt(lang, 'zoomReset')}</button>
    </div>`;
  }

  #renderChart(lang: Lang, model: Model) {
    if (this._svg) {
      return html`<div
        class="chart"
        part="chart"
        @click=${this.#onChartClick}
        @keydown=${this.#onChartKeydown}
        @pointerover=${this.#onChartOver}
        @focusin=${this.#onChartOver}
        @pointerout=${this.#onChartOut}
        @focusout=${this.#onChartOut}
      >
        ${this._svg}
      </div>`;
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
      ${this._svg ? html`<div class="main">${this.#renderToolbar(lang)} ${this.#renderChart(lang, model)} ${this.#renderLegend(lang, model)}</div>` : this.#renderChart(lang, model)}
      <div class="sidebar" part="sidebar">
        ${this.#renderList(lang, model)}
        ${this._message ? html`<p class="message" part="message" role="alert">${this._message}</p>` : nothing}
        <div class="summary" part="summary">
          <span part="count">${count > 0 ? t(lang, 'selection', { count }) : t(lang, 'nothingSelected')}</span>
          ${count > 0 ? html`<strong part="total">${mt(lang, 'total', { amount: this.#totalText(lang) })}</strong>` : nothing}
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
