// Budgets of the script-tag build, measured on the bytes the service sends: the `.br` and `.gz`
// files the build writes beside each bundle (vite.shared.ts, Brotli 11 and gzip 9), counted as
// they are on disk (`brotli: false`: no compression by size-limit itself). The service serves the
// `.br` to every browser that accepts Brotli (all current ones) and the `.gz` to the others
// (widgets.static.ts); both must fit, and a test requests them from the running service
// (packages/server/src/http/api/widgets.wire.test.ts). The files come from dist/manifest.json, so
// hashed chunk names and shared chunks that Rolldown splits out are counted where they load:
// - core: resale.js and every chunk it imports statically (all components but the seat map);
// - seat map: its chunk and what it imports beyond the core (floating-ui included);
// - sanitiser: DOMPurify, loaded by the seat map only for an SVG chart;
// - chart view: the zoom and pan of an SVG chart and the colours of its seats (the contrast
//   arithmetic), loaded beside the sanitiser (an image-only or chart-less map never needs it).
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('./dist/manifest.json', import.meta.url), 'utf8'));

/** The file of a manifest entry and of everything it imports statically. */
function closure(key, seen = new Set()) {
  const entry = manifest[key];
  if (!entry || seen.has(key)) return seen;
  seen.add(key);
  for (const dep of entry.imports ?? []) closure(dep, seen);
  return seen;
}
/** The served files of manifest entries: `suffix` is `.br` or `.gz`. */
const files = (keys, suffix) => [...keys].map((k) => `dist/${manifest[k].file}${suffix}`);

const core = closure('src/index.ts');
const map = [...closure('src/seat-map.ts')].filter((k) => !core.has(k));
const sanitizer = [...closure('src/internal/sanitize-svg.ts')].filter((k) => !core.has(k));
const chartView = [...closure('src/components/seat-map/seat-map.view.ts')].filter((k) => !core.has(k));

/** The budgets, in bytes a fan downloads; `name` and `keys` are what the service test reads too. */
export const budgets = [
  { name: 'core (resale.js + eager chunks)', keys: [...core], limit: '20 KB' },
  { name: 'seat map chunk', keys: map, limit: '15 KB' },
  { name: 'SVG sanitiser chunk (DOMPurify, SVG charts only)', keys: sanitizer, limit: '13 KB' },
  { name: 'chart view chunk (zoom and pan, SVG charts only)', keys: chartView, limit: '3 KB' },
].map((b) => ({ ...b, files: b.keys.map((k) => manifest[k].file) }));

/**
 * The scripts of the service's own pages (vite.hosted.config.ts, one file each, outside the
 * manifest): the ticket view's rotating code (lean-qr, idb-keyval and the code's WebCrypto),
 * loaded on a phone at the gate, maybe on a weak signal; the venue's scanner page, and its QR
 * decoder where the browser has none.
 */
const hosted = [
  { name: 'ticket view rotating code (ticket-code.js)', file: 'ticket-code.js', limit: '7 KB' },
  { name: 'venue scanner page (door.js)', file: 'door.js', limit: '8 KB' },
  // Loaded only by a door whose browser reads no QR code itself (no BarcodeDetector), once: jsQR.
  { name: 'venue scanner page QR decoder (door-qr.js)', file: 'door-qr.js', limit: '48 KB' },
];

export default [
  ...budgets.flatMap((b) => [
    { name: `${b.name}, brotli as served`, path: files(b.keys, '.br'), brotli: false, limit: b.limit },
    { name: `${b.name}, gzip as served`, path: files(b.keys, '.gz'), brotli: false, limit: b.limit },
  ]),
  ...hosted.flatMap((h) => [
    { name: `${h.name}, brotli as served`, path: `dist/${h.file}.br`, brotli: false, limit: h.limit },
    { name: `${h.name}, gzip as served`, path: `dist/${h.file}.gz`, brotli: false, limit: h.limit },
  ]),
];
