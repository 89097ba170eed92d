import { PAGE_RATE_LIMIT_DEFAULTS } from '../../lib/config.js';
import type { MiddlewareHandler } from 'hono';
import type { AppConfig } from '../../lib/config.js';
import { ApiError } from '../../lib/errors.js';
import { pageLang, t } from '../../lib/i18n.js';
import { noticePage } from '../pages/layout.js';
import { HOSTED_PAGES, pagePathPattern } from '../pages/registry.js';
import { clientLimitKey } from './client-address.js';
import type { RateLimiter } from './rate-limit.js';

/** What `pageRateLimit()` uses: its two limits and the shared rate limiter. */
export interface PageRateLimitOptions {
  config: Pick<AppConfig, 'pageRateLimitPerMinute' | 'pagePostRateLimitPerMinute'>;
  rateLimiter: Pick<RateLimiter, 'take'>;
}


/**
 * Paths of the server-rendered pages, whatever their partner: the hosted pages of class `page`
 * in the page registry (http/pages/registry.ts: the sell flow, the market, the checkout,
 * sign-in, the secure ticket view and the API reference). The API (`/v1`, `/admin/v1`) has its
 * own per-partner limit; the widget bundles (`/widgets/v1`) are static files every fan's
 * browser loads from partners' pages, and the development mailbox is not in production.
 */
const PAGE_PATH = pagePathPattern(HOSTED_PAGES.filter((p) => p.rateLimit === 'page'));

/** True for the path of a hosted page (see {@link PAGE_PATH}). */
export function isPagePath(path: string): boolean {
  return PAGE_PATH.test(path);
}

/**
 * A per-client-address limit of the hosted pages, so that one address cannot flood them
 * (each page view reads the database, and the sell and checkout pages call the partner's
 * ownership endpoint). Two sliding windows of the shared `RateLimiter` (http/middleware/rate-limit.ts: at most the limit
 * in any 60 seconds; it reads the injectable clock, and tests move time instead of sleeping), keyed by
 * `clientLimitKey` (the address as `TRUST_PROXY` allows, an IPv6 client by its /64):
 *
 * - every page request: `pageRateLimitPerMinute` (default 300 in any minute, all at once if
 *   they come at once; a fan browsing needs a few a minute, an office or a mobile carrier behind one
 *   address far fewer than 300 a minute);
 * - POSTs (and any other unsafe method) also count against `pagePostRateLimitPerMinute`
 *   (default 60): each one writes, sends codes or calls the partner.
 *
 * 0 disables either. Over a limit the answer is a plain localised notice page, 429 with
 * `Retry-After` in seconds, before any session, CSRF or body is read.
 *
 * @example app.use('*', pageRateLimit(deps)); // after clientAddresses(), before the page routers
 */
export function pageRateLimit(deps: PageRateLimitOptions): MiddlewareHandler {
  const perMinute = deps.config.pageRateLimitPerMinute ?? PAGE_RATE_LIMIT_DEFAULTS.perMinute;
  const postPerMinute = deps.config.pagePostRateLimitPerMinute ?? PAGE_RATE_LIMIT_DEFAULTS.postPerMinute;
  return async function pageRateLimitMiddleware(c, next) {
    if ((perMinute <= 0 && postPerMinute <= 0) || !isPagePath(c.req.path)) return next();
    const key = clientLimitKey(c);
    const method = c.req.method;
    try {
      // The stricter bucket first: a refused POST then takes nothing from the page bucket.
      if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') await deps.rateLimiter.take(`page-post:${key}`, postPerMinute);
      await deps.rateLimiter.take(`page:${key}`, perMinute);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 429) throw err;
      const retryAfter = Number(err.headers['Retry-After'] ?? 60);
      const lang = pageLang(c);
      return noticePage(c, {
        lang,
        status: 429,
        headers: { 'Retry-After': String(retryAfter) },
        title: t(lang, 'tooManyRequestsTitle'),
        text: t(lang, 'tooManyRequestsText', { seconds: retryAfter }),
      });
    }
    return next();
  };
}
