import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { widgetRoutes } from './widgets.static.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(files: Record<string, string> | null) {
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
});
