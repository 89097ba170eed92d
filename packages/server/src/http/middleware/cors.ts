import type { Context, MiddlewareHandler } from 'hono';
import type { AppConfig } from '../../lib/config.js';
import type { AppEnv } from '../../context.js';
import type { Db } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import { anyPartnerAllowsOrigin } from '../../domain/partners/partners.queries.js';
import type { Authenticated } from '../../domain/partners/partners.service.js';

/**
 * Cross-origin access for the endpoints a browser calls with the public key (the widgets on a
 * partner's pages), and only for the partner's own origins.
 *
 * The rule:
 * - Only routes listed in {@link BROWSER_ROUTES} (those that accept the public key) ever answer
 *   CORS. A private or channels key is for servers: a request made with one never gets CORS
 *   headers, whatever its origin, so a browser cannot read the answer (and a leaked private key
 *   in a page does not work there).
 * - A request with the public key and an `Origin` header must come from one of the partner's
 *   `allowedOrigins` (operator setting) or from the service itself; any other origin answers
 *   403 `origin_not_allowed` before anything is done, so a page elsewhere cannot use a
 *   partner's public key from a browser, not even for effects whose answer it cannot read.
 *   Requests without `Origin` (servers, curl) are unaffected.
 * - Preflights (`OPTIONS` with `Access-Control-Request-Method`) carry no key, so they are
 *   answered for a browser route when the origin is allowed by at least one partner; the
 *   real request then checks the partner the key belongs to.
 */

/** Methods and paths that accept the public key, so may be called from a browser. */
export const BROWSER_ROUTES: readonly { method: string; path: RegExp }[] = [
  { method: 'GET', path: /^\/v1\/wrapper\/accesslayer$/ },
  { method: 'POST', path: /^\/v1\/wrapper\/accesslayer\/bulk$/ },
  { method: 'GET', path: /^\/v1\/wrapper\/seatmap$/ },
  { method: 'GET', path: /^\/v1\/rules$/ },
  { method: 'POST', path: /^\/v1\/rules$/ },
  { method: 'POST', path: /^\/v1\/delist$/ },
];

/** Headers a page may send and read. */
// Request-Id and traceparent: a browser may correlate its calls with our logs (see app.ts).
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Request-Id, traceparent';
const EXPOSE_HEADERS = 'Request-Id, Retry-After, Idempotent-Replayed';
/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = '600';

/** What `applyBrowserOrigin()` uses: the service's own URL (its origin is always allowed). */
export interface BrowserOriginOptions {
  config: Pick<AppConfig, 'publicBaseUrl'>;
}

/** What `preflight()` uses: the database (which origins partners allow) and the service's own URL. */
export interface PreflightOptions extends BrowserOriginOptions {
  db: Db;
}

function ownOrigin(deps: BrowserOriginOptions): string {
  return new URL(deps.config.publicBaseUrl).origin;
}

function allowedMethods(path: string): string[] {
  return BROWSER_ROUTES.filter((r) => r.path.test(path)).map((r) => r.method);
}

/**
 * Called by the key middleware once the key is known: sets the CORS headers of an allowed
 * browser request, refuses a public-key request from a foreign origin, and leaves every
 * other request alone.
 *
 * @throws ApiError 403 `origin_not_allowed`
 */
export function applyBrowserOrigin(c: Context<AppEnv>, deps: BrowserOriginOptions, auth: Authenticated): void {
  const origin = c.req.header('origin');
  if (origin === undefined) return;
  if (auth.kind !== 'public' || !allowedMethods(c.req.path).includes(c.req.method)) return;
  c.header('Vary', 'Origin', { append: true });
  const allowed = origin === ownOrigin(deps) || (auth.partner.settings.allowedOrigins ?? []).includes(origin);
  if (!allowed) {
    throw new ApiError(403, 'origin_not_allowed', `Browser requests from ${origin.slice(0, 200)} are not allowed with this key; the operator adds the origin to the partner's allowedOrigins`);
  }
  c.header('Access-Control-Allow-Origin', origin);
  c.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
}

/**
 * Answers CORS preflights; every other request goes on. A preflight for a browser route from
 * an origin some partner allows gets 204 with the allowed methods and headers; any other
 * preflight 403 in the envelope (no CORS headers, so the browser stops there).
 */
export function preflight(deps: PreflightOptions): MiddlewareHandler<AppEnv> {
  return async function preflightMiddleware(c, next) {
    if (c.req.method !== 'OPTIONS') return next();
    const origin = c.req.header('origin');
    const method = c.req.header('access-control-request-method');
    if (origin === undefined || method === undefined) return next();
    const methods = allowedMethods(c.req.path);
    if (methods.length === 0) throw new ApiError(403, 'origin_not_allowed', 'This endpoint is for servers: it never answers browsers (only public-key endpoints do)');
    if (!methods.includes(method.toUpperCase())) throw new ApiError(403, 'origin_not_allowed', `${method.slice(0, 20)} is not allowed from a browser here; use ${methods.join(', ')}`);
    if (origin !== ownOrigin(deps) && !(await deps.db.read(async (tx) => await anyPartnerAllowsOrigin(tx, origin)))) {
      throw new ApiError(403, 'origin_not_allowed', `Browser requests from ${origin.slice(0, 200)} are not allowed; the operator adds the origin to the partner's allowedOrigins`);
    }
    c.header('Vary', 'Origin');
    return c.body(null, 204, {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': methods.join(', '),
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
    });
  };
}
