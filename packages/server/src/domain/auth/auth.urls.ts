import type { Tx } from '../../db/client.js';
import { authService, type AuthServiceDeps, type TokenBatch, type UserMethod } from './auth.service.js';
import type { ErrorLocation } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/crypto.js';

/**
 * URLs of the authentication flows: the one-time token every generated entry URL carries
 * (Login Trust, smart publish, access layer), and the checks that keep `returnTo` on the
 * service (no open redirect) or on the partner's own origins.
 *
 * ## Where sign-in tokens go
 *
 * A one-time token signs whoever opens the URL in as its user, so it goes only on a URL that
 * takes a user to *their own* pages, made by the partner's server for that user at the moment
 * they click:
 *
 * | minted by | purpose | URLs |
 * |---|---|---|
 * | `GET /v1/auth/oneTimeToken` (Login Force) | `login` | the `returnTo` the user signed in for |
 * | sell entry URLs with `loginTrust[user]` / `sellerEmail` / smart publish | `sellFlow`, `smartPublish` | `/sell/…` |
 * | sell access layer with `autologin` | `accessLayer` | SELL, EDIT, DETAILS, MANAGE, PENDING_PAYOUT_INFO, the sell banner (`/sell/…`) |
 * | buy access layer and buying-flow entry URL with `loginTrust[user]` | `accessLayer`, `buyFlow` | the market page (`/market/…`) |
 * | `POST …/buyIntention` with `user` | `checkout` | that intention's checkout (`/checkout/…`) |
 *
 * Never on a URL meant to travel: Share (P2P), the listing's `shareUrl`, `salePublicUrl`, a
 * market page that points at a listing or ticket, links in e-mails, webhooks or pages.
 * {@link signUrl}, the one place a token joins a URL, refuses any other destination, and
 * `auth.token-policy.test.ts` walks every URL the service generates. A session that began
 * from a token counts as not stepped up (see `auth.step-up.ts`): money destinations need a
 * fresh one-time code on top.
 */

/**
 * Purpose of the tokens of `GET /v1/auth/oneTimeToken` (Login Force): the partner has just signed
 * the person in, a deliberate sign-in, unlike the seamless tokens of Login Trust.
 */
export const LOGIN_PURPOSE = 'login';

/** The query parameter that carries a one-time token (spec: `oneTimeToken`). */
export const ONE_TIME_TOKEN_PARAM = 'oneTimeToken';

/**
 * Whether a sign-in token may go on `url` (see "Where sign-in tokens go"): a sell page, a
 * checkout, or a market page. Which of those URLs get one is decided where they are made
 * (Share never does); this check stops a token from ever landing on any other page.
 */
export function isTokenDestination(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const [first, partner, rest] = u.pathname.split('/').filter(Boolean);
  return Boolean(partner && rest) && (first === 'sell' || first === 'checkout' || first === 'market');
}

/**
 * `url` with `?oneTimeToken=<token>` (replacing one already there; other parameters and the
 * fragment are kept).
 *
 * @throws Error when `url` is not a place a token may go ({@link isTokenDestination}): a bug
 *   in the caller, never something a request can cause
 * @example signUrl('https://resale.example/sell/ptr_1/start?lang=es', 'Zq3') // '…/sell/ptr_1/start?lang=es&oneTimeToken=Zq3'
 */
export function signUrl(url: string, token: string): string {
  if (!isTokenDestination(url)) throw new Error(`A sign-in token must not go on ${url.split('?')[0]}: it is not a page of the user's own`);
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

/** Signs a URL for the user it was made for (or returns it unchanged without one). */
export type UrlSigner = (url: string) => string;

/**
 * Runs `work` with a function that signs URLs for one user: each call mints a fresh
 * single-use token (a token opens one URL once, so every URL of a response needs its own).
 * The user is resolved once, created on first sight; the tokens are written together once
 * `work` is done, in `tx`. Without a user, URLs stay unchanged.
 *
 * @throws ApiError 400 `invalid_format` naming `path` when `user` is not usable
 * @example
 * const components = await withLoginTrustSigner(deps, tx, { partnerId, user: query['loginTrust[user]'] }, 'accessLayer', (sign) =>
 *   ctas.map((cta) => ({ ...cta, url: sign(cta.url) })));
 */
export async function withLoginTrustSigner<T>(deps: AuthServiceDeps, tx: Tx, who: LoginTrust, purpose: string, work: (sign: UrlSigner) => T | Promise<T>): Promise<T> {
  const user = who.user?.trim();
  if (!user) return work((url) => url);
  const auth = authService(deps);
  const row = await auth.resolveUser(tx, who.partnerId, user, { method: who.method, path: who.path ?? 'loginTrust[user]', ...(who.in ? { in: who.in } : {}) });
  return signingWith(tx, await auth.tokenBatch(tx, who.partnerId, row.id, purpose), work);
}

/** Runs `work` with a signer minting from `tokens`, then writes the tokens it minted. */
export async function signingWith<T>(tx: Tx, tokens: TokenBatch, work: (sign: UrlSigner) => T | Promise<T>): Promise<T> {
  const result = await work((url) => signUrl(url, tokens.mint()));
  await tokens.write(tx);
  return result;
}

/**
 * `url` signed for one user (see {@link loginTrustSigner}); unchanged without a user.
 *
 * @example const entry = withLoginTrust(deps, tx, { partnerId, user: 'ana@example.com' }, url, 'smartPublish');
 */
export async function withLoginTrust(deps: AuthServiceDeps, tx: Tx, who: LoginTrust, url: string, purpose = 'loginTrust'): Promise<string> {
  return withLoginTrustSigner(deps, tx, who, purpose, (sign) => sign(url));
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
  // eslint-disable-next-line no-control-regex -- the controls are what it looks for
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

/** The query parameter (and form field) carrying the service's tag of a partner `returnTo`. */
export const RETURN_TO_TAG_PARAM = 'returnToTag';

/**
 * The tag that proves the partner's server chose `returnTo` (the buying-flow entry URL API adds
 * it): an HMAC under the server key over the partner and the URL.
 */
export function returnToTag(box: Pick<SecretBox, 'sign'>, partnerId: string, returnTo: string): string {
  return box.sign('partner-return-to', `${partnerId}\u0000${returnTo}`);
}

/**
 * A way back to the partner's site, or null. A `returnTo` from a request is a link the service
 * will show to a fan ("Back to the ticketing site"), so it must lead where the partner said:
 * an absolute http(s) URL, without user info, whose origin is one of the partner's
 * `allowedOrigins`, or one the partner's server handed to us through the API (`tag`, see
 * {@link returnToTag}). Anything else (`https://evil.example/phish`) is dropped, never shown.
 *
 * @example partnerReturnTo(deps.box, partner, c.req.query('returnTo'), c.req.query('returnToTag'))
 */
export function partnerReturnTo(
  box: Pick<SecretBox, 'verify'>,
  partner: { id: string; settings: { allowedOrigins: readonly string[] } },
  url: unknown,
  tag: unknown,
): string | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_RETURN_TO) return null;
  // eslint-disable-next-line no-control-regex -- the controls are what it looks for
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(url) || !/^https?:\/\//i.test(url)) return null;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  if (target.username !== '' || target.password !== '') return null;
  if ((partner.settings.allowedOrigins ?? []).includes(target.origin)) return target.href;
  return typeof tag === 'string' && tag.length <= 64 && box.verify('partner-return-to', `${partner.id}\u0000${url}`, tag) ? target.href : null;
}
