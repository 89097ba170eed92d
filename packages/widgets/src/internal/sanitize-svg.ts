import DOMPurify, { type Config } from 'dompurify';

/**
 * The partner's seating chart, sanitised before it touches the page. Loaded as its own chunk by
 * the seat map, only when the chart is an SVG.
 *
 * DOMPurify with the SVG profile, plus:
 * - no `<script>`, `<foreignObject>` (HTML inside SVG), `<style>` or `style` attributes (CSS
 *   inside the shadow root could restyle or hide the map's own controls; and a strict CSP blocks
 *   inline styles anyway), no `<a>` (a chart must not navigate; its content is kept);
 * - event handler attributes are always removed by DOMPurify;
 * - `href`/`xlink:href` only as same-document fragments (`#gradient`): no external resources,
 *   no `javascript:`, no `data:`.
 * A private DOMPurify instance keeps these hooks away from any DOMPurify the partner page uses.
 */
const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { svg: true, svgFilters: true },
  FORBID_TAGS: ['script', 'foreignObject', 'foreignobject', 'style', 'a', 'iframe'],
  FORBID_ATTR: ['style'],
  ALLOW_DATA_ATTR: true,
  RETURN_DOM_FRAGMENT: true,
};

let purifier: ReturnType<typeof DOMPurify> | undefined;

function instance(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook('uponSanitizeAttribute', (_node, data) => {
    const name = data.attrName.toLowerCase();
    if ((name === 'href' || name === 'xlink:href' || name === 'src') && !data.attrValue.trim().startsWith('#')) data.keepAttr = false;
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
