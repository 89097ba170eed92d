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
 * - A route is a browser route when it accepts the public key, and it says so where it is
 *   declared: its OpenAPI `security` names the public key (`SECURITY.public`) and its
 *   `partnerKey` middleware accepts `public`. No other list exists: the preflight reads the
 *   browser routes from the document's route definitions ({@link browserRoutesOf}), and a
 *   request gets CORS headers when the key it authenticated with is the public one (which only
 *   such routes accept). A private or channels key is for servers: a request made with one never
 *   gets CORS headers, whatever its origin, so a browser cannot read the answer (and a leaked
 *   private key in a page does not work there).
 * - A request with the public key and an `Origin` header must come from one of the partner's
 *   `allowedOrigins` (operator setting) or from the service itself; any other origin answers
 *   403 `origin_not_allowed` before anything is done, so a page elsewhere cannot use a
 *   partner's public key from a browser, not even for effects whose answer it cannot read.
 *   Requests without `Origin` (servers, curl) are unaffected.
 * - Preflights (`OPTIONS` with `Access-Control-Request-Method`) carry no key, so they are
 *   answered for a browser route when the origin is allowed by at least one partner; the
 *   real request then checks the partner the key belongs to.
 */

/** A method and path a browser may call (a route that accepts the public key). */
export interface BrowserRoute {
  method: string;
  path: RegExp;
}

/** The part of an OpenAPI registry {@link browserRoutesOf} reads (`OpenAPIHono#openAPIRegistry`). */
export interface RouteDefinitions {
  definitions: readonly unknown[];
}

/** The name of the public key's security scheme (`SECURITY.public`). */
const PUBLIC_SCHEME = 'publicKey';

/**
 * The browser routes of an app: every route of its OpenAPI document whose security accepts the
 * public key, its `{parameters}` matching one path segment.
 *
 * @example browserRoutesOf(app.openAPIRegistry) // [{ method: 'GET', path: /^\/v1\/rules$/ }, …]
 */
export function browserRoutesOf(registry: RouteDefinitions): BrowserRoute[] {
  const routes: BrowserRoute[] = [];
  for (const definition of registry.definitions as { type?: string; route?: { method: string; path: string; security?: Record<string, unknown>[] } }[]) {
    if (definition.type !== 'route' || !definition.route) continue;
    const { method, path, security } = definition.route;
    if (!security?.some((requirement) => PUBLIC_SCHEME in requirement)) continue;
    const pattern = path.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+');
    routes.push({ method: method.toUpperCase(), path: new RegExp(`^${pattern}$`) });
  }
  return routes;
}

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

/** What `preflight()` uses: the database (which origins partners allow), the service's own URL and its browser routes. */
export interface PreflightOptions extends BrowserOriginOptions {
  db: Db;
  /** The app's browser routes, read when the first preflight comes (the routes are mounted after this middleware). */
  browserRoutes(): readonly BrowserRoute[];
}

/** The service's own origin, by its public URL (parsed once per URL: it is asked on every browser request). */
const ownOrigins = new Map<string, string>();
function ownOrigin(deps: BrowserOriginOptions): string {
  const url = deps.config.publicBaseUrl;
  let origin = ownOrigins.get(url);
  if (origin === undefined) ownOrigins.set(url, (origin = new URL(url).origin));
  return origin;
}

/**
 * What a request's `Origin` earns once its key is known: `none` (no `Origin`, or a key for
 * servers: no CORS headers), `allowed` (the partner's own origin or the service's: the headers of
 * {@link corsAnswerHeaders}, and `Vary: Origin`) or `refused` (403 `origin_not_allowed`).
 * Only a browser route accepts the public key: a route that let it through is one.
 */
export function browserOriginVerdict(origin: string | undefined, deps: BrowserOriginOptions, auth: Authenticated): 'none' | 'allowed' | 'refused' {
  if (origin === undefined || auth.kind !== 'public') return 'none';
  return origin === ownOrigin(deps) || (auth.partner.settings.allowedOrigins ?? []).includes(origin) ? 'allowed' : 'refused';
}

/** The CORS headers of an answer to an allowed browser request from `origin`. */
export function corsAnswerHeaders(origin: string): Record<string, string> {
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSE_HEADERS };
}

/**
 * Called by the key middleware once the key is known: sets the CORS headers of an allowed
 * browser request, refuses a public-key request from a foreign origin, and leaves every
 * other request alone ({@link browserOriginVerdict}).
 *
 * @throws ApiError 403 `origin_not_allowed`
 */
export function applyBrowserOrigin(c: Context<AppEnv>, deps: BrowserOriginOptions, auth: Authenticated): void {
  const origin = c.req.header('origin');
  const verdict = browserOriginVerdict(origin, deps, auth);
  if (verdict === 'none') return;
  c.header('Vary', 'Origin', { append: true });
  if (verdict === 'refused') {
    throw new ApiError(403, 'origin_not_allowed', `Browser requests from ${origin!.slice(0, 200)} are not allowed with this key; the operator adds the origin to the partner's allowedOrigins`);
  }
  for (const [name, value] of Object.entries(corsAnswerHeaders(origin!))) c.header(name, value);
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
    const methods = [...new Set(deps.browserRoutes().filter((r) => r.path.test(c.req.path)).map((r) => r.method))];
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
