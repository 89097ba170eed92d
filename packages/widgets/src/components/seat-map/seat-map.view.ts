/**
 * The seat colours of an SVG chart (the contrast arithmetic) travel in this chunk too: only a
 * chart has seats to colour, and the seat map's own chunk has no bytes to spare for them.
 */
export { seatPalette } from '@resale/shared/contrast';

/** The smallest seat a pointer picks: WCAG 2.5.8, target size (minimum), 24 CSS px. */
const MIN_TARGET_PX = 24;
/** How large a tap on a smaller seat zooms the seats to: above the minimum, for a thumb. */
const PICK_TARGET_PX = 32;
/** Chart text (row labels) is never drawn smaller than this. */
const MIN_TEXT_PX = 14;
/** Charts with more text than this keep their text as drawn (likely a number on every seat). */
const MAX_SCALED_TEXTS = 2000;
/** Seats are drawn up to this much larger than the chart has them, as far as their spacing allows. */
const MAX_SEAT_SCALE = 1.6;
/** A pointer that moves less than this between down and up is a tap, not a drag. */
const DRAG_THRESHOLD_PX = 6;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** `x y w h` of a `viewBox` attribute; undefined when it is not four numbers with a size. */
function parseViewBox(value: string | null): Box | undefined {
  const n = (value ?? '').trim().split(/[\s,]+/).map(Number);
  if (n.length !== 4 || n.some((v) => !Number.isFinite(v)) || n[2]! <= 0 || n[3]! <= 0) return undefined;
  return { x: n[0]!, y: n[1]!, w: n[2]!, h: n[3]! };
}

/**
 * Zoom and pan of the chart, by its `viewBox` (crisp at every zoom; no transform of 20,000
 * elements): buttons, keys (`+`, `-`, `0`, arrows), pinch and drag with pointers (a drag needs
 * the map zoomed in, so at full view a finger still scrolls the page: `touch-action: pan-y`).
 * The wheel is left to the page: a map that takes it traps the scroll of whoever passes over.
 *
 * It also measures the seats once drawn: the spacing of the first seats lets the seats grow (up
 * to {@link MAX_SEAT_SCALE}, 85 % of the distance to their nearest neighbour, through
 * `--_seat-scale`); their size on screen says whether a tap can pick one (at least
 * {@link MIN_TARGET_PX}) or must zoom in first ({@link zoomToPick}); and the chart's text is kept
 * at {@link MIN_TEXT_PX} or more at every zoom. Without layout (a test DOM) the size is unknown
 * and a tap picks.
 */
export class ChartView {
  /** The largest zoom (at least 4, and enough to make seats a thumb wide). */
  maxZoom = 4;
  #base: Box | undefined;
  #view: Box | undefined;
  /** Drawn seat diameter in chart units; 0 while unknown. */
  #seatUnits = 0;
  #texts: [SVGElement, number][] | undefined;
  #pointers = new Map<number, { x: number; y: number; startX: number; startY: number }>();
  #dragging = false;
  #dragged = false;
  #pinch: { distance: number; zoom: number; ux: number; uy: number } | undefined;
  #resize: ResizeObserver | undefined;
  #autoZoomed = false;

