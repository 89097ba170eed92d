/** @jsxImportSource hono/jsx */
import { isLang } from '@resale/shared/lang';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { matchedRoutes } from 'hono/route';
import type { AppConfig } from '../../../lib/config.js';
import type { AppDeps, AppEnv } from '../../../context.js';
import { randomToken, safeEqual } from '../../../lib/crypto.js';
import { pageLang, t } from '../../../lib/i18n.js';
import { noticePage } from '../layout.js';
import { brandAsPartner } from '../brand.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { m } from './auth.messages.js';
import { authService, csrfTokenFor, SESSION_TTL_MS, type AuthServiceDeps, type SessionData } from '../../../domain/auth/auth.service.js';
import { LOGIN_PURPOSE, ONE_TIME_TOKEN_PARAM, safeReturnTo } from '../../../domain/auth/auth.urls.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';

/**
 * Sessions of the hosted pages over HTTP: the session cookie, redeeming one-time tokens,
 * Login Force, and CSRF tokens for forms.
 *
 * Cookie: `resale_session` holds a random 256-bit token; the database keeps only its
 * SHA-256 and looks sessions up by it. The cookie is not signed: a signature protects a
 * value the client could otherwise forge (a user id), but a random token looked up by hash
 * cannot be forged or guessed, and revoking is deleting a row, which a signed stateless
 * cookie could not do. HttpOnly, SameSite=Lax, Path=/, Secure in production (and whenever
 * the public URL is https), 12 hours.
 *
 * CSRF: every form carries `_csrf`, an HMAC-SHA256 of the form's action (its path) under
 * the session's `csrfSecret` (synchronizer token, checked on every POST of a page by
 * {@link csrfProtection}, which the page registry, http/pages/registry.ts, mounts: a
 * handler never checks it itself).
 * Forms shown before sign-in (the one-time-password pages) use a random secret kept in the
 * `resale_csrf` cookie (HttpOnly, SameSite=Lax) instead, so signing someone into another
 * account (login CSRF) is refused too.
 *
 * Signing out (see {@link markSignedOut}): a person who signs out on the service ("Not you? Sign
 * out") stays signed out in this browser even though the partner still has them signed in. The
 * `resale_signed_out` cookie names the partner and, under an HMAC, the user; while it is there,
 * a seamless token of that user (Login Trust on a buy or sell URL, the access layer, a
 * buy intention's checkout) is used up without signing anyone in, and Login Force asks the
 * partner for a deliberate sign-in (`prompt=login` on its login URL). A token of the partner's
 * Login Force (`GET /v1/auth/oneTimeToken`, purpose `login`), a one-time code, or the partner's
 * own sign-out (`GET /auth/sign-out`) removes it: someone signed in on purpose.
 *
 * @example
 * // What the page registry mounts for a page with the session and CSRF (http/pages/registry.ts):
 * app.use('/sell/:partnerId/*', sessionFromRequest(deps, { partnerId: (c) => c.req.param('partnerId') }));
 * app.use('/sell/:partnerId/*', csrfProtection(deps, (c) => c.req.param('partnerId')));
 * // The page's own routes:
 * app.get('/sell/:partnerId/:ticketId', async (c) => {
 *   const partner = await deps.partners.get(c.req.param('partnerId'));
 *   const session = requireUser(c, partner);
 *   if (session instanceof Response) return session;
 *   return renderPage(c, <Layout ...><form method="post" action="/sell/…">{csrfField(c, '/sell/…')}…</form></Layout>);
 * });
 * app.post('/sell/:partnerId/:ticketId', async (c) => {
 *   // Reached only with the form's CSRF token (csrfProtection answered 403 otherwise).
 *   …
 * });
 */

export const SESSION_COOKIE = 'resale_session';
export const CSRF_COOKIE = 'resale_csrf';
/** The signed-out marker (see "Signing out" above). */
export const SIGNED_OUT_COOKIE = 'resale_signed_out';
/** How long a sign-out on the service outlives the partner's seamless sign-in (partners keep people signed in for weeks). */
export const SIGNED_OUT_TTL_S = 30 * 86_400;
/** The query parameter added to the partner's login URL after a sign-out here: ask who is there, do not answer at once. */
export const PROMPT_PARAM = 'prompt';
/** Path of the partner's sign-out URL (GET, a top-level navigation from the partner's site). */
export const PARTNER_SIGN_OUT_PATH = '/auth/sign-out';
/** Name of the hidden form field (or send the `X-CSRF-Token` header). */
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'X-CSRF-Token';
/** Path of the sign-out form's action (POST, CSRF-checked). */
export const LOGOUT_PATH = '/auth/logout';
/** Path of the one-time-password page. */
export const OTP_PATH = '/auth/otp';

