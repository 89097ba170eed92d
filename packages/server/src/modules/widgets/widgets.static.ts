import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../context.js';
import { fail } from '../../lib/envelope.js';
import { SERVER_ROOT } from '../../paths.js';

/** Where `npm run build -w @resale/widgets` writes the bundles. */
export const DEFAULT_WIDGETS_DIR = resolve(SERVER_ROOT, '../widgets/dist');

/** Entry files keep a stable name (partners' script tags point at them), so browsers revalidate them often. */
const ENTRY_MAX_AGE = 300;
/** Chunks carry a content hash in their name, so they never change: cached for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(?:js|map|css)$/;
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', map: 'application/json; charset=utf-8', css: 'text/css; charset=utf-8' };

interface Cached {
  mtimeMs: number;
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

/**
 * The widget bundles, served by the service at a stable path: `GET /widgets/v1/resale.js`
 * (the script-tag entry: `<script type="module" src="{service}/widgets/v1/resale.js">`) and
 * `GET /widgets/v1/chunks/<name>-<hash>.js` (loaded by it, the seat map among them).
 *
 * Module scripts are fetched in CORS mode, so every file answers
 * `Access-Control-Allow-Origin: *` (public code, no credentials) and
 * `Cross-Origin-Resource-Policy: cross-origin`. Entries revalidate after five minutes with an
 * ETag; hashed chunks are immutable. Files are read from disk when they change (mtime), so a
 * rebuild is served without a restart. Names are checked against a strict pattern: no path
 * ever leaves the folder.
 */
export function widgetRoutes(dir: string = DEFAULT_WIDGETS_DIR) {
  const app = new Hono<AppEnv>();
  const cache = new Map<string, Cached>();

  const read = (relative: string): Cached | null => {
    const file = join(dir, relative);
    let mtimeMs: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return null;
      mtimeMs = st.mtimeMs;
    } catch {
      return null;
    }
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit;
    const body = new Uint8Array(readFileSync(file));
    const entry = { mtimeMs, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    cache.set(file, entry);
    return entry;
  };

  const serve = (c: Context<AppEnv>, relative: string, name: string, cacheControl: string): Response => {
    const file = SAFE_NAME.test(name) ? read(relative) : null;
    if (!file) {
      // Answered here rather than thrown, so the router stands alone (tests mount it bare).
      const message = existsDir(dir) ? `No widget file '${name.slice(0, 100)}'` : 'The widgets are not built: run npm run build -w @resale/widgets';
      // With ACAO the page's console shows the 404 and its message, not an opaque CORS error.
      return c.json(fail(404, [{ code: 'not_found', message }]), 404, { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' });
    }
    const headers: Record<string, string> = {
      'Content-Type': TYPES[name.slice(name.lastIndexOf('.') + 1)]!,
      'Cache-Control': cacheControl,
      ETag: file.etag,
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'X-Content-Type-Options': 'nosniff',
    };
    if (c.req.header('if-none-match') === file.etag) return c.body(null, 304, headers);
    return c.body(file.body, 200, headers);
  };

  app.get('/widgets/v1/chunks/:name', (c) => serve(c, `chunks/${c.req.param('name')}`, c.req.param('name'), IMMUTABLE));
  app.get('/widgets/v1/:name', (c) => serve(c, c.req.param('name'), c.req.param('name'), `public, max-age=${ENTRY_MAX_AGE}`));
  return app;
}

function existsDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