  constructor(
    private readonly svg: SVGSVGElement,
    private readonly frame: HTMLElement,
    private readonly onZoom: (zoom: number) => void,
  ) {
    const width = parseFloat(svg.getAttribute('width') ?? '');
    const height = parseFloat(svg.getAttribute('height') ?? '');
    this.#base = parseViewBox(svg.getAttribute('viewBox')) ?? (width > 0 && height > 0 ? { x: 0, y: 0, w: width, h: height } : undefined);
    // The chart scales with its container: the root's own size would fix it.
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    if (this.#base) this.#view = { ...this.#base };
    frame.addEventListener('pointerdown', this.#down);
    frame.addEventListener('pointermove', this.#move);
    frame.addEventListener('pointerup', this.#up);
    frame.addEventListener('pointercancel', this.#up);
    if (typeof ResizeObserver !== 'undefined') {
      // Its first call comes with the first frame, where measuring would lay 20,000 seats out
      // twice: the map measures after that frame itself; this is for later changes of size.
      let first = true;
      this.#resize = new ResizeObserver(() => (first ? (first = false) : this.measure()));
      this.#resize.observe(frame);
    }
  }

  /** Current zoom: 1 shows the whole chart. */
  get zoom(): number {
    return this.#base && this.#view ? this.#base.w / this.#view.w : 1;
  }

  disconnect(): void {
    this.frame.removeEventListener('pointerdown', this.#down);
    this.frame.removeEventListener('pointermove', this.#move);
    this.frame.removeEventListener('pointerup', this.#up);
    this.frame.removeEventListener('pointercancel', this.#up);
    this.#resize?.disconnect();
  }

  /** CSS px per chart unit now (the chart is letterboxed: `xMidYMid meet`); 0 without layout. */
  #scale(): number {
    const view = this.#view;
    if (!view) return 0;
    const rect = this.svg.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0 ? Math.min(rect.width / view.w, rect.height / view.h) : 0;
  }

  /** Measures the seats and the text, after a (re)draw or a resize. */
  measure(): void {
    if (!this.#base && typeof this.svg.getBBox === 'function') {
      // No viewBox nor size on the root: the drawing's own extent.
      const box = this.svg.getBBox();
      if (box.width > 0 && box.height > 0) this.#base = this.#view = { x: box.x, y: box.y, w: box.width, h: box.height };
    }
    const scale = this.#scale();
    if (!this.#base || scale === 0) return;
    if (this.#seatUnits === 0) this.#measureSeats();
    if (this.#seatUnits > 0) {
      const fit = (this.#seatUnits * scale) / this.zoom; // px of a seat at zoom 1
      this.maxZoom = Math.min(64, Math.max(4, (PICK_TARGET_PX / fit) * 1.5));
      // A chart whose seats need only a little zoom to be tappable starts there (a theatre on a
      // phone); a stadium starts whole, and a tap zooms in where it lands.
      const needed = MIN_TARGET_PX / fit;
      if (!this.#autoZoomed && needed > 1 && needed <= 1.5) {
        this.#autoZoomed = true;
        this.#zoomAt(needed / this.zoom, this.#base.x + this.#base.w / 2, this.#base.y + this.#base.h / 2);
        return;
      }
    }
    this.#fitText(scale);
  }

  #measureSeats(): void {
    const seats = [...this.svg.querySelectorAll<SVGGraphicsElement>('[data-seat]')].slice(0, 64);
    const boxes = seats.map((s) => (typeof s.getBBox === 'function' ? s.getBBox() : undefined)).filter((b): b is DOMRect => b !== undefined && b.width > 0 && b.height > 0);
    if (boxes.length === 0) return;
    const diameter = Math.min(...boxes.map((b) => Math.min(b.width, b.height)));
    let nearest = Infinity;
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i]!, boxes[j]!];
        const d = Math.hypot(a.x + a.width / 2 - (b.x + b.width / 2), a.y + a.height / 2 - (b.y + b.height / 2));
        if (d > 0) nearest = Math.min(nearest, d);
      }
    }
    const seatScale = Number.isFinite(nearest) ? Math.min(MAX_SEAT_SCALE, Math.max(1, (0.85 * nearest) / diameter)) : 1;
    this.svg.style.setProperty('--_seat-scale', seatScale.toFixed(3));
    // The ring of a seat, in chart units: a share of its size, whatever the zoom.
    this.svg.style.setProperty('--_ring', (diameter * 0.15).toFixed(3));
    this.#seatUnits = diameter * seatScale;
  }

  /**
   * Text at {@link MIN_TEXT_PX} at least: the size in chart units grows as the zoom shrinks it,
   * up to twice the chart's own size (a row label of a stadium seen whole cannot be read at any
   * size that fits; grown further, labels would only cover the rows).
   */
  #fitText(scale: number): void {
    if (!this.#texts) {
      const texts = [...this.svg.querySelectorAll<SVGElement>('text')];
      this.#texts = texts.length > MAX_SCALED_TEXTS ? [] : texts.map((el) => [el, parseFloat(el.getAttribute('font-size') ?? '') || parseFloat(getComputedStyle(el).fontSize) || 16]);
    }
    const min = MIN_TEXT_PX / scale;
    for (const [el, size] of this.#texts) {
      const want = String(Math.max(size, Math.min(min, size * 2)));
      if (el.getAttribute('font-size') !== want) el.setAttribute('font-size', want);
    }
  }

  /** Zooms by `factor` about the middle of the view (0: back to the whole chart). */
  zoomBy(factor: number): void {
    const view = this.#view;
    if (!view) return;
    if (factor === 0) this.#zoomAt(1 / this.zoom, view.x + view.w / 2, view.y + view.h / 2);
    else this.#zoomAt(factor, view.x + view.w / 2, view.y + view.h / 2);
  }

  /**
   * A tap on a seat drawn smaller than {@link MIN_TARGET_PX}: zooms in about the tap until the
   * seats are a thumb wide, and answers true (the tap did that, not a pick). False when the seat
   * is large enough or its size is unknown.
   */
  zoomToPick(clientX: number, clientY: number): boolean {
    const scale = this.#scale();
    const px = this.#seatUnits * scale;
    if (px === 0 || px >= MIN_TARGET_PX) return false;
    const [ux, uy] = this.#toUnits(clientX, clientY, scale);
    this.#zoomAt(PICK_TARGET_PX / px, ux, uy);
    return true;
  }

  /** Keys on the chart: `+`/`=` in, `-` out, `0` whole chart, arrows pan. True when handled. */
  key(key: string): boolean {
    const view = this.#view;
    if (!view) return false;
    const pan: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (key === '+' || key === '=') this.zoomBy(1.5);
    else if (key === '-' || key === '_') this.zoomBy(1 / 1.5);
    else if (key === '0') this.zoomBy(0);
    else if (pan[key] && this.zoom > 1) this.#panBy(pan[key][0] * view.w * 0.2, pan[key][1] * view.h * 0.2);
    else return false;
    return true;
  }

  /** Brings a focused element into view (keyboard users move through seats out of sight). */
  reveal(el: Element): void {
    const view = this.#view;
    if (!view || this.zoom <= 1) return;
    const box = el.getBoundingClientRect();
    const frame = this.svg.getBoundingClientRect();
    if (box.width === 0 || (box.left >= frame.left && box.right <= frame.right && box.top >= frame.top && box.bottom <= frame.bottom)) return;
    const [ux, uy] = this.#toUnits(box.left + box.width / 2, box.top + box.height / 2, this.#scale());
    this.#panBy(ux - (view.x + view.w / 2), uy - (view.y + view.h / 2));
  }

  /** Whether the click being handled ends a drag (then it picks nothing); resets the flag. */
  consumeDrag(): boolean {
    const dragged = this.#dragged;
    this.#dragged = false;
    return dragged;
  }

  #toUnits(clientX: number, clientY: number, scale: number): [number, number] {
    const view = this.#view!;
    const rect = this.svg.getBoundingClientRect();
    const left = rect.left + (rect.width - view.w * scale) / 2;
    const top = rect.top + (rect.height - view.h * scale) / 2;
    return [view.x + (clientX - left) / scale, view.y + (clientY - top) / scale];
  }

  #zoomAt(factor: number, ux: number, uy: number): void {
    const base = this.#base;
    const view = this.#view;
    if (!base || !view) return;
    const zoom = Math.min(this.maxZoom, Math.max(1, this.zoom * factor));
    const w = base.w / zoom;
    const h = base.h / zoom;
    this.#set({ x: ux - (ux - view.x) * (w / view.w), y: uy - (uy - view.y) * (h / view.h), w, h });
  }

  #panBy(dx: number, dy: number): void {
    const view = this.#view;
    if (view) this.#set({ ...view, x: view.x + dx, y: view.y + dy });
  }

  /** The view, kept inside the chart. */
  #set(next: Box): void {
    const base = this.#base!;
    const x = Math.min(base.x + base.w - next.w, Math.max(base.x, next.x));
    const y = Math.min(base.y + base.h - next.h, Math.max(base.y, next.y));
    this.#view = { x, y, w: next.w, h: next.h };
    this.svg.setAttribute('viewBox', `${x} ${y} ${next.w} ${next.h}`);
    const zoom = this.zoom;
    this.frame.toggleAttribute('data-zoomed', zoom > 1.001);
    const scale = this.#scale();
    if (scale > 0) this.#fitText(scale);
    this.onZoom(zoom);
  }

  #down = (e: PointerEvent): void => {
    this.#pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, startX: e.clientX, startY: e.clientY });
    const [a, b] = [...this.#pointers.values()];
    if (this.#pointers.size === 2 && a && b) {
      const [ux, uy] = this.#toUnits((a.x + b.x) / 2, (a.y + b.y) / 2, this.#scale());
      this.#pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y), zoom: this.zoom, ux, uy };
      this.#dragged = true;
    }
  };

  #move = (e: PointerEvent): void => {
    const p = this.#pointers.get(e.pointerId);
    if (!p) return;
    const [dx, dy] = [e.clientX - p.x, e.clientY - p.y];
    p.x = e.clientX;
    p.y = e.clientY;
    const [a, b] = [...this.#pointers.values()];
    if (this.#pinch && this.#pointers.size === 2 && a && b) {
      const distance = Math.hypot(a.x - b.x, a.y - b.y);
      if (this.#pinch.distance > 0) this.#zoomAt((this.#pinch.zoom * distance) / this.#pinch.distance / this.zoom, this.#pinch.ux, this.#pinch.uy);
      return;
    }
    if (this.zoom <= 1) return;
    if (!this.#dragging) {
      if (Math.hypot(e.clientX - p.startX, e.clientY - p.startY) < DRAG_THRESHOLD_PX) return;
      this.#dragging = this.#dragged = true;
      this.frame.setPointerCapture?.(e.pointerId);
    }
    const scale = this.#scale();
    if (scale > 0) this.#panBy(-dx / scale, -dy / scale);
  };

  #up = (e: PointerEvent): void => {
    this.#pointers.delete(e.pointerId);
    if (this.#pointers.size < 2) this.#pinch = undefined;
    if (this.#pointers.size === 0) this.#dragging = false;
  };
}