/** What the helpers need from the request, set by {@link sessionFromRequest}. */
export interface SessionConfig {
  publicBaseUrl: string;
  secureCookies: boolean;
  /** The pre-session CSRF secret; created (and its cookie set) on first use. */
  anonymousCsrfSecret(): string;
  /** The partner someone signed out of in this browser (see {@link markSignedOut}), or null. */
  signedOutOf: string | null;
}

/** Hono environment of routes behind {@link sessionFromRequest}. */
export interface SessionEnv extends AppEnv {
  Variables: AppEnv['Variables'] & {
    /** The signed-in user of this partner, or null. */
    session: SessionData | null;
    sessionConfig: SessionConfig;
  };
}

type AnyContext = Context<any, any, any>;
export type SessionContext = Context<SessionEnv, any, any>;

export interface SessionOptions {
  /**
   * The partner the page belongs to, when the route knows it (from the path, say). A token
   * of another partner is then refused as unknown, and a session of another partner is
   * ignored (`session` is null).
   */
  partnerId?: (c: SessionContext) => string | null | undefined;
}

/** Whether cookies get `Secure`. */
export function secureCookies(config: Pick<AppConfig, 'env' | 'publicBaseUrl'>): boolean {
  return config.env === 'production' || config.publicBaseUrl.startsWith('https:');
}

/** Sets the session cookie. */
export function setSessionCookie(c: AnyContext, config: Pick<AppConfig, 'env' | 'publicBaseUrl'>, token: string): void {
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: 'Lax', secure: secureCookies(config), path: '/', maxAge: SESSION_TTL_MS / 1000 });
}

/** Removes the session cookie. */
export function clearSessionCookie(c: AnyContext, config: Pick<AppConfig, 'env' | 'publicBaseUrl'>): void {
  deleteCookie(c, SESSION_COOKIE, { httpOnly: true, sameSite: 'Lax', secure: secureCookies(config), path: '/' });
}

/** The marker's value: the partner, then an HMAC naming the user without revealing the user's id. */
function signedOutValue(box: AuthServiceDeps['box'], partnerId: string, userPk: string): string {
  return `${partnerId}.${box.sign('signed-out', `${partnerId}\u0000${userPk}`)}`;
}

/** The partner of the signed-out marker in the request, or null. */
function markedPartner(c: AnyContext): string | null {
  const value = getCookie(c, SIGNED_OUT_COOKIE);
  const dot = value ? value.lastIndexOf('.') : -1;
  return value && dot > 0 ? value.slice(0, dot) : null;
}

/** Whether the request's marker says that this very user signed out of this partner here. */
function signedOutHere(c: AnyContext, box: AuthServiceDeps['box'], partnerId: string, userPk: string): boolean {
  const value = getCookie(c, SIGNED_OUT_COOKIE);
  if (!value || markedPartner(c) !== partnerId) return false;
  const tag = value.slice(value.lastIndexOf('.') + 1);
  return tag.length <= 64 && box.verify('signed-out', `${partnerId}\u0000${userPk}`, tag);
}

/**
 * Remembers in this browser that the user signed out of the partner on the service (the sign-out
 * button of the hosted pages): from now on the partner's seamless sign-in of that same user is not
 * honoured here until someone signs in deliberately (see "Signing out" above).
 */
export function markSignedOut(c: AnyContext, deps: Pick<AuthServiceDeps, 'box'> & { config: Pick<AppConfig, 'env' | 'publicBaseUrl'> }, session: Pick<SessionData, 'partnerId' | 'userPk'>): void {
  setCookie(c, SIGNED_OUT_COOKIE, signedOutValue(deps.box, session.partnerId, session.userPk), {
    httpOnly: true,
    sameSite: 'Lax',
    secure: secureCookies(deps.config),
    path: '/',
    maxAge: SIGNED_OUT_TTL_S,
  });
}

