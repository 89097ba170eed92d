import type { Tx } from '../../db/client.js';
import { authService, type AuthServiceDeps, type UserMethod } from './auth.service.js';
import type { ErrorLocation } from '../../lib/errors.js';

/**
 * URLs of the authentication flows: the one-time token every generated URL carries
 * (Login Trust, smart publish, access layer), and the check that keeps `returnTo` on the
 * service (no open redirect).
 */

/** The query parameter that carries a one-time token (spec: `oneTimeToken`). */
export const ONE_TIME_TOKEN_PARAM = 'oneTimeToken';

/**
 * `url` with `?oneTimeToken=<token>` (replacing one already there; other parameters and the
 * fragment are kept).
 *
 * @example signUrl('https://resale.example/buy/x?lang=es', 'Zq3') // 'https://resale.example/buy/x?lang=es&oneTimeToken=Zq3'
 */
export function signUrl(url: string, token: string): string {
  const u = new URL(url);
  u.searchParams.set(ONE_TIME_TOKEN_PARAM, token);
  return u.toString();
}

/** Who a Login Trust URL is for: the partner and its `loginTrust[user]` (e-mail, phone or user id). */
export interface LoginTrust {
  partnerId: string;
  /** As the partner sent it; null, undefined or blank signs nothing. */
  user: string | null | undefined;
  /** How to read `user` (default: e-mail with '@', phone with a leading '+', else the partner's user id). */
  method?: UserMethod;
  /** Request field named in a 400 (default `loginTrust[user]`). */
  path?: string;
  /** Where that field is (default `query`). */
  in?: ErrorLocation;
}

/**
 * A function that signs URLs for one user: each call mints a fresh single-use token
 * (a token opens one URL once, so every URL of a response needs its own). The user is
 * resolved once, created on first sight. Without a user it returns URLs unchanged.
 *
 * @throws ApiError 400 `invalid_format` naming `path` when `user` is not usable
 * @example
 * const sign = loginTrustSigner(deps, tx, { partnerId, user: query['loginTrust[user]'] }, 'accessLayer');
 * const components = ctas.map((cta) => ({ ...cta, url: sign(cta.url) }));
 */
export function loginTrustSigner(deps: AuthServiceDeps, tx: Tx, who: LoginTrust, purpose = 'loginTrust'): (url: string) => string {
  const user = who.user?.trim();
  if (!user) return (url) => url;
  const auth = authService(deps);
  const row = auth.resolveUser(tx, who.partnerId, user, { method: who.method, path: who.path ?? 'loginTrust[user]', ...(who.in ? { in: who.in } : {}) });
  return (url) => signUrl(url, auth.mintOneTimeToken(tx, who.partnerId, row.id, purpose));
}

/**
 * `url` signed for one user (see {@link loginTrustSigner}); unchanged without a user.
 *
 * @example const entry = withLoginTrust(deps, tx, { partnerId, user: 'ana@example.com' }, url, 'smartPublish');
 */
export function withLoginTrust(deps: AuthServiceDeps, tx: Tx, who: LoginTrust, url: string, purpose = 'loginTrust'): string {
  return loginTrustSigner(deps, tx, who, purpose)(url);
}

const MAX_RETURN_TO = 2048;

/**
 * `returnTo` as an absolute URL on the service, or null when it could lead anywhere else.
 *
 * Accepted: an absolute http(s) URL whose origin (scheme, host, port) is the origin of
 * `publicBaseUrl` (and, when that has a path, under that path), or a path starting with a
 * single `/`, resolved against `publicBaseUrl`. Refused: other origins and look-alikes
 * (`https://resale.test.evil.com`), protocol-relative `//evil.com`, user info
 * (`https://resale.test@evil.com`), other schemes (`javascript:`, `data:`), backslashes,
 * whitespace and control characters (browsers drop or reinterpret them), encoded slashes
 * or backslashes at the start of the path, anything longer than 2048 characters.
 *
 * Callers redirect to the value returned (always absolute), never to the input.
 *
 * @example
 * safeReturnTo('/buy/x?lang=es', 'https://resale.example') // 'https://resale.example/buy/x?lang=es'
 * safeReturnTo('https://evil.com/', 'https://resale.example') // null
 */
export function safeReturnTo(url: string | null | undefined, publicBaseUrl: string): string | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_RETURN_TO) return null;
  // Whitespace, controls and backslashes: the URL parser strips or rewrites them, so what we
  // check would not be what a browser follows.
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(url)) return null;
  const relative = url.startsWith('/');
  if (relative ? url.startsWith('//') : !/^https?:\/\//i.test(url)) return null;
  let base: URL;
  let target: URL;
  try {
    base = new URL(publicBaseUrl);
    target = new URL(url, base);
  } catch {
    return null;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return null;
  if (target.origin !== base.origin || target.username !== '' || target.password !== '') return null;
  if (/^\/+%(2f|5c)/i.test(target.pathname)) return null;
  const basePath = base.pathname.replace(/\/+$/, '');
  if (basePath !== '' && target.pathname !== basePath && !target.pathname.startsWith(basePath + '/')) return null;
  return target.href;
}
