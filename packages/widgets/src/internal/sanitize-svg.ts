import DOMPurify, { type Config } from 'dompurify';
import { keepSvgAttribute, SVG_SANITIZE_CONFIG } from '@resale/shared/svg-policy';

/**
 * The partner's seating chart, sanitised before it touches the page. Loaded as its own chunk by
 * the seat map, only when the chart is an SVG.
 *
 * The allow-list is `svg-policy.ts`, shared with the server, which sanitises the chart the same
 * way when it is received: a chart stored before that, or served by another party, is still
 * cleaned here. A private DOMPurify instance keeps the hook away from any DOMPurify the partner
 * page uses.
 */
const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = { ...SVG_SANITIZE_CONFIG, RETURN_DOM_FRAGMENT: true };

let purifier: ReturnType<typeof DOMPurify> | undefined;

function instance(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook('uponSanitizeAttribute', (_node, data) => {
    if (!keepSvgAttribute(data.attrName, data.attrValue)) data.keepAttr = false;
  });
  purifier = p;
  return p;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
/** What a plain chart is drawn with: shapes, groups and text; nothing that loads, runs or links. */
const PLAIN_ELEMENTS = new Set(['svg', 'g', 'rect', 'circle', 'ellipse', 'line', 'path', 'polygon', 'polyline', 'text', 'tspan', 'title', 'desc']);
/** Geometry and presentation (lower case); `data-*` and `aria-*` too. No `style`, no event handler, no link. */
const PLAIN_ATTRIBUTES = new Set(
  'xmlns version viewbox preserveaspectratio width height x y x1 y1 x2 y2 dx dy cx cy r rx ry d points transform id class role fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-linecap stroke-linejoin stroke-dasharray opacity font-size font-family font-weight text-anchor dominant-baseline'.split(' '),
);
const DATA_OR_ARIA = /^(data|aria)-[a-z0-9_.-]*$/;

/**
 * A chart with nothing to remove, checked on an inert parse and taken as parsed, or undefined
 * for anything else (then DOMPurify cleans it). Only verifies, never repairs: every node must
 * be an SVG element of {@link PLAIN_ELEMENTS} with attributes of {@link PLAIN_ATTRIBUTES}
 * (values as `keepSvgAttribute` allows), or text. A DOMParser document runs no script and
 * loads nothing, and the nodes are adopted, not serialised and parsed again, so what was
 * checked is what is drawn. Why: DOMPurify spends about 15 µs per element; a stadium of 20,000
 * seats, already sanitised by the server when received, would wait 300 ms for it.
 */
function plainChart(code: string): SVGSVGElement | null | undefined {
  const body = new DOMParser().parseFromString(code, 'text/html').body;
  const root = body.firstElementChild;
  if (!root || root.localName !== 'svg' || [...body.childNodes].some((n) => n !== root && (n.nodeType !== Node.TEXT_NODE || n.textContent!.trim() !== ''))) return undefined;
  const plain = (el: Element): boolean => {
    if (el.namespaceURI !== SVG_NS || !PLAIN_ELEMENTS.has(el.localName)) return false;
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (!(PLAIN_ATTRIBUTES.has(name) || DATA_OR_ARIA.test(name)) || !keepSvgAttribute(name, attr.value)) return false;
    }
    for (const child of el.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE ? !plain(child as Element) : child.nodeType !== Node.TEXT_NODE) return false;
    }
    return true;
  };
  return plain(root) ? (document.adoptNode(root) as SVGSVGElement) : undefined;
}

/** The last chart sanitised, and its clean root (never inserted: copies are). */
let last: { code: string; root: SVGSVGElement | null } | undefined;

/**
 * The chart's root `<svg>`, sanitised and owned by the current document but not yet inserted;
 * null when nothing usable remains.
 *
 * A plain chart (shapes, groups, text: what the server stores after sanitising) is checked and
 * taken as it is ({@link plainChart}); anything else goes through DOMPurify. The last chart is
 * remembered: new offers for the same show (a reload, a live update) come
 * with the same chart, and a copy of the clean tree costs a small part of sanitising 20,000
 * seats again. Only the markup already sanitised is reused, so nothing unsanitised is ever
 * drawn.
 */
export function sanitizeSvg(code: string): SVGSVGElement | null {
  if (last?.code !== code) {
    const root = plainChart(code) ?? instance().sanitize(code, CONFIG).firstElementChild;
    last = { code, root: root && root.localName === 'svg' && root.namespaceURI === SVG_NS ? (root as SVGSVGElement) : null };
  }
  return last.root ? (last.root.cloneNode(true) as SVGSVGElement) : null;
}
