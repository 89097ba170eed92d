/**
 * The seat map with 20,000 seats (issue 19): the time from data to the first interactive render
 * of `<resale-seat-map>` in Chromium, for a chart of 4 sections x 50 rows x 100 seats, with
 * 2,000 seats for sale (single-seat listings, a busy resale market) and with all 20,000 for
 * sale (the worst case). Target < 300 ms.
 *
 * What is timed, in the page: `el.data = data` on a connected element, until `resale-ready`
 * and the next frame is painted (rAF, then a task): the chart sanitised (DOMPurify), drawn and
 * decorated (states, names, focus), i.e. a seat answers a click. The chunks are loaded by a
 * warm-up run first (a network fetch is not the widget's cost); then the median of 5 runs, each
 * a fresh element with a chart the page has not seen (the sanitiser remembers the last chart).
 * Then "click": a click on a seat for sale until the next painted frame (the map stays
 * interactive); and "same chart again": a fresh element given the same data (a reload of the
 * offers), where the sanitised chart is reused.
 *
 * The widgets are built from the current sources into a temporary directory (vite), served by
 * a static server; Chromium is Debian's (`/usr/bin/chromium`, playwright-core: no download).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './lib.js';

const SECTIONS = 4;
const ROWS = 50;
const SEATS = 100;
const RUNS = 5;

/** The chart and the map data: `forSale` seats spread evenly, one listing each. */
export function seatMapFixture(forSale: number): unknown {
  const pitch = 10;
  const sectionWidth = SEATS * pitch + 40;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SECTIONS * sectionWidth} ${ROWS * pitch + 60}">`];
  const listings: unknown[] = [];
  const every = Math.max(1, Math.floor((SECTIONS * ROWS * SEATS) / forSale));
  let n = 0;
  for (let s = 0; s < SECTIONS; s++) {
    const section = `S${s + 1}`;
    const x0 = s * sectionWidth;
    parts.push(`<g data-area="${section}" data-section="${section}"><rect x="${x0 + 5}" y="30" width="${sectionWidth - 10}" height="${ROWS * pitch + 20}" rx="8"/>`);
    for (let r = 0; r < ROWS; r++) {
      const row = String(r + 1);
      const y = 45 + r * pitch;
      parts.push(`<g data-row="${row}"><text x="${x0 + 20}" y="${y + 3}" font-size="8" text-anchor="end">${row}</text>`);
      for (let k = 0; k < SEATS; k++) {
        const seat = String(k + 1);
        parts.push(`<circle data-seat="${seat}" cx="${x0 + 30 + k * pitch}" cy="${y}" r="4"/>`);
        if (n++ % every === 0 && listings.length < forSale) {
          listings.push({ listingId: `lst_${section}_${row}_${seat}`, ticketOptionId: `opt-${section}`, area: section, quantity: 1, price: 40 + s * 10, currency: 'EUR', seats: [{ section, row, seat }] });
        }
      }
      parts.push('</g>');
    }
    parts.push('</g>');
  }
  parts.push('</svg>');
  const areas = Array.from({ length: SECTIONS }, (_, s) => {
    const area = `S${s + 1}`;
    const count = listings.filter((l) => (l as { area: string }).area === area).length;
    return { area, quantityForSale: count, floorPrice: count > 0 ? 40 + s * 10 : 0, currency: 'EUR', ticketOptionIds: [`opt-${area}`] };
  });
  return {
    eventId: 'bench',
    showId: 'show-1',
    chart: { svgCode: parts.join(''), image: null },
    config: { allowOrphanTicketSelection: true },
    areas,
    listings,
    selectUrl: 'http://bench.local/market/ptr_1/bench?showId=show-1',
  };
}

async function buildWidgets(outDir: string): Promise<void> {
  const child = spawn('npx', ['vite', 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: join(ROOT, 'packages/widgets'), stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`vite build exited with ${code}`);
}

/**
 * The timed runs, in the page. A string, not a function: tsx compiles functions with helpers
 * (`__name`) that do not exist in the page.
 */
const IN_PAGE = `async (data, runs) => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  let run = 0;
  const render = async (copy) => {
    document.body.replaceChildren();
    await frame();
    const el = document.createElement('resale-seat-map');
    document.body.append(el);
    const t0 = performance.now();
    const ready = new Promise((resolve) => el.addEventListener('resale-ready', resolve, { once: true }));
    el.data = copy;
    await ready;
    await frame();
    return { el, ms: performance.now() - t0 };
  };
  const once = async () => {
    // A chart never seen by the page (the sanitiser remembers the last one): the cold path.
    const copy = structuredClone(data);
    copy.chart.svgCode = copy.chart.svgCode.replace('<svg ', '<svg data-run="' + run++ + '" ');
    const cold = await render(copy);
    // A click on a seat for sale, until the next painted frame with the seat picked; after the
    // map has settled (it measures its seats once the first frame is drawn).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const seat = cold.el.shadowRoot.querySelector('[data-seat][role="button"]');
    const t1 = performance.now();
    seat.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    await frame();
    const click = performance.now() - t1;
    if (cold.el.selection.length !== 1) throw new Error('the click picked nothing');
    // The same chart again with its offers (a reload, a live update of the offers).
    const warm = await render(structuredClone(copy));
    return { render: cold.ms, click, warm: warm.ms };
  };
  await once(); // warm-up: the chunks, JIT
  const out = [];
  for (let i = 0; i < runs; i++) out.push(await once());
  return out;
}`;

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.json': 'application/json' };

export async function run(): Promise<Record<string, number>> {
  const dist = mkdtempSync(join(tmpdir(), 'resale-seatmap-bench-'));
  await buildWidgets(dist);
  const manifest = JSON.parse(readFileSync(join(dist, 'manifest.json'), 'utf8')) as Record<string, { file: string }>;
  const chunk = manifest['src/seat-map.ts']!.file;
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head><body style="margin:0;width:1280px"></body></html>`;
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!));
    if (path === '/' || path === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      return;
    }
    let body: Buffer;
    try {
      body = readFileSync(join(dist, path));
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
  const figures: Record<string, number> = {};
  try {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await tab.goto(`http://127.0.0.1:${port}/`);
    await tab.evaluate(async (src) => {
      await import(src);
    }, `/${chunk}`);
    for (const forSale of [2_000, 20_000]) {
      const data = seatMapFixture(forSale);
      const times = (await tab.evaluate(`(${IN_PAGE})(${JSON.stringify(data)}, ${RUNS})`)) as { render: number; click: number; warm: number }[];
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      figures[`render${forSale}`] = median(times.map((t) => t.render));
      figures[`click${forSale}`] = median(times.map((t) => t.click));
      figures[`warm${forSale}`] = median(times.map((t) => t.warm));
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(dist, { recursive: true, force: true });
  }
  console.log(`seatmap: ${SECTIONS * ROWS * SEATS} seats in Chromium, median of ${RUNS} (target: render < 300 ms)`);
  for (const forSale of [2_000, 20_000]) {
    const f = (name: string) => `${figures[`${name}${forSale}`]!.toFixed(0)} ms`;
    console.log(`  ${forSale.toLocaleString('en').padStart(6)} for sale   data -> interactive render ${f('render')}   click -> painted ${f('click')}   same chart again ${f('warm')}`);
  }
  return figures;
}
