import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/harness.js';
import { sessions } from '../../../domain/auth/auth.table.js';
import { authService } from '../../../domain/auth/auth.service.js';
import { csrfOf, mountAuth, TestBrowser } from './auth.testing.js';

/**
 * Signing out: "Not you? Sign out" on the service must not be undone by the partner's seamless
 * sign-in (Login Trust, Login Force answering at once) of the same person, and the partner's
 * own sign-out must end the service session in that browser.
 */

async function setup() {
  const t = mountAuth(createTestApp());
  const p = await t.partner('Acme', { loginUrl: 'https://acme.example/login', allowedOrigins: ['https://acme.example'] });
  const other = await t.partner('Other');
  return { t, p, other };
}

/** A single-use token for `user` minted for `purpose`, as the API answers mint them. */
async function token(t: TestApp, partnerId: string, user: string, purpose: string): Promise<string> {
  return t.db.transact(async (tx) => {
    const auth = authService(t.deps);
    const row = await auth.resolveUser(tx, partnerId, user);
    return auth.mintOneTimeToken(tx, partnerId, row.id, purpose);
  });
}

const page = (p: { id: string }, query = '') => `/test/${p.id}/protected${query}`;

/** Opens a token URL as a browser does: the token is redeemed, then the page without it. */
async function open(browser: TestBrowser, url: string) {
  const first = await browser.get(url);
  expect(first.status).toBe(302);
  return browser.get(first.location!);
}

/** Signs out with the hosted pages' button ("Not you? Sign out"). */
async function signOutHere(browser: TestBrowser) {
  const who = await browser.get('/auth/session?lang=en');
  const res = await browser.post('/auth/logout?lang=en', { _csrf: csrfOf(who.text, '/auth/logout?lang=en')!, returnTo: '/auth/session' });
  // The codes of rotating tickets kept in this browser go with the session (a shared phone).
  expect(res.headers.get('clear-site-data')).toBe('"storage"');
  expect(res.status).toBe(303);
  return res;
}

describe('"Not you? Sign out" on the service', () => {
  it('is not undone by the partner signing the same user in again seamlessly; a deliberate sign-in is honoured', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const signedIn = await open(browser, page(p, `?oneTimeToken=${await token(t, p.id, 'ana@example.com', 'accessLayer')}`));
    expect(signedIn.status).toBe(200);

    await signOutHere(browser);
    expect(browser.cookies.has('resale_signed_out')).toBe(true);

    // The partner still has Ana signed in: its next Login Trust links (buy button, checkout) sign nobody in.
    for (const purpose of ['accessLayer', 'buyFlow', 'sellFlow', 'checkout']) {
      const seamless = await token(t, p.id, 'ana@example.com', purpose);
      const landing = await browser.get(page(p, `?oneTimeToken=${seamless}&x=1`));
      expect(landing.status, purpose).toBe(302);
      expect(landing.location, purpose).toBe(page(p, '?x=1'));
      // Back to the page: signed out, so Login Force asks the partner who is there.
      const next = await browser.get(landing.location!);
      expect(next.status).toBe(302);
      const login = new URL(next.location!);
      expect(login.origin + login.pathname).toBe('https://acme.example/login');
      expect(login.searchParams.get('prompt'), purpose).toBe('login');
      // The token is used up all the same (single use): it cannot sign in anyone later.
      expect((await new TestBrowser(t.app).get(page(p, `?oneTimeToken=${seamless}`))).status).toBe(410);
    }
    expect(await t.db.select().from(sessions)).toHaveLength(1);

    // Someone else signed in on the partner: their seamless link works (the marker is Ana's only).
    const ben = await open(browser, page(p, `?oneTimeToken=${await token(t, p.id, 'ben@example.com', 'accessLayer')}`));
    expect(ben.status).toBe(200);
    await signOutHere(browser);

    // The partner's Login Force (GET /v1/auth/oneTimeToken) after asking: deliberate, honoured, marker gone.
    const login = await t.request('GET', '/v1/auth/oneTimeToken?user=ana%40example.com', { key: p.keys.private });
    const back = await open(browser, page(p, `?oneTimeToken=${login.body.data}`));
    expect(back.status).toBe(200);
    expect(browser.cookies.has('resale_signed_out')).toBe(false);
    // And from then on Login Trust is seamless again, with no prompt.
    const again = await open(browser, page(p, `?oneTimeToken=${await token(t, p.id, 'ana@example.com', 'accessLayer')}`));
    expect(again.status).toBe(200);
  });

  it('asks for a prompt only at the partner signed out of, and a forged marker signs nobody out', async () => {
    const { t, p } = await setup();
    const q = await t.partner('Quux', { loginUrl: 'https://quux.example/login' });
    const browser = new TestBrowser(t.app);
    await open(browser, page(p, `?oneTimeToken=${await token(t, p.id, 'ana@example.com', 'accessLayer')}`));
    await signOutHere(browser);
    expect(new URL((await browser.get(page(q))).location!).searchParams.has('prompt')).toBe(false);
    // The OTP pages of a Login Force partner send to its login page with the prompt too.
    const otp = await browser.get(`/auth/otp?p=${p.id}&returnTo=${encodeURIComponent('http://resale.test/buy/1')}`);
    expect(new URL(otp.location!).searchParams.get('prompt')).toBe('login');

    // A marker naming the partner but not carrying the service's tag for this user blocks nothing.
    const forged = new TestBrowser(t.app);
    forged.cookies.set('resale_signed_out', `${p.id}.AAAA`);
    expect((await open(forged, page(p, `?oneTimeToken=${await token(t, p.id, 'ana@example.com', 'accessLayer')}`))).status).toBe(200);
  });
});