/** Removes the signed-out marker (someone signed in deliberately, or the partner signed its user out). */
export function clearSignedOut(c: AnyContext, config: Pick<AppConfig, 'env' | 'publicBaseUrl'>): void {
  if (getCookie(c, SIGNED_OUT_COOKIE) !== undefined) deleteCookie(c, SIGNED_OUT_COOKIE, { httpOnly: true, sameSite: 'Lax', secure: secureCookies(config), path: '/' });
}

/** A redirect no cache keeps and no Referer repeats. */
export function safeRedirect(c: AnyContext, location: string, status: 302 | 303 = 302): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.redirect(location, status);
}

/** The request's path and query without `oneTimeToken` (relative: same origin by construction). */
function withoutToken(c: AnyContext): string {
  const u = new URL(c.req.url);
  u.searchParams.delete(ONE_TIME_TOKEN_PARAM);
  return u.pathname + u.search;
}

/** The current page as an absolute URL on the public base URL, without `oneTimeToken`. */
export function currentServiceUrl(c: AnyContext, publicBaseUrl: string): string {
  return publicBaseUrl.replace(/\/+$/, '') + withoutToken(c);
}

async function partnerOrNull(deps: Pick<AppDeps, 'db'>, id: string | null | undefined): Promise<PartnerRow | null> {
  if (!id) return null;
  return (await deps.db.read(async (tx) => await partnerById(tx, id))) ?? null;
}

/**
 * Middleware of every hosted page that knows users. Sets `c.var.session` and the helpers'
 * configuration.
 *
 * - A GET with `?oneTimeToken=` redeems the token (once: a conditional update), starts a
 *   session (replacing and revoking any other one of this browser; a session of the very same
 *   user of the same partner simply goes on, its step-up kept), sets the cookie and
 *   redirects (302) to the same URL without the token, so the token never stays in the
 *   address bar, the history or a Referer. A seamless token of a user who signed out here
 *   (see "Signing out") is used up and the page opens signed out; a `login` token removes the
 *   signed-out marker. A used, expired, unknown or foreign token gets a
 *   plain localised page (410 used/expired, 401 unknown or another partner's), except a
 *   dead token of the very user already signed in, which is just dropped from the URL.
 * - Otherwise the session cookie is read (a revoked or expired session is no session).
 * - HEAD requests never redeem (link scanners send them).
 */
