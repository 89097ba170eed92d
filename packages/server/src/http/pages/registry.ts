import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../context.js';
import { csrfProtection, sessionFromRequest, type SessionEnv } from './auth/auth.session.js';
import { authPageRoutes, signInGuard } from './auth/auth.pages.js';
import { checkoutPageRoutes } from './checkout/checkout.pages.js';
import { mailboxRoutes } from './email/email.pages.js';
import { homeRoutes } from './home.js';
import { knownPartner } from './partner-page.js';
import { marketPageRoutes } from './market/market.pages.js';
import { pageScriptRoutes } from './page-script.js';
import { sellPageRoutes } from './sell/sell.pages.js';
import { ticketPageRoutes } from './tickets/tickets.pages.js';
import { doorPageRoutes } from './door/door.pages.js';
import { docsRoutes } from '../api/docs.routes.js';
import { consoleMiddleware, consolePageRoutes } from './console/console.pages.js';

/**
 * The hosted pages: one entry per page, the one list that everything about a page is read
 * from. Adding a page is its module and an entry here:
 *
 * - app.ts mounts every entry ({@link mountHostedPages}): the session middleware and the CSRF
 *   middleware the entry asks for, then its routes;
 * - the per-address page limit (http/middleware/page-rate-limit.ts, `isPagePath`) covers the
 *   entries of class `page`, and an outage answers their paths with a page, not JSON (app.ts);
 * - the surface test (surface.test.ts) crawls the links to the entries with `crawl`, and
 *   posts every form it finds there.
 */
export interface HostedPage {
  /** What the page is (its routes' module). */
  name: string;
  /**
   * Where the page lives, as Hono path patterns: the session and CSRF middleware are mounted
   * on them, and every path under their fixed part (up to the first parameter or `*`: `/sell/`
   * for `/sell/:partnerId/*`, exactly `/docs` for `/docs`) is the page's for the rate limit,
   * whether a route answers it or not.
   */
  paths: readonly string[];
  /**
   * `page`: the hosted pages' per-address limits (PAGE_RATE_LIMIT_PER_MINUTE, and
   * PAGE_POST_RATE_LIMIT_PER_MINUTE for its POSTs). `none`: not limited (the home page, static
   * files, the development mailbox).
   */
  rateLimit: 'page' | 'none';
  /**
   * Whether the page knows users (`sessionFromRequest`), and where it names its partner, to
   * which the session is scoped: `path`, its `:partnerId`; `query`, the `p` query parameter
   * (the sign-in pages, which serve every partner under one path); `console`, the console's own
   * sessions (http/pages/console/console.session.ts), apart from the fans'; `holder`, a fan's
   * session of whichever partner (the ticket view names no partner: it checks the session is
   * its ticket's holder's before it certifies a phone). null: no session.
   */
  session: 'path' | 'query' | 'holder' | 'console' | null;
  /**
   * Every POST of the page needs its form's CSRF token (`csrfProtection`: 403 "This form has
   * expired" otherwise, in the partner's language and brand, before the handler runs). Needs
   * the session.
   */
  csrf: boolean;
  /**
   * What answers a POST before its CSRF token is checked (after the session): what the page
   * says whatever the form holds, such as the 404 of an unknown partner or a sign-in page's
   * redirect to the partner's login.
   */
  beforeCsrf?(deps: AppDeps): MiddlewareHandler<SessionEnv>;
  /** Whether the surface test follows links to the page (the pages a fan browses from a partner's links). */
  crawl: boolean;
  /** False: never mounted in production (the development mailbox has no authentication). */
  inProduction?: boolean;
  /** The page's routes. */
  routes(deps: AppDeps): Hono<any, any, any>;
}

