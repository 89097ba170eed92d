import type { Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import type { DemoStore, DemoUser } from './store.js';

/**
 * Who is signed in on the demo platform: a signed cookie holding the user id (HMAC-SHA256,
 * so it cannot be forged), HttpOnly (no script reads it) and SameSite=Lax (not sent on
 * cross-site POSTs). The name differs from the service's cookies: on localhost both run on
 * one host, and browsers share cookies across ports.
 */
export const SESSION_COOKIE = 'demo_session';
const MAX_AGE_S = 7 * 86_400;

export async function currentUser(c: Context, store: DemoStore, secret: string): Promise<DemoUser | null> {
  const id = await getSignedCookie(c, secret, SESSION_COOKIE);
  if (!id) return null;
  return store.state.users.find((u) => u.id === id) ?? null;
}

export async function signIn(c: Context, user: DemoUser, secret: string): Promise<void> {
  await setSignedCookie(c, SESSION_COOKIE, user.id, secret, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: new URL(c.req.url).protocol === 'https:',
    path: '/',
    maxAge: MAX_AGE_S,
  });
}

export function signOut(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'Lax', secure: new URL(c.req.url).protocol === 'https:' });
}

/** Where a `returnTo` may send the browser after sign-in. */
export type ReturnTarget =
  /** A page of the demo (a path, resolved on the demo's own origin). */
  | { kind: 'self'; path: string }
  /** A page of the resale service (Login Force): the browser goes back with `oneTimeToken`. */
  | { kind: 'service'; url: URL }
  /** Anything else: not followed (no open redirect). */
  | { kind: 'refused' };

/**
 * Checks a `returnTo`: only the demo itself (a path, or an absolute URL on the request's
 * origin) and the service's origin are followed. Protocol-relative (`//evil`), backslash
 * tricks, credentials in the URL (`http://svc@evil`) and other schemes are refused.
 *
 * @example
 * resolveReturnTo('http://localhost:3000/checkout/p/bi_1', 'http://localhost:3001', 'http://localhost:3000') // service
 * resolveReturnTo('https://evil.example/', …) // refused
 */
export function resolveReturnTo(raw: string | undefined | null, selfOrigin: string, serviceOrigin: string): ReturnTarget {
  if (!raw) return { kind: 'self', path: '/' };
  // Browsers read a backslash as a slash and drop control characters: refuse both outright.
  if (raw.length > 2048 || /[\\\u0000-\u001f\u007f]/.test(raw)) return { kind: 'refused' };
  let url: URL;
  try {
    url = raw.startsWith('/') && !raw.startsWith('//') ? new URL(raw, selfOrigin) : new URL(raw);
  } catch {
    return { kind: 'refused' };
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return { kind: 'refused' };
  if (url.origin === selfOrigin) return { kind: 'self', path: `${url.pathname}${url.search}${url.hash}` };
  if (url.origin === serviceOrigin) return { kind: 'service', url };
  return { kind: 'refused' };
}

/** `url` with `oneTimeToken` appended (Login Force, step 4). */
export function withOneTimeToken(url: URL, token: string): string {
  const next = new URL(url);
  next.searchParams.append('oneTimeToken', token);
  return next.href;
}
