import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../../context.js';
import type { Metrics } from '../../domain/metrics/metrics.service.js';

/** Methods kept as they are in the `method` label; any other becomes `OTHER` (a closed set). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The `route` label of a request no route matched (404, 405, CORS preflights answered by the middleware). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The template of the route that matched the request (`/v1/events/:eventId`), never the raw
 * path: the last matched route that is not a middleware (`app.use` registers with method
 * ALL), whether or not its handler was reached (a key or a limit may answer first). None:
 * {@link UNMATCHED_ROUTE}.
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== 'ALL') return route.path;
  }
  return UNMATCHED_ROUTE;
}

/**
 * Request metrics: `resale_http_requests_total`, `resale_http_request_duration_seconds`
 * (method, route template, status) and `resale_http_requests_in_flight`. Mounted first in
 * app.ts, so the time covers every other middleware. No `await` of its own: it chains on the
 * promise the rest of the chain returns, and records in one synchronous step once it settles
 * (a bound counter and histogram per series, see Metrics.observeRequest).
 *
 * @example app.use('*', httpMetrics(deps.metrics));
 */
export function httpMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return function httpMetricsMiddleware(c, next) {
    const started = performance.now();
    metrics.inFlight++;
    const done = (status: number) => {
      metrics.inFlight--;
      const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
      metrics.observeRequest(method, routeTemplate(c), status, (performance.now() - started) / 1000);
    };
    return next().then(
      () => done(c.res.status),
      (err: unknown) => {
        // Only when the error handler itself failed (app.onError answers every other error): Hono answers 500.
        done(500);
        throw err;
      },
    );
  };
}
