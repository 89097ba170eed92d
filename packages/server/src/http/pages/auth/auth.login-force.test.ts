import { closeServers } from '../../../testing/servers.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../testing/harness.js';
import { users } from '../../../domain/users/users.table.js';
import { sessions } from '../../../domain/auth/auth.table.js';
import { mountAuth, TestBrowser } from './auth.testing.js';

/** A real HTTP server on 127.0.0.1 playing the partner's platform; closed after each test. */
const servers: Server[] = [];
async function platform(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    void handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: (path = '/') => `http://127.0.0.1:${port}${path}`, seen };
}

afterEach(() => closeServers(servers));

/**
 * The partner's login page: signs the user in (here: always Ana, user id `user-881`), asks
 * the service for a one-time token with its private key, and sends the browser to returnTo
 * with `oneTimeToken` appended, as the spec's Login Force steps 2 to 4 say.
 */
async function partnerLogin(t: TestApp, privateKey: () => string) {
  return platform(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://platform.test');
    const returnTo = url.searchParams.get('returnTo');
    if (url.pathname !== '/login' || !returnTo) {
      res.writeHead(400).end();
      return;
    }
    const token = await t.request('GET', '/v1/auth/oneTimeToken?user=user-881', { key: privateKey() });
    const back = new URL(returnTo);
    back.searchParams.append('oneTimeToken', token.body.data);
    res.writeHead(302, { location: back.href }).end();
  });
}

describe('Login Force', () => {
  it('round trip: protected page -> partner login (real server) with returnTo -> token -> back, signed in', async () => {
    const t = mountAuth(createTestApp());
    let key = '';
    const login = await partnerLogin(t, () => key);
    const p = await t.partner('Acme', { loginUrl: login.url('/login?brand=acme') });
    key = p.keys.private;
    const browser = new TestBrowser(t.app);

    // 1. The purchase page needs a user: off to the partner's login page.
    const first = await browser.get(`/test/${p.id}/protected?lang=es&listing=lst_1`);
    expect(first.status).toBe(302);
    const toLogin = new URL(first.location!);
    expect(toLogin.origin + toLogin.pathname).toBe(login.url('/login'));
    expect(toLogin.searchParams.get('brand')).toBe('acme');
    const returnTo = toLogin.searchParams.get('returnTo')!;
    expect(returnTo).toBe(`http://resale.test/test/${p.id}/protected?lang=es&listing=lst_1`);

    // 2-4. The browser opens the partner's page (over real HTTP); the partner redirects back with a token.
    const fromPartner = await fetch(first.location!, { redirect: 'manual' });
    expect(fromPartner.status).toBe(302);
    const back = fromPartner.headers.get('location')!;
    expect(back).toMatch(new RegExp(`^http://resale\\.test/test/${p.id}/protected\\?lang=es&listing=lst_1&oneTimeToken=[0-9A-Za-z]{43}$`));
    expect(login.seen).toHaveLength(1);

    // 5. Back on the service: the token is swapped for a session and dropped from the URL.
    const landing = await browser.get(back);
    expect(landing.status).toBe(302);
    expect(landing.location).toBe(`/test/${p.id}/protected?lang=es&listing=lst_1`);
    const page = await browser.get(landing.location!);
    expect(page.status).toBe(200);
    const user = (await t.db.select().from(users).where(eq(users.externalId, 'user-881')).limit(1))[0]!;
    expect(user.partnerId).toBe(p.id);
    expect(page.text).toContain(`user:${user.id}`);
    expect(await t.db.select().from(sessions)).toHaveLength(1);

    // The same link again (say, from history) signs nobody else in.
    const replay = await new TestBrowser(t.app).get(back);
    expect(replay.status).toBe(410);
  });

  it('sends a partner without loginUrl to the one-time-password page, with returnTo and lang', async () => {
    const t = mountAuth(createTestApp());
    const p = await t.partner('Guests');
    const res = await new TestBrowser(t.app).get(`/test/${p.id}/protected?lang=es`);
    expect(res.status).toBe(302);
    const to = new URL(res.location!);
    expect(to.origin + to.pathname).toBe('http://resale.test/auth/otp');
    expect(to.searchParams.get('p')).toBe(p.id);
    expect(to.searchParams.get('returnTo')).toBe(`http://resale.test/test/${p.id}/protected?lang=es`);
    expect(to.searchParams.get('lang')).toBe('es');
  });

  it('never puts a foreign returnTo in the login redirect (open redirect refused)', async () => {
    const t = mountAuth(createTestApp());
    const p = await t.partner('Acme', { loginUrl: 'https://acme.example/login' });
    const here = `http://resale.test/test/${p.id}/protected`;
    for (const evil of ['https://evil.com/', '//evil.com', 'http://resale.test.evil.com/', 'http://resale.test@evil.com/', 'javascript:alert(1)']) {
      const res = await new TestBrowser(t.app).get(`/test/${p.id}/protected?returnTo=${encodeURIComponent(evil)}`);
      expect(res.status).toBe(302);
      // The current page instead (where the evil value is only a harmless query parameter).
      const returnTo = new URL(new URL(res.location!).searchParams.get('returnTo')!);
      expect(returnTo.origin + returnTo.pathname, evil).toBe(here);
    }
    const fine = await new TestBrowser(t.app).get(`/test/${p.id}/protected?returnTo=${encodeURIComponent('/test/elsewhere?x=1')}`);
    expect(new URL(fine.location!).searchParams.get('returnTo')).toBe('http://resale.test/test/elsewhere?x=1');
  });

  it('the sign-in pages of a Login Force partner send people to its login page', async () => {
    const t = mountAuth(createTestApp());
    const p = await t.partner('Acme', { loginUrl: 'https://acme.example/login' });
    const res = await new TestBrowser(t.app).get(`/auth/otp?p=${p.id}&returnTo=${encodeURIComponent('http://resale.test/buy/1')}`);
    expect(res.status).toBe(302);
    expect(res.location).toBe(`https://acme.example/login?returnTo=${encodeURIComponent('http://resale.test/buy/1')}`);
    const post = await new TestBrowser(t.app).post(`/auth/otp?p=${p.id}`, { identifier: 'ana@example.com' });
    expect(post.status).toBe(302);
    expect(await t.deps.messages.list()).toHaveLength(0);
  });
});
