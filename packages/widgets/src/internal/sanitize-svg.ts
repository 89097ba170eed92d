import DOMPurify, { type Config } from 'dompurify';
import { keepSvgAttribute, SVG_SANITIZE_CONFIG } from './svg-policy.js';

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

/**
 * The chart's root `<svg>`, sanitised and owned by the current document but not yet inserted;
 * null when nothing usable remains.
 */
export function sanitizeSvg(code: string): SVGSVGElement | null {
  const fragment = instance().sanitize(code, CONFIG);
  const root = fragment.firstElementChild;
  if (!root || root.localName !== 'svg' || root.namespaceURI !== 'http://www.w3.org/2000/svg') return null;
  return root as SVGSVGElement;
}
