import type { Context, MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import type { AppConfig } from '../../lib/config.js';
import type { TrustProxy } from '../../lib/trust-proxy.js';

/**
 * The client's address, for per-address limits (one-time passwords, hosted pages).
 *
 * `X-Forwarded-For` is a list any client can write: `X-Forwarded-For: 6.6.6.6` costs nothing,
 * and a fresh value per request escapes every per-address limit. So it is read only as far as
 * the operator says it was written by their own proxies (`TRUST_PROXY`), exactly as Express's
 * `trust proxy` does, with the same library (proxy-addr):
 *
 * - unset (or `0`): trust nobody. The socket's peer is the client; the header is ignored.
 * - a hop count `n`: the service sits behind exactly `n` proxies; the `n`-th entry from the
 *   right of `X-Forwarded-For` is the client (`1`: the right-most, the address the one proxy
 *   saw). Entries further left were written by the client and never count.
 * - a list of addresses, CIDRs and the keywords `loopback`, `linklocal`, `uniquelocal`: walking
 *   from the socket's peer leftwards through `X-Forwarded-For`, the first address that is not
 *   in the list is the client. A client that is not itself a listed proxy cannot be skipped.
 *
 * IPv4-mapped IPv6 addresses (`::ffff:203.0.113.7`) count as the IPv4 address. A client
 * without a socket (an in-process `app.request`) is `unknown`.
 *
 * The setting is compiled once ({@link clientAddresses}); the middleware stores the result in
 * `c.var.clientAddress`, read with {@link clientAddress} or, for limits, {@link clientLimitKey}.
 *
 * @example
 * app.use('*', clientAddresses(deps.config)); // first, before anything that limits per address
 * await deps.rateLimiter.take(`page:${clientLimitKey(c)}`, 300);
 */

/** Longest `X-Forwarded-For` read: a real chain of proxies is a few dozen bytes. */
const MAX_FORWARDED_LENGTH = 1024;

type Trust = (addr: string, i: number) => boolean;

/** The trust function of a setting; null when nobody is trusted. */
function compileTrust(setting: TrustProxy | undefined): Trust | null {
  if (setting === undefined) return null;
  if (typeof setting === 'number') {
    if (setting <= 0) return null;
    // i = 0 is the socket's peer, i = 1 the right-most X-Forwarded-For entry, and so on.
    return (_addr, i) => i < setting;
  }
  return setting.length > 0 ? proxyaddr.compile([...setting]) : null;
}

/** `::ffff:203.0.113.7` → `203.0.113.7`; IPv6 lower-cased without a zone. */
function normalise(address: string): string {
  const lower = address.toLowerCase();
  const zone = lower.indexOf('%');
  const bare = zone >= 0 ? lower.slice(0, zone) : lower;
  if (bare.startsWith('::ffff:') && isIP(bare.slice(7)) === 4) return bare.slice(7);
  return bare;
}

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string }; headers?: Record<string, string | string[] | undefined> };
}

/**
 * A resolver of the client's address under `trustProxy`, compiled once.
 *
 * @example
 * const resolve = clientAddressResolver(['loopback']);
 * resolve(c); // '203.0.113.7'
 */
export function clientAddressResolver(trustProxy: TrustProxy | undefined): (c: Context<any, any, any>) => string {
  const trust = compileTrust(trustProxy);
  return (c) => {
    const incoming = (c.env as NodeBindings | undefined)?.incoming;
    const peer = incoming?.socket?.remoteAddress;
    if (!peer) return 'unknown';
    if (!trust) return normalise(peer);
    // Node joins repeated X-Forwarded-For headers with ", ", as proxies expect. Read from the
    // IncomingMessage when there is one: asking Hono builds a whole Headers object.
    const raw = incoming.headers ? incoming.headers['x-forwarded-for'] : c.req.header('x-forwarded-for');
    const forwarded = (Array.isArray(raw) ? raw.join(', ') : (raw ?? '')).slice(-MAX_FORWARDED_LENGTH);
    const chain = proxyaddr.all({ socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': forwarded } } as unknown as IncomingMessage, trust);
    let address = chain[chain.length - 1]!;
    // A trusted proxy passed on something that is not an address: the last trusted hop (an
    // address, since trust requires one) stands for the client rather than the junk.
    if (isIP(address) === 0) address = chain[chain.length - 2] ?? peer;
    return normalise(address);
  };
}

/**
 * Middleware that resolves the client's address once per request into `c.var.clientAddress`.
 * Mount it first: every per-address limit reads it.
 *
 * @example app.use('*', clientAddresses(deps.config));
 */
export function clientAddresses(config: Pick<AppConfig, 'trustProxy'>): MiddlewareHandler {
  const resolve = clientAddressResolver(config.trustProxy);
  return async function clientAddressMiddleware(c, next) {
    c.set('clientAddress', resolve(c));
    await next();
  };
}

const untrusting = clientAddressResolver(undefined);

/**
 * The client's address: as the middleware resolved it, else (a router mounted without it) the
 * socket's peer, trusting no header.
 */
export function clientAddress(c: Context<any, any, any>): string {
  return (c.get('clientAddress') as string | undefined) ?? untrusting(c);
}

/**
 * What per-address limits count: the IPv4 address, or the /64 network of an IPv6 address. One
 * subscriber (a home, a phone) is routinely given a whole /64 and can pick any of its 2^64
 * addresses at will, so counting single IPv6 addresses would be as spoofable as the header.
 *
 * @example
 * addressLimitKey('203.0.113.7'); // '203.0.113.7'
 * addressLimitKey('2001:db8:1:2:aaaa::1'); // '2001:db8:1:2::/64'
 */
export function addressLimitKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64` : address;
}

/** The limit key of the request's client ({@link addressLimitKey} of {@link clientAddress}). */
export function clientLimitKey(c: Context<any, any, any>): string {
  return addressLimitKey(clientAddress(c));
}

/** The eight 16-bit groups of a valid IPv6 address (`::`, embedded IPv4 and zones allowed). */
function expandIpv6(address: string): number[] | null {
  let s = address.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const v4 = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(2).map(Number) as [number, number, number, number];
    s = `${v4[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length > 2 || missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<string>(halves.length > 1 ? missing : 0).fill('0'), ...tail].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}