export function sessionFromRequest(deps: AuthServiceDeps & Pick<AppDeps, 'config'>, opts: SessionOptions = {}): MiddlewareHandler<SessionEnv> {
  return async function sessionMiddleware(c, next) {
    const auth = authService(deps);
    const secure = secureCookies(deps.config);
    let anonymous = getCookie(c, CSRF_COOKIE);
    c.set('sessionConfig', {
      publicBaseUrl: deps.config.publicBaseUrl,
      secureCookies: secure,
      anonymousCsrfSecret() {
        if (anonymous && anonymous.length >= 32) return anonymous;
        anonymous = randomToken(256);
        setCookie(c, CSRF_COOKIE, anonymous, { httpOnly: true, sameSite: 'Lax', secure, path: '/', maxAge: SESSION_TTL_MS / 1000 });
        return anonymous;
      },
      signedOutOf: markedPartner(c),
    });
    const expected = opts.partnerId?.(c) ?? null;
    const cookie = getCookie(c, SESSION_COOKIE);
    const current = cookie ? await deps.db.read(async (tx) => await auth.findSession(tx, cookie)) : null;

    const token = c.req.query(ONE_TIME_TOKEN_PARAM);
    if (token !== undefined && c.req.method === 'GET') {
      const outcome = await deps.db.transact(async (tx) => {
        const redemption = await auth.redeemOneTimeToken(tx, token, expected);
        if (!redemption.ok) return { redemption, started: null };
        const deliberate = redemption.purpose === LOGIN_PURPOSE;
        // The partner still has this user signed in and signs them in again on every link: after
        // a sign-out here, only a deliberate sign-in (Login Force) counts. The token stays used.
        if (!deliberate && signedOutHere(c, deps.box, redemption.partnerId, redemption.userPk)) return { redemption, started: null };
        // The same person of the same partner already signed in here (the partner signs every
        // link, so each Sell press brings a token): the session goes on, with its step-up. Only
        // another person's (or a planted) session is replaced: no fixation, no second code.
        if (current && current.partnerId === redemption.partnerId && current.userPk === redemption.userPk) return { redemption, started: null, kept: true, deliberate };
        if (current) await auth.revokeSession(tx, current.id);
        return { redemption, started: await auth.startSession(tx, redemption.partnerId, redemption.userPk), deliberate };
      });
      if ('kept' in outcome && outcome.kept) {
        if (outcome.deliberate) clearSignedOut(c, deps.config);
        return safeRedirect(c, withoutToken(c));
      }
      if (outcome.started) {
        setSessionCookie(c, deps.config, outcome.started.token);
        if (outcome.deliberate) clearSignedOut(c, deps.config);
        return safeRedirect(c, withoutToken(c));
      }
      // Refused because the user signed out here: the page, signed out (Login Force asks the partner to prompt).
      if (outcome.redemption.ok) return safeRedirect(c, withoutToken(c));
      const r = outcome.redemption;
      if (r.reason !== 'unknown' && current && current.partnerId === r.partnerId && current.userPk === r.userPk) return safeRedirect(c, withoutToken(c));
      const partner = await partnerOrNull(deps, expected ?? (r.reason !== 'unknown' ? r.partnerId : null));
      const lang = pageLang(c, partner?.settings.defaultLang);
      const title = r.reason === 'used' ? m(lang, 'linkUsedTitle') : r.reason === 'expired' ? m(lang, 'linkExpiredTitle') : m(lang, 'linkInvalidTitle');
      return noticePage(c, { lang, status: r.reason === 'unknown' ? 401 : 410, title, text: m(lang, 'linkDeadText') });
    }

    c.set('session', current && (!expected || current.partnerId === expected) ? current : null);
    await next();
  };
}

function configOf(c: SessionContext): SessionConfig {
  const config = c.get('sessionConfig');
  if (!config) throw new Error('This route needs the sessionFromRequest middleware');
  return config;
}

/** Options of {@link requireUser}. */
export interface RequireUserOptions {
  /**
   * Where the user comes back after signing in: a URL on the service. Default: the current
   * page. A URL elsewhere is ignored (the current page is used).
   */
  returnTo?: string;
}

/**
 * Login Force. The session when the user is signed in with this partner; otherwise a
 * redirect (302) to the partner's `loginUrl` with `returnTo` (absolute, on the public base
 * URL), and `prompt=login` when someone signed out of this partner here (the partner must ask
 * who is signing in rather than send the same user straight back), or, for a partner without
 * `loginUrl`, to the one-time-password page (`/auth/otp?p=<partner id>&returnTo=…&lang=…`).
 *
 * Use it on GET pages; a POST should name the page of its form in `returnTo`.
 *
 * @example
 * const session = requireUser(c, partner);
 * if (session instanceof Response) return session;
 */
export function requireUser(c: SessionContext, partner: Pick<PartnerRow, 'id' | 'settings'>, opts: RequireUserOptions = {}): SessionData | Response {
  const config = configOf(c);
  const session = c.get('session');
  if (session && session.partnerId === partner.id) return session;
  const returnTo = (opts.returnTo !== undefined ? safeReturnTo(opts.returnTo, config.publicBaseUrl) : null) ?? currentServiceUrl(c, config.publicBaseUrl);
  return safeRedirect(c, signInUrl(partner, config.publicBaseUrl, returnTo, c.req.query('lang'), { prompt: config.signedOutOf === partner.id }));
}

/**
 * Origins where a form of this partner's pages may end after redirects: the partner's sign-in
 * page (Login Force), for the page's `form-action` (see `cspWith`). Empty without a loginUrl.
 */
export function signInOrigins(partner: Pick<PartnerRow, 'settings'>): string[] {
  return partner.settings.loginUrl ? [new URL(partner.settings.loginUrl).origin] : [];
}

/**
 * Where a user of `partner` signs in to come back to `returnTo` (already checked): the
 * partner's login page (with `prompt=login` when `opts.prompt`: someone signed out here, so the
 * partner must ask who is signing in), or our one-time-password page.
 */
