import { isLang, type Lang } from '@resale/shared/lang';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { matchedRoutes } from 'hono/route';
import type { AppDeps, AppEnv } from '../../../context.js';
import { randomToken, safeEqual } from '../../../lib/crypto.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { CONSOLE_SESSION_MS, type ConsoleSession } from '../../../domain/console/console.service.js';
import { secureCookies } from '../auth/auth.session.js';

/**
 * The console's sessions over HTTP, apart from the fans' (http/pages/auth/auth.session.tsx):
 *
 * - `resale_console` holds a random 256-bit token (the database keeps its SHA-256), HttpOnly,
 *   SameSite=Strict, Path=/console, Secure in production and behind https, 12 hours at most;
 *   the session itself ends after 30 minutes idle or 12 hours (domain/console). A new token at
 *   every sign-in, the browser's previous session ended: a token planted before sign-in
 *   (session fixation) never becomes a signed-in one.
 * - CSRF: every console form carries `_csrf`, an HMAC of its action under the session's secret;
 *   before sign-in, under a random secret in `resale_console_csrf` (login CSRF). Checked by
 *   {@link consoleCsrf} on every POST, which the page registry mounts.
 * - The language: `?lang=en|es` sets `resale_console_lang`; otherwise the cookie, otherwise the
 *   browser's first language the console speaks, otherwise English.
 */

export const CONSOLE_COOKIE = 'resale_console';
export const CONSOLE_CSRF_COOKIE = 'resale_console_csrf';
export const CONSOLE_LANG_COOKIE = 'resale_console_lang';
const CSRF_FIELD = '_csrf';

/** Hono environment of the console's routes. */
export interface ConsoleEnv extends AppEnv {
  Variables: AppEnv['Variables'] & {
    /** The signed-in person, or null. */
    console: ConsoleSession | null;
    /** The raw cookie value, to end that session at sign-in or sign-out. */
    consoleToken: string | null;
    consoleLang: Lang;
  };
}

export type ConsoleContext = Context<ConsoleEnv, any, any>;

/** What the console's session middleware needs. */
export type ConsoleSessionDeps = Pick<AppDeps, 'db' | 'consoleAccess' | 'config'>;

function cookieOptions(deps: Pick<AppDeps, 'config'>) {
  return { httpOnly: true, sameSite: 'Strict', secure: secureCookies(deps.config), path: '/console' } as const;
}

/** The console's language for this request (see the module comment), remembered when `?lang=` names one. */
function consoleLang(c: ConsoleContext, deps: Pick<AppDeps, 'config'>): Lang {
  const asked = c.req.query('lang');
  if (isLang(asked)) {
    setCookie(c, CONSOLE_LANG_COOKIE, asked, { ...cookieOptions(deps), maxAge: 365 * 86_400 });
    return asked;
  }
  const kept = getCookie(c, CONSOLE_LANG_COOKIE);
  if (isLang(kept)) return kept;
  for (const part of (c.req.header('accept-language') ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().slice(0, 2).toLowerCase();
    if (isLang(tag)) return tag;
  }
  return 'en';
}

/**
 * Finds the console session of the request's cookie (a request is activity: it moves the idle
 * timeout) and the console's language. A cookie of no live session is removed.
 */
export function consoleSessionFromRequest(deps: ConsoleSessionDeps): MiddlewareHandler<ConsoleEnv> {
  return async function consoleSessionMiddleware(c, next) {
    const token = getCookie(c, CONSOLE_COOKIE) ?? null;
    const session = token ? await deps.db.read(async (tx) => await deps.consoleAccess.findSession(tx, token)) : null;
    // The request is activity (the idle timeout): written at most once a minute, so most page views write nothing.
    if (session?.seenStale) await deps.db.transact(async (tx) => await deps.consoleAccess.touchSession(tx, session.id));
    if (token && !session) deleteCookie(c, CONSOLE_COOKIE, cookieOptions(deps));
    c.set('console', session);
    c.set('consoleToken', token);
    c.set('consoleLang', consoleLang(c, deps));
    await next();
  };
}

/** Sets the cookie of a new console session. */
export function setConsoleCookie(c: ConsoleContext, deps: Pick<AppDeps, 'config'>, token: string): void {
  setCookie(c, CONSOLE_COOKIE, token, { ...cookieOptions(deps), maxAge: CONSOLE_SESSION_MS / 1000 });
}

/** Removes the console session's cookie (sign-out). */
export function clearConsoleCookie(c: ConsoleContext, deps: Pick<AppDeps, 'config'>): void {
  deleteCookie(c, CONSOLE_COOKIE, cookieOptions(deps));
}

/** The `resale_console_csrf` secret a request created (its page may sign several forms: the e-mail's and the passkey's). */
const createdCsrfSecrets = new WeakMap<ConsoleContext, string>();

/** The secret this browser's console forms are signed with: the session's, or before sign-in the `resale_console_csrf` cookie's (created on first use). */
function csrfSecret(c: ConsoleContext, deps: Pick<AppDeps, 'config'>, create: boolean): string | null {
  const session = c.get('console');
  if (session) return session.csrfSecret;
  const kept = getCookie(c, CONSOLE_CSRF_COOKIE);
  if (kept && kept.length <= 100) return kept;
  const created = createdCsrfSecrets.get(c);
  if (created) return created;
  if (!create) return null;
  const secret = randomToken(256);
  createdCsrfSecrets.set(c, secret);
  setCookie(c, CONSOLE_CSRF_COOKIE, secret, { ...cookieOptions(deps), maxAge: 86_400 });
  return secret;
}

/** The CSRF token of a console form posting to `action` (its path, without the query). */
export function consoleCsrfToken(c: ConsoleContext, deps: Pick<AppDeps, 'config'>, action: string): string {
  return csrfTokenFor(csrfSecret(c, deps, true)!, action);
}

/** The field name of the console's CSRF token (see {@link consoleCsrfToken}). */
export const CONSOLE_CSRF_FIELD = CSRF_FIELD;

/**
 * Refuses every POST of the console whose `_csrf` field is not the token of its path (403 with
 * `refused`, the page that says the form expired), before the handler reads anything else.
 */
export function consoleCsrf(deps: Pick<AppDeps, 'config'>, refused: (c: ConsoleContext) => Promise<Response>): MiddlewareHandler<ConsoleEnv> {
  return async function consoleCsrfMiddleware(c, next) {
    if (c.req.method !== 'POST' || !matchedRoutes(c).some((r) => r.method === 'POST')) return next();
    const secret = csrfSecret(c, deps, false);
    const type = c.req.header('content-type') ?? '';
    let sent: unknown;
    if (/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) {
      try {
        sent = (await c.req.parseBody({ all: true }))[CSRF_FIELD];
      } catch {
        sent = undefined;
      }
    }
    if (secret && typeof sent === 'string' && safeEqual(sent, csrfTokenFor(secret, c.req.path))) return next();
    return refused(c);
  };
}