describe("the partner's sign-out (GET /auth/sign-out)", () => {
  it('ends the service session of that partner in this browser and goes back to the tagged returnTo from GET /v1/auth/signOutUrl', async () => {
    const { t, p } = await setup();
    const res = await t.request('GET', `/v1/auth/signOutUrl?returnTo=${encodeURIComponent('https://elsewhere.example/bye?x=1')}`, { key: p.keys.private });
    expect(res.status).toBe(200);
    const url = new URL(res.body.data as string);
    expect(url.origin + url.pathname).toBe('http://resale.test/auth/sign-out');
    expect(url.searchParams.get('p')).toBe(p.id);

    const browser = new TestBrowser(t.app);
    expect((await open(browser, page(p, `?oneTimeToken=${await token(t, p.id, 'ana@example.com', 'accessLayer')}`))).status).toBe(200);
    // A HEAD (link checker, prefetch) signs nobody out.
    expect((await t.app.request(url.pathname + url.search, { method: 'HEAD', headers: { cookie: `resale_session=${browser.cookies.get('resale_session')}` } })).status).toBe(303);
    expect((await browser.get(page(p))).status).toBe(200);
    const out = await browser.get(url.pathname + url.search);
    expect(out.status).toBe(303);
    expect(out.location).toBe('https://elsewhere.example/bye?x=1');
    expect(browser.cookies.has('resale_session')).toBe(false);
    expect((await t.db.select().from(sessions))[0]!.revokedAt).not.toBeNull();
    expect((await browser.get(page(p))).status).toBe(302);

    // The next person the partner signs in arrives seamlessly, even after a "Not you?" here before.
    await open(browser, page(p, `?oneTimeToken=${await token(t, p.id, 'ana@example.com', 'accessLayer')}`));
    await signOutHere(browser);
    await browser.get(url.pathname + url.search);
    expect(browser.cookies.has('resale_signed_out')).toBe(false);
    expect((await open(browser, page(p, `?oneTimeToken=${await token(t, p.id, 'ana@example.com', 'accessLayer')}`))).status).toBe(200);
  });

  it('follows only a returnTo on the partner’s allowed origins or tagged by the API; leaves another partner’s session alone', async () => {
    const { t, p, other } = await setup();
    const browser = new TestBrowser(t.app);
    await open(browser, page(other, `?oneTimeToken=${await token(t, other.id, 'ana@example.com', 'accessLayer')}`));
    const allowed = await browser.get(`/auth/sign-out?p=${p.id}&returnTo=${encodeURIComponent('https://acme.example/home')}`);
    expect(allowed.location).toBe('https://acme.example/home');
    for (const evil of ['https://evil.example/', '//evil.example', 'javascript:alert(1)', 'https://acme.example@evil.example/']) {
      const res = await browser.get(`/auth/sign-out?p=${p.id}&returnTo=${encodeURIComponent(evil)}&lang=es`);
      expect(res.status, evil).toBe(303);
      expect(res.location, evil).toBe('/auth/session?lang=es');
    }
    const forgedTag = await browser.get(`/auth/sign-out?p=${p.id}&returnTo=${encodeURIComponent('https://evil.example/')}&returnToTag=AAAA`);
    expect(forgedTag.location).toBe('/auth/session?lang=en');
    // Acme's sign-out did not touch the Other partner's session.
    expect((await browser.get(page(other))).status).toBe(200);
    expect((await browser.get('/auth/sign-out?p=ptr_unknown')).status).toBe(404);
  });

  it('GET /v1/auth/signOutUrl needs the private key (a public key could tag any address) and an http(s) returnTo', async () => {
    const { t, p } = await setup();
    const q = `returnTo=${encodeURIComponent('https://acme.example/')}`;
    expect((await t.request('GET', `/v1/auth/signOutUrl?${q}`, { key: p.keys.public })).status).toBe(403);
    expect((await t.request('GET', `/v1/auth/signOutUrl?${q}`)).status).toBe(401);
    const bad = await t.request('GET', `/v1/auth/signOutUrl?returnTo=${encodeURIComponent('javascript:alert(1)')}`, { key: p.keys.private });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ path: 'returnTo', in: 'query' });
  });
});