/** Every hosted page (see {@link HostedPage}). */
export const HOSTED_PAGES: readonly HostedPage[] = [
  { name: 'sell', paths: ['/sell/:partnerId/*'], rateLimit: 'page', session: 'path', csrf: true, beforeCsrf: knownPartner, crawl: true, routes: sellPageRoutes },
  { name: 'market', paths: ['/market/:partnerId/*'], rateLimit: 'page', session: 'path', csrf: true, crawl: true, routes: marketPageRoutes },
  { name: 'checkout', paths: ['/checkout/:partnerId/*'], rateLimit: 'page', session: 'path', csrf: true, beforeCsrf: knownPartner, crawl: true, routes: checkoutPageRoutes },
  // Sign-in, step-up and sign-out: reached by redirects (the crawl follows those), never linked to the fan's pages but by the sign-out form.
  { name: 'auth', paths: ['/auth/*'], rateLimit: 'page', session: 'query', csrf: true, beforeCsrf: signInGuard, crawl: false, routes: authPageRoutes },
  // The console: operators and partners' people, with their own sessions and CSRF.
  { name: 'console', paths: ['/console', '/console/*'], rateLimit: 'page', session: 'console', csrf: true, crawl: false, routes: consolePageRoutes },
  // The holder's session certifies a phone for the rotating code (a JSON POST with the X-CSRF-Token header); the service worker lives at /tickets/sw.js.
  { name: 'ticket view', paths: ['/tickets/view/*', '/tickets/sw.js'], rateLimit: 'page', session: 'holder', csrf: true, crawl: true, routes: ticketPageRoutes },
  // The venue's scanner page: no session (its script calls the door API with the door's token, kept on the device); the service worker lives at /door/sw.js.
  { name: 'door scanner', paths: ['/door', '/door/*'], rateLimit: 'page', session: null, csrf: false, crawl: false, routes: () => doorPageRoutes() },
  { name: 'API reference', paths: ['/docs', '/docs/*'], rateLimit: 'page', session: null, csrf: false, crawl: false, routes: () => docsRoutes({ openApiPath: '/v1/openapi.json', title: 'resale API reference' }) },
  { name: 'home', paths: ['/', '/favicon.svg', '/favicon.ico'], rateLimit: 'none', session: null, csrf: false, crawl: false, routes: () => homeRoutes() },
  { name: 'page script', paths: ['/assets/*'], rateLimit: 'none', session: null, csrf: false, crawl: false, routes: () => pageScriptRoutes() },
  { name: 'development mailbox', paths: ['/dev/mailbox', '/dev/mailbox.json', '/dev/mailbox/*'], rateLimit: 'none', session: null, csrf: false, crawl: false, inProduction: false, routes: mailboxRoutes },
];

/** The partner a page names, for its session and its CSRF refusal (see {@link HostedPage.session}). */
function partnerIdOf(session: 'path' | 'query' | 'holder'): (c: Context<SessionEnv, any, any>) => string | null {
  if (session === 'holder') return () => null;
  return session === 'path' ? (c) => c.req.param('partnerId') ?? '' : (c) => c.req.query('p') ?? null;
}

/**
 * Mounts every hosted page on `app`: for each path of a page, its session middleware, its
 * `beforeCsrf` and its CSRF middleware when the entry asks for them, then its routes. Pages with
 * `inProduction: false` are left out in production.
 *
 * @example mountHostedPages(app, deps);
 */
export function mountHostedPages(app: Hono<any, any, any>, deps: AppDeps): void {
  for (const page of HOSTED_PAGES) {
    if (page.inProduction === false && deps.config.env === 'production') continue;
    if (page.csrf && !page.session) throw new Error(`The page ${page.name} checks CSRF tokens, which need its session`);
    const router = new Hono<SessionEnv>();
    if (page.session === 'console') {
      const [session, csrf] = consoleMiddleware(deps);
      for (const path of page.paths) {
        router.use(path, session as never);
        if (page.csrf) router.use(path, csrf as never);
      }
    } else if (page.session) {
      const partnerId = partnerIdOf(page.session);
      for (const path of page.paths) {
        router.use(path, sessionFromRequest(deps, { partnerId }));
        if (page.beforeCsrf) router.use(path, page.beforeCsrf(deps));
        if (page.csrf) router.use(path, csrfProtection(deps, partnerId));
      }
    }
    router.route('/', page.routes(deps));
    app.route('/', router);
  }
}

/** The fixed start of a path pattern (up to its first parameter or `*`), or the whole path when it has neither. */
function fixedPart(path: string): { text: string; exact: boolean } {
  const at = path.search(/[:*]/);
  return at < 0 ? { text: path, exact: true } : { text: path.slice(0, at), exact: false };
}

/**
 * A regular expression of the paths of `pages` (see {@link HostedPage.paths}): for
 * `/sell/:partnerId/*` every path that starts with `/sell/`, for `/docs` exactly `/docs`.
 *
 * @example pagePathPattern(HOSTED_PAGES.filter((p) => p.crawl)).test('/market/ptr_1/tour') // true
 */
export function pagePathPattern(pages: readonly Pick<HostedPage, 'paths'>[]): RegExp {
  const parts = pages.flatMap((p) => p.paths.map(fixedPart)).map(({ text, exact }) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&') + (exact ? '$' : ''));
  return parts.length === 0 ? /$^/ : new RegExp(`^(?:${parts.join('|')})`);
}
