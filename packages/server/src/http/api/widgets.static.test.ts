import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest } from '../middleware/compression.testing.js';
import { createTestApp, listen } from '../../testing/harness.js';
import { widgetRoutes } from './widgets.static.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(files: Record<string, string | Buffer> | null) {
  const t = createTestApp();
  const root = mkdtempSync(join(tmpdir(), 'widgets-'));
  dirs.push(root);
  const dist = join(root, 'dist');
  if (files) {
    mkdirSync(join(dist, 'chunks'), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dist, name), text);
  }
  // A router of its own over the temporary folder, in front of the app's.
  const app = widgetRoutes(dist);
  const get = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers });
  return { t, get, dist };
}

describe('GET /widgets/v1/*', () => {
  it('serves the entry with a short cache and an ETag, and answers 304 when unchanged', async () => {
    const { get } = setup({ 'resale.js': 'export const x = 1;' });
    const res = await get('/widgets/v1/resale.js');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('export const x = 1;');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect((await get('/widgets/v1/resale.js', { 'if-none-match': etag })).status).toBe(304);
  });

  it('serves hashed chunks as immutable', async () => {
    const { get } = setup({ 'chunks/seat-map-AbC123.js': 'export default 1;' });
    const res = await get('/widgets/v1/chunks/seat-map-AbC123.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('picks up a rebuilt file without a restart', async () => {
    const { get, dist } = setup({ 'resale.js': 'one' });
    expect(await (await get('/widgets/v1/resale.js')).text()).toBe('one');
    writeFileSync(join(dist, 'resale.js'), 'two, longer');
    expect(await (await get('/widgets/v1/resale.js')).text()).toBe('two, longer');
  });

  it('never leaves the folder, and answers 404 for unknown files or an unbuilt package', async () => {
    const { get } = setup({ 'resale.js': 'x' });
    for (const path of ['/widgets/v1/..%2F..%2Fpackage.json', '/widgets/v1/chunks/..%2Fresale.js', '/widgets/v1/.env', '/widgets/v1/nope.js', '/widgets/v1/resale.ts']) {
      expect((await get(path)).status, path).toBe(404);
    }
    const unbuilt = setup(null);
    const res = await unbuilt.get('/widgets/v1/resale.js');
    expect(res.status).toBe(404);
    // Readable cross-origin, so a partner's console shows this rather than a CORS error.
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toContain('npm run build -w @resale/widgets');
  });

  it('is mounted by the app', async () => {
    const { t } = setup(null);
    const res = await t.app.request('/widgets/v1/definitely-missing-file.js');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('not_found');
  });

  describe('compressed', () => {
    const source = `export const greeting = ${JSON.stringify('Official resale. '.repeat(200))};`;
    const files = () => ({ 'resale.js': source, 'resale.js.br': brotliCompressSync(source), 'resale.js.gz': gzipSync(source) });

    it('serves the build\'s .br and .gz by Accept-Encoding over HTTP, with Vary, Content-Length and an ETag per coding', async () => {
      const { dist } = setup(files());
      const http = await listen(widgetRoutes(dist));
      try {
        const url = `${http.base}/widgets/v1/resale.js`;
        const br = await rawRequest(url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
        expect(br.status).toBe(200);
        expect(br.headers['content-encoding']).toBe('br');
        expect(br.headers.vary).toBe('Accept-Encoding');
        expect(br.headers['cache-control']).toBe('public, max-age=300');
        expect(br.headers['access-control-allow-origin']).toBe('*');
        expect(Number(br.headers['content-length'])).toBe(br.body.length);
        expect(br.body.equals(brotliCompressSync(source))).toBe(true);
        expect(brotliDecompressSync(br.body).toString()).toBe(source);

        const gz = await rawRequest(url, { 'accept-encoding': 'gzip' });
        expect(gz.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(gz.body).toString()).toBe(source);

        const plain = await rawRequest(url);
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.headers.vary).toBe('Accept-Encoding');
        expect(plain.body.toString()).toBe(source);

        for (const [accept, coding] of [
          ['br;q=0, gzip', 'gzip'],
          ['br;q=0.4, gzip;q=0.8', 'gzip'],
          ['zstd', undefined],
          ['br;q=0, gzip;q=0', undefined],
          ['identity;q=0, br', 'br'],
        ] as const) {
          expect((await rawRequest(url, { 'accept-encoding': accept })).headers['content-encoding'], accept).toBe(coding);
        }
        const refused = await rawRequest(url, { 'accept-encoding': 'identity;q=0, zstd' });
        expect(refused.status).toBe(406);
        expect(refused.headers.vary).toBe('Accept-Encoding');

        // One tag per coding; a 304 confirms only the bytes the client holds.
        const tags = [br.headers.etag, gz.headers.etag, plain.headers.etag];
        expect(new Set(tags).size).toBe(3);
        const revalidated = await rawRequest(url, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
        expect(revalidated.status).toBe(304);
        expect(revalidated.headers.etag).toBe(br.headers.etag);
        expect(revalidated.headers.vary).toBe('Accept-Encoding');
        expect(revalidated.body.length).toBe(0);
        expect((await rawRequest(url, { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) })).status).toBe(304);
        expect((await rawRequest(url, { 'if-none-match': `W/${String(plain.headers.etag)}` })).status).toBe(304);
        // The gzip bytes' tag does not confirm the Brotli ones.
        const other = await rawRequest(url, { 'accept-encoding': 'br', 'if-none-match': String(gz.headers.etag) });
        expect(other.status).toBe(200);
        expect(other.headers['content-encoding']).toBe('br');

        const head = await rawRequest(url, { 'accept-encoding': 'br' }, 'HEAD');
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        expect(head.headers['content-encoding']).toBe('br');
        expect(head.headers['content-length']).toBe(br.headers['content-length']);
      } finally {
        await http.close();
      }
    });

    it('compresses in memory when the build left no .br/.gz, or ones of another file', async () => {
      const { get, dist } = setup({ 'resale.js': source, 'resale.js.br': brotliCompressSync('export const old = 1;') });
      const br = await get('/widgets/v1/resale.js', { 'accept-encoding': 'br' });
      expect(br.headers.get('content-encoding')).toBe('br');
      expect(brotliDecompressSync(new Uint8Array(await br.arrayBuffer())).toString()).toBe(source);
      const gz = await get('/widgets/v1/resale.js', { 'accept-encoding': 'gzip' });
      expect(gunzipSync(new Uint8Array(await gz.arrayBuffer())).toString()).toBe(source);
      // A rebuild (new file, new .br) is picked up with the file.
      const next = source.replace('Official', 'Certified');
      writeFileSync(join(dist, 'resale.js.br'), brotliCompressSync(next));
      writeFileSync(join(dist, 'resale.js'), next);
      const again = await get('/widgets/v1/resale.js', { 'accept-encoding': 'br' });
      expect(brotliDecompressSync(new Uint8Array(await again.arrayBuffer())).toString()).toBe(next);
    });

    it('never serves the compressed files by their own names', async () => {
      const { get } = setup(files());
      expect((await get('/widgets/v1/resale.js.br')).status).toBe(404);
      expect((await get('/widgets/v1/resale.js.gz')).status).toBe(404);
    });
  });
});
