import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../context.js';

/**
 * The API reference (`GET /docs`), served entirely from the service's own origin.
 *
 * Why not a CDN: the page shares its origin with the hosted pages, whose cookies carry fans'
 * sessions. A script pulled from a CDN at "latest" (no version, no integrity) would run with
 * that origin's authority, change under us without a release, and leave the page blank
 * offline. So the reference is the npm package `@scalar/api-reference`, pinned to an exact
 * version in package.json (an upgrade is a reviewed change to the lock file), and its
 * standalone browser bundle is served by us under a versioned path:
 *
 * - `GET /docs` — a static HTML page: no inline script at all. The bundle reads its settings
 *   from the `<script id="api-reference" type="application/json" data-url data-configuration>`
 *   element (a data block: browsers never execute it) and fetches the OpenAPI document from
 *   `/v1/openapi.json`. The page answers a strict Content-Security-Policy ({@link DOCS_CSP}).
 * - `GET /docs/assets/api-reference-<version>.js` — the bundle, immutable for a year (the
 *   version is in its name), with an ETag and a gzip variant, `nosniff`.
 *
 * The bundle (4 MB) is read and compressed on the first request for it, not at start: most
 * processes, and every test app, never serve it.
 *
 * @example
 * app.route('/', docsRoutes({ openApiPath: '/v1/openapi.json', title: 'resale API reference' }));
 */
export function docsRoutes(opts: { openApiPath: string; title: string }) {
  const app = new Hono<AppEnv>();
  const bundle = scalarBundle();
  const page = docsPage({ ...opts, scriptPath: bundle.path });

  app.get('/docs', (c) => {
    return c.html(page, 200, {
      'Content-Security-Policy': DOCS_CSP,
      // Revalidated each time, so a new bundle path after an upgrade reaches browsers at once.
      'Cache-Control': 'no-cache',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    });
  });

  app.get(bundle.path, async (c) => serveBundle(c, await bundle.load()));
  return app;
}

/**
 * The policy of `/docs`: nothing from any other origin.
 *
 * - `script-src 'self'`: only the bundle we serve; no inline script, no `eval`. The bundle
 *   needs neither (checked in Chromium): its Vue is the runtime build, and the one `eval` it
 *   tries is zod's probe `try { Function('') } catch {}`, which falls back to plain code when
 *   refused (a console report, nothing broken).
 * - `style-src 'self' 'unsafe-inline'`: the one relaxation, and the page is unstyled without
 *   it (checked in Chromium). The bundle injects its stylesheet and the theme's variables as
 *   `<style>` elements at run time and renders `style` attributes; their text depends on the
 *   theme, the configuration and the document, so hashes cannot list them. Inline style
 *   cannot run script; with no other origin anywhere in the policy and no user data on the
 *   page, it has nothing to exfiltrate nor anywhere to send it.
 * - `connect-src 'self'`: the OpenAPI document, and the "test request" client, which calls the
 *   service itself (the document's server is `PUBLIC_BASE_URL`).
 * - `img-src`/`font-src` `'self' data:`: the bundle's icons are data: URIs; the default web
 *   fonts (fonts.scalar.com) are switched off in the configuration, so system fonts are used.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Settings of the reference. Every feature that would reach a third party is off: the default
 * web fonts, telemetry, the hosted agent chat and MCP integration; the developer toolbar is
 * not for readers of our reference.
 */
const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: false,
} as const;

/** `&`, `<`, `>`, `"` and `'` escaped, for an attribute value or text. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function docsPage(opts: { openApiPath: string; title: string; scriptPath: string }): string {
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    // No favicon request (a 404 in every visitor's console).
    '<link rel="icon" href="data:,">' +
    `<title>${escapeHtml(opts.title)}</title></head><body>` +
    // A data block (type application/json, empty): the bundle finds it by id and reads the
    // attributes; a browser never runs it, so the policy needs no inline-script allowance.
    `<script id="api-reference" type="application/json" data-url="${escapeHtml(opts.openApiPath)}" data-configuration="${escapeHtml(JSON.stringify(SCALAR_CONFIGURATION))}"></script>` +
    `<script src="${escapeHtml(opts.scriptPath)}"></script>` +
    '</body></html>'
  );
}

interface LoadedBundle {
  body: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
  etag: string;
}

/** The bundle's versioned path (known at once) and its bytes (read on first use, then kept). */
function scalarBundle(): { path: string; load: () => Promise<LoadedBundle> } {
  const location = locateBundle();
  return { path: `/docs/assets/api-reference-${location.version}.js`, load: () => (loaded ??= readBundle(location.file)) };
}

/** One copy per process, shared by every app built in it (tests build hundreds). */
let loaded: Promise<LoadedBundle> | undefined;
let located: { file: string; version: string } | undefined;

function locateBundle(): { file: string; version: string } {
  if (located) return located;
  // The package exports only its ESM entry (dist/index.js); the browser bundle sits beside it
  // in dist/browser/ (the file its package.json names as `browser`, the one CDNs serve).
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  const root = join(dirname(entry), '..');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; browser?: string };
  if (!/^[0-9A-Za-z.+-]+$/.test(pkg.version)) throw new Error(`Unexpected @scalar/api-reference version ${pkg.version}`);
  located = { file: join(root, pkg.browser ?? 'dist/browser/standalone.js'), version: pkg.version };
  return located;
}

async function readBundle(file: string): Promise<LoadedBundle> {
  const body = new Uint8Array(readFileSync(file));
  // Compressed off the main thread (zlib's pool): 4 MB of JavaScript is about 1 MB gzipped.
  const gzipped = new Uint8Array(await promisify(gzip)(body, { level: 9 }));
  return { body, gzipped, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

function serveBundle(c: Context<AppEnv>, bundle: LoadedBundle): Response {
  const headers: Record<string, string> = {
    'Content-Type': 'text/javascript; charset=utf-8',
    // The version is in the path: the content behind it never changes.
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: bundle.etag,
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
    // Only our own pages load it.
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
  if (matchesEtag(c.req.header('if-none-match'), bundle.etag)) return c.body(null, 304, headers);
  if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
    return c.body(bundle.gzipped, 200, { ...headers, 'Content-Encoding': 'gzip' });
  }
  return c.body(bundle.body, 200, headers);
}

/** `If-None-Match` holds our tag (a list, weak tags and `*` as RFC 9110 allows). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}
