import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../middleware/compression.testing.js';
import { createTestApp, listen, type Listening } from '../../testing/harness.js';
import { DEFAULT_WIDGETS_DIR } from './widgets.static.js';

/**
 * The widgets' size budgets (packages/widgets/.size-limit.js) checked on what the running
 * service sends: the built bundles requested over HTTP with `Accept-Encoding: br` and with
 * `gzip`, the bytes on the wire summed per budget and each file decoded back to the very file
 * in dist. Needs `npm run build -w @resale/widgets` first (npm test builds before it tests).
 */
interface Budget {
  name: string;
  limit: string;
  /** Files under dist, as in dist/manifest.json. */
  files: string[];
}

/** size-limit's "20 KB": read as 1,000-byte kilobytes, the smaller reading (size-limit prints kB). */
function bytesOf(limit: string): number {
  const m = /^([\d.]+)\s*(B|KB|kB)$/.exec(limit.trim());
  if (!m) throw new Error(`Unreadable limit ${limit}`);
  return Number(m[1]) * (m[2] === 'B' ? 1 : 1000);
}

const SIZE_LIMIT = join(DEFAULT_WIDGETS_DIR, '../.size-limit.js');

describe('widget bundles on the wire', () => {
  let http: Listening;
  let budgets: Budget[];

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WIDGETS_DIR, 'manifest.json'))) throw new Error('The widgets are not built: run npm run build -w @resale/widgets');
    budgets = ((await import(pathToFileURL(SIZE_LIMIT).href)) as { budgets: Budget[] }).budgets;
    http = await listen(createTestApp().app);
  });
  afterAll(async () => await http?.close());

  for (const [accept, coding, decode] of [
    ['br', 'br', brotliDecompressSync],
    ['gzip', 'gzip', gunzipSync],
    ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
  ] as const) {
    it(`sends resale.js and the seat map within the budgets with Accept-Encoding: ${accept}`, async () => {
      const names = budgets.map((b) => b.name);
      expect(names).toContain('core (resale.js + eager chunks)');
      expect(names).toContain('seat map chunk');
      for (const budget of budgets) {
        let wire = 0;
        for (const file of budget.files) {
          const path = `/widgets/v1/${file}`;
          const res = await rawRequest(`${http.base}${path}`, { 'accept-encoding': accept });
          expect(res.status, path).toBe(200);
          expect(res.headers['content-encoding'], path).toBe(coding);
          expect(res.headers.vary, path).toBe('Accept-Encoding');
          expect(Number(res.headers['content-length']), path).toBe(res.body.length);
          expect(decode(res.body).equals(readFileSync(join(DEFAULT_WIDGETS_DIR, file))), `${path} decodes to the built file`).toBe(true);
          wire += res.body.length;
        }
        expect(wire, `${budget.name}: ${wire} bytes with ${accept}`).toBeLessThanOrEqual(bytesOf(budget.limit));
      }
    });
  }

  it('counts resale.js in the core and the seat map chunk in its own budget', () => {
    const core = budgets.find((b) => b.name.startsWith('core'))!;
    const map = budgets.find((b) => b.name === 'seat map chunk')!;
    expect(core.files).toContain('resale.js');
    expect(map.files.some((f) => /^chunks\/seat-map-[\w-]+\.js$/.test(f))).toBe(true);
  });
});
