import type { Config } from 'dompurify';

/**
 * What a partner's seating chart may keep: the one allow-list of the seat map widget (which
 * sanitises again before drawing) and of the server (which sanitises the chart when it is
 * received and stores the clean one), so both agree on what a chart is. No DOM here: the widget
 * runs it with the page's DOMPurify, the server with DOMPurify over jsdom.
 *
 * DOMPurify with the SVG profile (shapes, groups, text, gradients, filters; ids, classes), plus:
 * - no `<script>`, `<foreignObject>` (HTML inside SVG), `<style>` or `style` attributes (CSS
 *   inside the shadow root could restyle or hide the map's own controls; and a strict CSP blocks
 *   inline styles anyway), no `<a>` (a chart must not navigate; its content is kept), no
 *   `<iframe>`;
 * - event handler attributes are always removed by DOMPurify, and `data-*` kept (the seat map
 *   reads `data-area`, `data-section`, `data-row`, `data-seat`);
 * - references only to the same document: `href`/`xlink:href`/`src` only as fragments
 *   (`#gradient`), `url(…)` in attributes (`fill`, `filter`, `clip-path`, `mask`, markers) only
 *   as `url(#id)`: no external resources, no `javascript:`, no `data:` (see {@link keepSvgAttribute}).
 */
export const SVG_SANITIZE_CONFIG = {
  USE_PROFILES: { svg: true, svgFilters: true },
  FORBID_TAGS: ['script', 'foreignObject', 'foreignobject', 'style', 'a', 'iframe'],
  FORBID_ATTR: ['style'],
  ALLOW_DATA_ATTR: true,
} as const satisfies Config;

/** Attributes whose value is a URL. */
const URL_ATTRIBUTES = new Set(['href', 'xlink:href', 'src']);
/** Each `url(…)` reference of a CSS-valued attribute, with what it points to. */
const CSS_URL = /url\s*\(\s*['"]?\s*([^'")\s]*)/gi;

/**
 * Whether the attribute `name="value"` may stay on a chart element (run as DOMPurify's
 * `uponSanitizeAttribute` hook, after DOMPurify's own checks).
 *
 * @example
 * keepSvgAttribute('fill', 'url(#g)'); // true
 * keepSvgAttribute('xlink:href', 'https://evil.example/s.svg#x'); // false
 */
export function keepSvgAttribute(name: string, value: string): boolean {
  const attr = name.toLowerCase();
  if (URL_ATTRIBUTES.has(attr)) return value.trim().startsWith('#');
  // CSS escapes (`u\72 l(`) could hide a url( from the check below; no chart needs them.
  if (value.includes('\\') && value.includes('(')) return false;
  for (const [, target] of value.matchAll(CSS_URL)) if (!target!.startsWith('#')) return false;
  return true;
}