export function signInUrl(partner: Pick<PartnerRow, 'id' | 'settings'>, publicBaseUrl: string, returnTo: string, lang?: string | null, opts: { prompt?: boolean } = {}): string {
  if (partner.settings.loginUrl) {
    const login = new URL(partner.settings.loginUrl);
    login.searchParams.set('returnTo', returnTo);
    if (opts.prompt) login.searchParams.set(PROMPT_PARAM, 'login');
    return login.href;
  }
  const otp = new URL(publicBaseUrl.replace(/\/+$/, '') + OTP_PATH);
  otp.searchParams.set('p', partner.id);
  otp.searchParams.set('returnTo', returnTo);
  if (isLang(lang)) otp.searchParams.set('lang', lang);
  return otp.href;
}

/**
 * The CSRF token of a form posting to `action` (its path, without the query): bound to the
 * session, or before sign-in to this browser's `resale_csrf` cookie.
 */
export function csrfToken(c: SessionContext, action: string): string {
  const session = c.get('session');
  return csrfTokenFor(session ? session.csrfSecret : configOf(c).anonymousCsrfSecret(), action);
}

/**
 * The hidden CSRF field of a form posting to `action` (the path of its `action` attribute).
 *
 * @example <form method="post" action="/auth/logout">{csrfField(c, '/auth/logout')}<button>Sign out</button></form>
 */
export function csrfField(c: SessionContext, action: string) {
  return <CsrfInput token={csrfToken(c, action)} />;
}

/**
 * The hidden CSRF field of a form in a stateless view, given its token: the page's handler
 * computes `csrfToken(c, action)` into the view model, so the view needs no request context.
 */
export function CsrfInput(props: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />;
}

/**
 * Whether the POST carries the right CSRF token for `action`, in the `_csrf` form field or
 * the `X-CSRF-Token` header. Compared in constant time. Reads (and caches) the form body.
 */
export async function verifyCsrf(c: SessionContext, action: string): Promise<boolean> {
  let sent = c.req.header(CSRF_HEADER);
  if (!sent) {
    const type = c.req.header('content-type') ?? '';
    if (/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) {
      const value = (await c.req.parseBody())[CSRF_FIELD];
      if (typeof value === 'string') sent = value;
    }
  }
  if (!sent) return false;
  const session = c.get('session');
  if (session && safeEqual(sent, csrfTokenFor(session.csrfSecret, action))) return true;
  const anonymous = getCookie(c, CSRF_COOKIE);
  return Boolean(anonymous && anonymous.length >= 32 && safeEqual(sent, csrfTokenFor(anonymous, action)));
}

/**
 * Middleware of the POSTs of a page: a POST that reaches one of the page's POST routes goes on
 * only with the right CSRF token for its path (the form's action without its query: see
 * {@link verifyCsrf}); otherwise it is answered with {@link csrfRejected} before its handler
 * runs. A POST that matches no POST route (a wrong method, an unknown path) is left to the
 * 405/404. After {@link sessionFromRequest}, whose session it reads.
 *
 * `partnerId` names the page's partner (its `:partnerId`, or `p` on the sign-in pages): the
 * refusal is then in the partner's language (unless `?lang=`) and branded as the partner's, as
 * the page was.
 *
 * @example app.use('/checkout/:partnerId/*', csrfProtection(deps, (c) => c.req.param('partnerId')));
 */
export function csrfProtection(deps: Pick<AppDeps, 'db'>, partnerId?: (c: SessionContext) => string | null | undefined): MiddlewareHandler<SessionEnv> {
  return async function csrfMiddleware(c, next) {
    if (c.req.method !== 'POST' || !matchedRoutes(c).some((r) => r.method === 'POST')) return next();
    if (await verifyCsrf(c, c.req.path)) return next();
    const partner = await partnerOrNull(deps, partnerId?.(c));
    if (partner) brandAsPartner(c, partner);
    return csrfRejected(c, partner?.settings.defaultLang);
  };
}

/** The 403 page of a form whose CSRF token is missing or wrong. */
export function csrfRejected(c: AnyContext, fallbackLang?: string | null): Promise<Response> {
  const lang = pageLang(c, fallbackLang);
  return noticePage(c, { lang, status: 403, title: t(lang, 'formExpiredTitle'), text: t(lang, 'formExpiredText') });
}
