import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The Node request listener of the app, with its fast paths.
 *
 * A fast path answers a request from Node's own objects before the app sees it: no Request or
 * Response object, no middleware chain, no router. It exists for the one answer an on-sale
 * asks for thousands of times a second from memory (the buy access layer's cached answer,
 * accesslayer.buy.fast.ts), where that machinery costs more than the answer. The rule that makes
 * it safe: a fast path answers only what the app would answer with the same status, headers and
 * body, and does what the app's middleware would have done for it (request id, log line,
 * metrics, key, CORS, rate limit); anything else, or anything it is unsure of, it hands to the
 * app untouched (`next()`), before writing a byte. Each fast path has a test comparing its
 * answers with the app's.
 */

/** Answers `req` itself, or calls `next()` (at most once, and only before writing anything) to leave it to the app. */
export type FastPath = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

const fastPaths = new WeakMap<object, FastPath[]>();

/**
 * Adds a fast path to a router or an app (tried in the order added); `createApp` carries a
 * router's to the app it is mounted on ({@link carryFastPaths}).
 */
export function addFastPath(app: object, fast: FastPath): void {
  const list = fastPaths.get(app);
  if (list) list.push(fast);
  else fastPaths.set(app, [fast]);
}

/** Gives `app` the fast paths of `router`, mounted on it at `/`. */
export function carryFastPaths(router: object, app: object): void {
  for (const fast of fastPaths.get(router) ?? []) addFastPath(app, fast);
}

/** The fast paths of an app, in order (none: empty). */
export function fastPathsOf(app: object): readonly FastPath[] {
  return fastPaths.get(app) ?? [];
}

type Fetch = Parameters<typeof getRequestListener>[0];

/**
 * The listener for `http.createServer`: each request goes through the fast paths of `app()`
 * (read per request: main.ts swaps its app once the migrations are applied), then to `fetch`
 * through @hono/node-server as `createAdaptorServer` would.
 *
 * @example createServer(httpServerOptions(env), nodeListener(() => app, app.fetch)).listen(port);
 */
export function nodeListener(app: () => object, fetch: Fetch): (req: IncomingMessage, res: ServerResponse) => void {
  const viaApp = getRequestListener(fetch);
  return (req, res) => {
    const list = fastPaths.get(app());
    if (list === undefined) return void viaApp(req, res);
    let i = 0;
    const next = (): void => {
      const fast = list[i++];
      if (fast === undefined) return void viaApp(req, res);
      const at = i;
      try {
        fast(req, res, next);
      } catch {
        // A fast path that throws (a cache reading a database that just went away) must not take
        // the process down: the app answers instead (a 503 when the database is unavailable),
        // unless the fast path had begun to answer or had already handed the request on.
        if (res.headersSent) res.destroy();
        else if (i === at) next();
      }
    };
    next();
  };
}
