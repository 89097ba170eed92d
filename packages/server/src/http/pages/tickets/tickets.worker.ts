/**
 * The secure ticket view's service worker, served at `/tickets/sw.js` with the scope
 * `/tickets/view/` and registered by the rotating code's script (@resale/widgets
 * src/hosted/ticket-code.ts). Its one job: a holder who opened their ticket once while online
 * can reload it at a gate without signal. The code itself needs no network (the phone's keys
 * and certificate are in IndexedDB); this keeps the page and the code's script.
 *
 * - A view (`/tickets/view/<token>`, a navigation): the network first, and its answer kept (one
 *   copy per view, whatever its `?lang=`); without network, the copy. A view the service
 *   answers 404 (the ticket changed hands) is dropped from the cache at once, so the seller's
 *   phone does not keep a page that no longer exists.
 * - The code's script and its chunks (`/widgets/v1/…`) fetched by a view: the same, network
 *   first (a new release reaches the next online load), the copy offline.
 * - Everything else (the code's status and certificate, images): not touched.
 *
 * Plain JavaScript in a string, like the pages' script (page-script.ts): it is short, the
 * server never runs it, and no build step stands between this file and the browser. Bump
 * `CACHE` when what it keeps changes shape: the old cache is deleted on activation.
 */
export const TICKET_WORKER_SCRIPT = `'use strict';
var CACHE = 'resale-ticket-views-1';
self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n.indexOf('resale-ticket-views-') === 0 && n !== CACHE; }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});
self.addEventListener('fetch', function (event) {
  var req = event.request;
  if (req.method !== 'GET') return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  var view = req.mode === 'navigate' && /^\\/tickets\\/view\\/[^/]+$/.test(url.pathname);
  var script = /^\\/widgets\\/v1\\/(?:ticket-code\\.js|chunks\\/[^/]+\\.js)$/.test(url.pathname);
  if (!view && !script) return;
  var key = url.origin + url.pathname;
  event.respondWith(caches.open(CACHE).then(function (cache) {
    return fetch(req).then(function (res) {
      if (res.ok) cache.put(key, res.clone());
      else if (view && res.status === 404) cache.delete(key);
      return res;
    }, function (err) {
      return cache.match(key).then(function (hit) { if (hit) return hit; throw err; });
    });
  }));
});
`;
