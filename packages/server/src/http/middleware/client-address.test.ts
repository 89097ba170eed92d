import { parseTrustProxy, type TrustProxy } from '../../lib/trust-proxy.js';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from '../../env.js';
import { formAction, inputValue, TestBrowser } from '../pages/auth/auth.testing.js';
import { createTestApp, listen, type Listening, type TestPartner } from '../../testing/harness.js';
import { addressLimitKey, clientAddress, clientAddresses } from './client-address.js';

/** What the app sees as the client, for a peer address and an X-Forwarded-For header. */
async function resolved(trustProxy: TrustProxy | undefined, peer: string | null, forwardedFor?: string): Promise<string> {
  const app = new Hono();
  app.use('*', clientAddresses({ trustProxy }));
  app.get('/', (c) => c.text(clientAddress(c)));
  const env = peer ? { incoming: { socket: { remoteAddress: peer } } } : undefined;
  const res = await app.request('/', { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }, env);
  return res.text();
}

describe('client address', () => {
  it('trusts nobody by default: the socket peer is the client, whatever the header says', async () => {
    expect(await resolved(undefined, '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
    expect(await resolved(undefined, '10.0.0.5', '203.0.113.9')).toBe('10.0.0.5');
    expect(await resolved(0, '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
    expect(await resolved([], '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
    expect(await resolved(undefined, '::ffff:198.51.100.4')).toBe('198.51.100.4');
    expect(await resolved(undefined, 'FE80::1%eth0')).toBe('fe80::1');
    expect(await resolved(undefined, null, '203.0.113.9')).toBe('unknown');
  });

  it('with a hop count, takes that many entries from the right and no more', async () => {
    expect(await resolved(1, '127.0.0.1', '6.6.6.6, 203.0.113.9')).toBe('203.0.113.9');
    expect(await resolved(1, '127.0.0.1')).toBe('127.0.0.1');
    expect(await resolved(2, '127.0.0.1', '6.6.6.6, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
    // Fewer entries than hops: the left-most one there is.
    expect(await resolved(3, '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    // A proxy that passed on junk: the proxy (the last trusted hop) stands for the client.
    expect(await resolved(1, '10.0.0.2', 'not-an-address')).toBe('10.0.0.2');
    expect(await resolved(1, '127.0.0.1', '6.6.6.6, ::FFFF:203.0.113.9')).toBe('203.0.113.9');
  });

  it('with a list, skips only listed proxies: entries written by an untrusted hop never count', async () => {
    const trust = ['loopback', '10.0.0.0/8'];
    expect(await resolved(trust, '127.0.0.1', '6.6.6.6, 10.1.1.1, 198.51.100.9, 10.0.0.2')).toBe('198.51.100.9');
    expect(await resolved(trust, '10.0.0.3', '198.51.100.9')).toBe('198.51.100.9');
    // The peer is not a listed proxy: its header is ignored.
    expect(await resolved(['10.0.0.0/8'], '127.0.0.1', '198.51.100.9')).toBe('127.0.0.1');
    expect(await resolved(['10.0.0.0/255.0.0.0'], '10.9.9.9', '198.51.100.9')).toBe('198.51.100.9');
    // Everybody in the chain trusted: the left-most entry is the client.
    expect(await resolved(trust, '127.0.0.1', '10.0.0.7, 10.0.0.2')).toBe('10.0.0.7');
  });

  it('counts an IPv6 client by its /64 for limits', () => {
    expect(addressLimitKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressLimitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:DB8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressLimitKey('unknown')).toBe('unknown');
  });

  it('parses TRUST_PROXY and refuses what would trust everybody or nothing sensible', () => {
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy(' 2 ')).toBe(2);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8,loopback,uniquelocal, ::1')).toEqual(['127.0.0.1', '10.0.0.0/8', 'loopback', 'uniquelocal', '::1']);
    for (const bad of ['true', '*', '0.0.0.0/0', '10.0.0.0/33', 'proxy.internal', 'loopback,999.1.1.1', ',', '100']) {
      expect(() => parseTrustProxy(bad), bad).toThrow(TypeError);
    }
    // The engine of this test process (DATABASE_URL must match it, see env.ts).
    const base = { SECRET_KEY: 'x'.repeat(32), DATABASE_URL: process.env.DATABASE_URL };
    expect(parseEnv(base).TRUST_PROXY).toBeUndefined();
    expect(parseEnv({ ...base, TRUST_PROXY: '' }).TRUST_PROXY).toBeUndefined();
    expect(parseEnv({ ...base, TRUST_PROXY: 'loopback' }).TRUST_PROXY).toEqual(['loopback']);
    expect(() => parseEnv({ ...base, TRUST_PROXY: 'yes' })).toThrow(EnvError);
    expect(() => parseEnv({ ...base, TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY: 'yes' is not an IP address/);
  });
});

/**
 * The one-time-password pages over real HTTP: the test client connects from 127.0.0.1, as a
 * reverse proxy on the same host would, and writes X-Forwarded-For itself.
 */
describe('client address over real HTTP: the per-address limit of code requests', () => {
  let http: Listening | null = null;
  afterEach(async () => {
    await http?.close();
    http = null;
  });

  async function serveOtp(trustProxy?: TrustProxy) {
    const t = createTestApp({ trustProxy });
    const p = await t.partner('Guests');
    http = await listen(t.app);
    const base = http.base;
    const overHttp = { request: (url: string, init?: RequestInit) => fetch(base + url, { ...init, redirect: 'manual' }) };
    return { t, p, browser: new TestBrowser(overHttp) };
  }

  /** Opens the sign-in page and asks a code for `identifier`, sending `forwardedFor`. */
  async function requestCode(browser: TestBrowser, p: TestPartner, identifier: string, forwardedFor: string) {
    const form = await browser.get(`/auth/otp?p=${p.id}`);
    expect(form.status).toBe(200);
    return browser.post(formAction(form.text)!, { _csrf: inputValue(form.text, '_csrf')!, identifier }, { 'x-forwarded-for': forwardedFor });
  }

  it('without TRUST_PROXY, a fresh X-Forwarded-For per request does not escape the limit (20 per 15 minutes)', async () => {
    const { browser, p } = await serveOtp();
    for (let i = 0; i < 20; i++) expect((await requestCode(browser, p, `fan${i}@example.com`, `203.0.113.${i}`)).status).toBe(303);
    const limited = await requestCode(browser, p, 'fan20@example.com', '203.0.113.200');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('900');
  });

  it('with TRUST_PROXY=1, the right-most entry is the client: the left part is the client’s own and changes nothing', async () => {
    const { browser, p } = await serveOtp(1);
    for (let i = 0; i < 20; i++) expect((await requestCode(browser, p, `fan${i}@example.com`, `6.6.${i}.6, 203.0.113.60`)).status).toBe(303);
    expect((await requestCode(browser, p, 'fan20@example.com', '6.6.6.250, 203.0.113.60')).status).toBe(429);
    // Another client behind the same proxy has its own count.
    expect((await requestCode(browser, p, 'fan21@example.com', '203.0.113.61')).status).toBe(303);
  });

  it('with a list of proxies, entries added by an untrusted hop are not trusted', async () => {
    const { browser, p } = await serveOtp(parseTrustProxy('127.0.0.1,10.0.0.0/8'));
    // Client 198.51.100.9 → proxy 10.0.0.2 → proxy on 127.0.0.1. Whatever the client puts on
    // the left (even addresses of "trusted" proxies) stops at the first untrusted hop: itself.
    for (let i = 0; i < 20; i++) {
      const forged = `203.0.113.${i}, 10.0.0.${i + 10}`;
      expect((await requestCode(browser, p, `fan${i}@example.com`, `${forged}, 198.51.100.9, 10.0.0.2`)).status).toBe(303);
    }
    expect((await requestCode(browser, p, 'fan20@example.com', '10.0.0.99, 198.51.100.9, 10.0.0.2')).status).toBe(429);
    expect((await requestCode(browser, p, 'fan21@example.com', '198.51.100.10, 10.0.0.2')).status).toBe(303);
  });

  it('with a list that does not name the peer, the header is ignored altogether', async () => {
    const { browser, p } = await serveOtp(['10.0.0.0/8']);
    for (let i = 0; i < 20; i++) expect((await requestCode(browser, p, `fan${i}@example.com`, `198.51.100.${i}`)).status).toBe(303);
    expect((await requestCode(browser, p, 'fan20@example.com', '198.51.100.200')).status).toBe(429);
  });
});
