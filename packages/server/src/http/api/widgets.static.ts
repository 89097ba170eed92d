import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../context.js';
import { fail } from '../../lib/envelope.js';
import { encodeSync, negotiateEncoding, withCoding, type Encoding } from '../../lib/compression.js';
import { acceptEncodingOf } from '../middleware/compression.js';
import { SERVER_ROOT } from '../../lib/paths.js';

/** Where `npm run build -w @resale/widgets` writes the bundles. */
export const DEFAULT_WIDGETS_DIR = resolve(SERVER_ROOT, '../widgets/dist');

/** Entry files keep a stable name (partners' script tags point at them), so browsers revalidate them often. */
const ENTRY_MAX_AGE = 300;
/** Chunks carry a content hash in their name, so they never change: cached for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(?:js|map|css)$/;
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', map: 'application/json; charset=utf-8', css: 'text/css; charset=utf-8' };
/** The codings on offer, in the order of the files the build writes beside each bundle (`.br`, `.gz`). */
const CODINGS: readonly Encoding[] = ['br', 'gzip'];
const SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz' };
const DECODE: Record<Encoding, (b: Uint8Array) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };
/** What the build uses (the widgets' vite.shared.ts): the maximum, since it is paid once per file, not per request. */
const MAX_QUALITY: Record<Encoding, number> = { br: 11, gzip: 9 };

/** One representation of a file: its bytes and their tag. */
interface Representation {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

interface Cached {
  mtimeMs: number;
  identity: Representation;
  encoded: Record<Encoding, Representation>;
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
 *
 * Compression: the build writes `<file>.br` and `<file>.gz` beside each bundle at maximum
 * quality (the widgets' vite.shared.ts); they are served by `Accept-Encoding` (Brotli first, q-values
 * honoured, see negotiateEncoding) with `Vary: Accept-Encoding`, their own `Content-Length` and
 * an ETag per coding (`"<hash>-br"`, `"<hash>-gzip"`), so a 304 only ever confirms the bytes the
 * client holds. A pre-compressed file is used only when it decodes to the very file beside it
 * (checked once per change); a missing or stale one is made in memory at the same quality.
 * A client that refuses identity and accepts neither coding gets 406.
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
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const encoded = {} as Record<Encoding, Representation>;
    for (const coding of CODINGS) encoded[coding] = { body: precompressed(file, coding, body) ?? encodeSync(body, coding, MAX_QUALITY[coding]), etag: withCoding(etag, coding) };
    const entry: Cached = { mtimeMs, identity: { body, etag }, encoded };
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
      Vary: 'Accept-Encoding',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'X-Content-Type-Options': 'nosniff',
    };
    const coding = negotiateEncoding(acceptEncodingOf(c), CODINGS);
    if (coding === null) {
      return c.json(fail(406, [{ code: 'invalid_value', message: 'Accept-Encoding allows none of br, gzip, identity', path: 'accept-encoding', in: 'header' }]), 406, { 'Access-Control-Allow-Origin': '*', Vary: 'Accept-Encoding' });
    }
    const chosen = coding === 'identity' ? file.identity : file.encoded[coding];
    headers.ETag = chosen.etag;
    if (matchesEtag(c.req.header('if-none-match'), chosen.etag)) return c.body(null, 304, headers);
    if (coding !== 'identity') headers['Content-Encoding'] = coding;
    headers['Content-Length'] = String(chosen.body.byteLength);
    return c.body(chosen.body, 200, headers);
  };

  app.get('/widgets/v1/chunks/:name', (c) => serve(c, `chunks/${c.req.param('name')}`, c.req.param('name'), IMMUTABLE));
  app.get('/widgets/v1/:name', (c) => serve(c, c.req.param('name'), c.req.param('name'), `public, max-age=${ENTRY_MAX_AGE}`));
  return app;
}

/** The build's `<file>.br` / `<file>.gz` when it decodes to `body` exactly, else null (missing, or left from another build). */
function precompressed(file: string, coding: Encoding, body: Uint8Array): Uint8Array<ArrayBuffer> | null {
  try {
    const encoded = new Uint8Array(readFileSync(file + SUFFIX[coding]));
    return Buffer.from(DECODE[coding](encoded)).equals(body) ? encoded : null;
  } catch {
    return null;
  }
}

/** `If-None-Match` holds the tag (a list; weak comparison, as RFC 9110 §13.1.2 asks for GET; `*`). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

function existsDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
