// Budgets of the script-tag build, min+gzip as served. The files come from dist/manifest.json, so
// hashed chunk names and shared chunks that Rolldown splits out are counted where they load:
// - core: resale.js and every chunk it imports statically (all components but the seat map);
// - seat map: its chunk and what it imports beyond the core (floating-ui included);
// - sanitiser: DOMPurify, loaded by the seat map only for an SVG chart;
// - chart view: the zoom and pan of an SVG chart, loaded beside the sanitiser (an image-only or
//   chart-less map never needs it).
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
const files = (keys) => [...keys].map((k) => `dist/${manifest[k].file}`);

const core = closure('src/index.ts');
const map = [...closure('src/seat-map.ts')].filter((k) => !core.has(k));
const sanitizer = [...closure('src/internal/sanitize-svg.ts')].filter((k) => !core.has(k));
const chartView = [...closure('src/components/seat-map/seat-map.view.ts')].filter((k) => !core.has(k));

export default [
  { name: 'core (resale.js + eager chunks)', path: files(core), gzip: true, limit: '20 KB' },
  { name: 'seat map chunk', path: files(map), gzip: true, limit: '15 KB' },
  { name: 'SVG sanitiser chunk (DOMPurify, SVG charts only)', path: files(sanitizer), gzip: true, limit: '13 KB' },
  { name: 'chart view chunk (zoom and pan, SVG charts only)', path: files(chartView), gzip: true, limit: '3 KB' },
];
