import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Config, DOMPurify } from 'dompurify';
import { keepSvgAttribute, SVG_SANITIZE_CONFIG } from '@resale/shared/svg-policy';

/**
 * The partner's seating chart (`seating.svgCode`), sanitised when it is received and stored
 * clean: the events schemas sanitise it while they validate (`POST`/`PUT /v1/events`, each pull
 * feed item), before the write transaction, and the events service runs every write (the API,
 * the feed, the manual load) through {@link cleanSvgChart} again, which for a chart already
 * clean is a hash and a memo hit. Every read (the event, the seat map data, the market page's
 * seatmap.json) serves the stored chart and sanitises nothing.
 *
 * The allow-list is the seat map widget's (`packages/shared/src/svg-policy.ts`):
 * shapes, groups, text, gradients and filters with their ids, classes and `data-*` attributes
 * stay; scripts, `<foreignObject>`, `<style>`, `<a>`, event handlers, `style` attributes and
 * every reference outside the document (`href`, `xlink:href`, `src` other than `#id`,
 * `url(…)` other than `url(#id)`) go. Without them a chart's markup cannot make the pages that
 * draw it report CSP violations, and the widget, which sanitises again (older rows, other
 * sources), finds nothing more to remove.
 *
 * DOMPurify needs a DOM: jsdom, the one its authors recommend on the server (their README calls
 * happy-dom "not considered safe"). jsdom is loaded on the first chart, so a
 * process that never receives a chart never pays for it; one window and one DOMPurify instance serve every chart after that.
 * The last results are remembered by the chart's hash, so a feed that sends the same chart on
 * every poll sanitises it once.
 */

/** The message of a chart refused as unusable (a validation error naming `seating.svgCode`). */
export const SVG_CHART_UNUSABLE =
  'must be an SVG chart: an <svg> root with shapes. Nothing usable is left once scripts, event handlers, <foreignObject>, <style>, links and references outside the chart are removed';

/**
 * The chart as stored: the sanitised root `<svg>` (markup), '' for an empty (or blank) chart,
 * or null when nothing usable is left (the caller answers 400 naming `seating.svgCode`).
 * Sanitising a clean chart again answers it unchanged.
 *
 * @example cleanSvgChart('<svg onload="alert(1)"><rect data-area="A"/></svg>') // '<svg><rect data-area="A"></rect></svg>'
 */
export function cleanSvgChart(code: string): string | null {
  if (code.trim() === '') return '';
  const key = digest(code);
  const hit = recent.get(key);
  if (hit !== undefined) {
    recent.delete(key); // most recent last
    recent.set(key, hit);
    return hit.clean;
  }
  const clean = sanitize(code);
  remember(key, { clean, chars: (clean?.length ?? 0) + 64 });
  // A clean chart is its own result: the service's second look (and a PUT of what GET answered) costs a hash.
  if (clean !== null && clean !== code) remember(digest(clean), { clean, chars: clean.length + 64 });
  return clean;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
/** An `<svg>` root sent with nothing inside it. */
const EMPTY_SVG = /^<svg\b[^<>]*(?:\/>|>\s*<\/svg>)$/i;
/** The memo of the last results, by the hash of the chart: at most this many charts, and characters in all (about 16 MB). */
const RECENT_MAX = 256;
const RECENT_MAX_CHARS = 8_000_000;
const recent = new Map<string, { clean: string | null; chars: number }>();
let recentChars = 0;

function digest(code: string): string {
  return createHash('sha256').update(code).digest('base64');
}

function remember(key: string, entry: { clean: string | null; chars: number }): void {
  const old = recent.get(key);
  if (old) recentChars -= old.chars;
  recent.delete(key);
  recent.set(key, entry);
  recentChars += entry.chars;
  while (recent.size > RECENT_MAX || (recentChars > RECENT_MAX_CHARS && recent.size > 1)) {
    const [oldest, value] = recent.entries().next().value!;
    recent.delete(oldest);
    recentChars -= value.chars;
  }
}

const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = { ...SVG_SANITIZE_CONFIG, RETURN_DOM_FRAGMENT: true };

function sanitize(code: string): string | null {
  const fragment = purifier().sanitize(code, CONFIG);
  const root = fragment.firstElementChild;
  // The widget's rule (a root that is not an SVG element is refused), and a chart must draw
  // something, unless it was sent empty (a placeholder the partner fills later): what is
  // refused is a chart that sanitising emptied.
  if (!root || root.localName !== 'svg' || root.namespaceURI !== SVG_NS) return null;
  if (root.firstElementChild === null && (strippedSomething() || !EMPTY_SVG.test(code.trim()))) return null;
  return root.outerHTML;
}

/** Whether the last sanitize removed an attribute or an element (DOMPurify also lists the document wrapper it parsed into). */
function strippedSomething(): boolean {
  return purifier().removed.some((r) => 'attribute' in r || !['BODY', 'HTML', 'HEAD'].includes((r as { element?: { nodeName: string } }).element?.nodeName ?? ''));
}

let instance: DOMPurify | undefined;

function purifier(): DOMPurify {
  if (instance) return instance;
  const require = createRequire(import.meta.url);
  const { JSDOM } = require('jsdom') as { JSDOM: new (html: string) => { window: unknown } };
  const createDOMPurify = require('dompurify') as (window: unknown) => DOMPurify;
  const purify = createDOMPurify(new JSDOM('<!DOCTYPE html>').window);
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    if (!keepSvgAttribute(data.attrName, data.attrValue)) data.keepAttr = false;
  });
  instance = purify;
  return purify;
}
