import type { Context } from 'hono';

/**
 * The service workers of the pages that must load without network: the secure ticket view
 * (a holder reloading their code at a gate without signal) and the venue's scanner page (a
 * door that lost its network). One worker per page, each made here from what it keeps:
 *
 * - the page itself (a navigation whose path matches `page`): the network first, and its
 *   answer kept (one copy per path, whatever its query, such as `?lang=`); without network,
 *   the copy. With `dropOn404`, a page the service answers 404 (a ticket that changed hands) is
 *   dropped from the cache at once, so the seller's phone does not keep a page that no longer
 *   exists.
 * - the page's script and its chunks (`/widgets/v1/<script>.js`, `/widgets/v1/chunks/…`): the
 *   same, network first (a new release reaches the next online load), the copy offline.
 * - everything else (the API, images): not touched: what those scripts keep offline they keep
 *   themselves (IndexedDB).
 * - a message `{keep: [path, …]}` from the page's script: those of the paths above fetched and
 *   kept now (the load that registered the worker did not pass through it).
 *
 * Plain JavaScript in a string, like the pages' script (page-script.ts): it is short, the
 * server never runs it, and no build step stands between this file and the browser. Bump a
 * worker's `version` when what it keeps changes shape: its old cache is deleted on activation.
 */
export interface OfflineWorker {
  /** Where the worker is served (its URL). */
  path: string;
  /** The paths it controls (`navigator.serviceWorker.register(path, { scope })`). */
  scope: string;
  /** The name of its caches (`<cache>-<version>`). */
  cache: string;
  version: number;
  /** A regular expression (its source) of the page's paths. */
  page: string;
  /** The page's scripts under `/widgets/v1/`, without `.js`: its own first ({@link pageScriptOf}), then any it loads (the door's QR decoder). */
  scripts: readonly [string, ...string[]];
  dropOn404: boolean;
}

/** The secure ticket view's worker (`/tickets/view/<token>`, the rotating code's script). */
export const TICKET_WORKER: OfflineWorker = { path: '/tickets/sw.js', scope: '/tickets/view/', cache: 'resale-ticket-views', version: 1, page: '^/tickets/view/[^/]+$', scripts: ['ticket-code'], dropOn404: true };

/** The venue's scanner page's worker (`/door`, its script and the QR decoder it loads where the browser has none); served under `/door/` with `Service-Worker-Allowed` for the scope `/door`. */
export const DOOR_WORKER: OfflineWorker = { path: '/door/sw.js', scope: '/door', cache: 'resale-door', version: 1, page: '^/door$', scripts: ['door', 'door-qr'], dropOn404: false };

/** Where the page of worker `w` loads its own script from (`/widgets/v1/<name>.js`, built by @resale/widgets' vite.hosted.config.ts). */
export function pageScriptOf(w: OfflineWorker): string {
  return `/widgets/v1/${w.scripts[0]}.js`;
}

/** The worker's script (see the module comment). */
export function offlineWorkerScript(w: OfflineWorker): string {
  const script = `^/widgets/v1/(?:(?:${w.scripts.map((name) => name.replace(/\./g, '\\.')).join('|')})\\.js|chunks/[^/]+\\.js)$`;
  return `'use strict';
var PREFIX = ${JSON.stringify(`${w.cache}-`)};
var CACHE = PREFIX + ${JSON.stringify(String(w.version))};
var PAGE = new RegExp(${JSON.stringify(w.page)});
var SCRIPT = new RegExp(${JSON.stringify(script)});
var DROP_ON_404 = ${w.dropOn404 ? 'true' : 'false'};
self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n.indexOf(PREFIX) === 0 && n !== CACHE; }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});
// A page's script asks, once the worker is active, to keep the page and itself: the load that
// registered the worker did not go through it, so nothing of it was kept yet. Only the paths this
// worker keeps anyway are taken.
self.addEventListener('message', function (event) {
  var paths = event.data && Array.isArray(event.data.keep) ? event.data.keep : [];
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(paths.filter(function (p) { return typeof p === 'string' && (PAGE.test(p) || SCRIPT.test(p)); }).map(function (p) {
      var url = new URL(p, self.location.origin);
      return fetch(url.href, { credentials: 'same-origin' }).then(function (res) { if (res.ok) return cache.put(url.origin + url.pathname, res); }, function () {});
    }));
  }));
});
self.addEventListener('fetch', function (event) {
  var req = event.request;
  if (req.method !== 'GET') return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  var page = req.mode === 'navigate' && PAGE.test(url.pathname);
  var script = SCRIPT.test(url.pathname);
  if (!page && !script) return;
  var key = url.origin + url.pathname;
  event.respondWith(caches.open(CACHE).then(function (cache) {
    return fetch(req).then(function (res) {
      if (res.ok) cache.put(key, res.clone());
      else if (page && DROP_ON_404 && res.status === 404) cache.delete(key);
      return res;
    }, function (err) {
      return cache.match(key).then(function (hit) { if (hit) return hit; throw err; });
    });
  }));
});
`;
}

/**
 * Answers a worker's script: never cached by HTTP (a new release reaches the next load), its
 * own policy for its fetches (the service only), and the scope it may take beyond its folder.
 */
export function serveOfflineWorker(c: Context, w: OfflineWorker): Response {
  c.header('Content-Type', 'text/javascript; charset=utf-8');
  c.header('Cache-Control', 'no-cache');
  c.header('Content-Security-Policy', "default-src 'none'; connect-src 'self'");
  if (!w.scope.startsWith(w.path.slice(0, w.path.lastIndexOf('/') + 1))) c.header('Service-Worker-Allowed', w.scope);
  return c.body(offlineWorkerScript(w));
}
