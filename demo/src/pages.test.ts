import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from './app.js';
import { formatDate, jsonBlock } from './pages.js';
import { formatInstant } from '@resale/shared/format';
import { resolveReturnTo } from './session.js';
import { DemoStore } from './store.js';
import { freePort, startTestStack, TEST_KEYS, TestBrowser, type TestStack } from './testing.js';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(async () => {
  await s?.stop();
});

/** The data blocks of a page: id -> parsed JSON. */
function dataBlocks(html: string): Map<string, any> {
  const blocks = new Map<string, any>();
  for (const m of html.matchAll(/<script type="application\/json" id="([^"]+)">([\s\S]*?)<\/script>/g)) blocks.set(m[1]!, JSON.parse(m[2]!));
  return blocks;
}

describe('sign-in and Login Force', () => {
  it('the login page lists the demo users, says it is a demo, and signs in with an HttpOnly SameSite=Lax cookie', async () => {
    const b = new TestBrowser();
    const page = await b.get(`${s.demoUrl}/login`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="en">');
    for (const name of ['Ana García', 'Ben Okafor', 'Carla Rossi']) expect(page.text).toContain(name);
    expect(page.text).toMatch(/This is a demo: there are no passwords/);
    const res = await b.post(`${s.demoUrl}/login`, { user: 'u-ana', returnTo: '/my-tickets' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/my-tickets');
    const cookie = res.headers.getSetCookie().join('\n');
    expect(cookie).toMatch(/demo_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect((await b.get(`${s.demoUrl}/`)).text).toContain('Signed in as Ana García');
    const out = await b.post(`${s.demoUrl}/logout`, {});
    expect(out.status).toBe(303);
    expect((await b.get(`${s.demoUrl}/`)).text).not.toContain('Signed in as');
  });

  it('round trip: the service sends the buyer to /login with returnTo; the demo comes back with a one-time token that signs them in there', async () => {
    const b = new TestBrowser();
    const returnTo = `${s.serviceUrl}/auth/session?lang=en`;
    const page = await b.get(`${s.demoUrl}/login?returnTo=${encodeURIComponent(returnTo)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('back to the resale service');
    const res = await b.post(`${s.demoUrl}/login`, { user: 'u-ben', returnTo });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(new RegExp(`^${s.serviceUrl}/auth/session\\?lang=en&oneTimeToken=[0-9A-Za-z_-]{20,}$`));

    // On the service: the token becomes a session of Ben's.
    const landing = await b.get(res.location!);
    expect(landing.status).toBe(302);
    const who = await b.get(new URL(landing.location!, s.serviceUrl).href);
    expect(who.status).toBe(200);
    expect(who.text).toContain('ben@demo.test');
    // Single use.
    expect((await new TestBrowser().get(res.location!)).status).toBe(410);

    // Already signed in on the demo: the login page sends the browser straight back with a fresh token.
    const again = await b.get(`${s.demoUrl}/login?returnTo=${encodeURIComponent(returnTo)}`);
    expect(again.status).toBe(303);
    expect(again.location).toMatch(/oneTimeToken=/);
    expect(again.location).not.toBe(res.location);
  });

  it('signing out of the demo signs out of the resale service in the same browser (through its sign-out URL)', async () => {
    const b = new TestBrowser();
    await b.signIn(s.demoUrl, 'u-ana');
    // Ana on the service, by Login Force.
    const returnTo = `${s.serviceUrl}/auth/session?lang=en`;
    const toService = await b.get(`${s.demoUrl}/login?returnTo=${encodeURIComponent(returnTo)}`);
    expect(toService.status).toBe(303);
    expect((await b.get(toService.location!)).status).toBe(302);
    expect((await b.get(returnTo)).text).toContain('ana@demo.test');

    const out = await b.post(`${s.demoUrl}/logout`, {});
    expect(out.status).toBe(303);
    const via = new URL(out.location!);
    expect(via.origin + via.pathname).toBe(`${s.serviceUrl}/auth/sign-out`);
    const back = await b.get(out.location!);
    expect(back.status).toBe(303);
    expect(back.location).toBe(`${s.demoUrl}/`);
    expect((await b.get(returnTo)).text).not.toContain('ana@demo.test');
    expect((await b.get(`${s.demoUrl}/`)).text).not.toContain('Signed in as');
  });

  it('"Not you? Sign out" on the market holds: the next signed link does not sign Ana back in, and the demo asks who is buying (prompt=login)', async () => {
    const b = new TestBrowser();
    await b.signIn(s.demoUrl, 'u-ana');
    const signedLink = async () => {
      const event = await b.get(`${s.demoUrl}/events/demo-gala`);
      return event.text.match(/<a class="button" href="([^"]+)">See resale tickets<\/a>/)![1]!.replace(/&amp;/g, '&');
    };
    const openMarket = async () => {
      const first = await b.get(await signedLink());
      expect(first.status).toBe(302);
      return b.get(new URL(first.location!, s.serviceUrl).href);
    };
    const market = await openMarket();
    expect(market.text).toContain('ana@demo.test');

    // Not you? Sign out.
    const csrf = market.text.match(/action="\/auth\/logout\?lang=en"[^>]*>\s*<input type="hidden" name="_csrf" value="([^"]+)"/)![1]!;
    const here = market.text.match(/name="returnTo" value="([^"]+)"/)![1]!.replace(/&amp;/g, '&');
    const out = await b.post(`${s.serviceUrl}/auth/logout?lang=en`, { _csrf: csrf, returnTo: here });
    expect(out.status).toBe(303);
    expect((await b.get(new URL(out.location!, s.serviceUrl).href)).text).not.toContain('ana@demo.test');

    // The demo still has Ana signed in and signs every link for her: the service does not take it.
    expect((await openMarket()).text).not.toContain('ana@demo.test');

    // Login Force asks the demo with prompt=login: the demo shows who could buy instead of answering at once.
    const partnerId = new URL(await signedLink()).pathname.split('/')[2]!;
    const toLogin = await b.get(`${s.serviceUrl}/auth/otp?p=${partnerId}&returnTo=${encodeURIComponent(`${s.serviceUrl}/auth/session?lang=en`)}`);
    const login = new URL(toLogin.location!);
    expect(login.origin + login.pathname).toBe(`${s.demoUrl}/login`);
    expect(login.searchParams.get('prompt')).toBe('login');
    const prompt = await b.get(toLogin.location!);
    expect(prompt.status).toBe(200);
    expect(prompt.text).toContain('You signed out of the resale service. Choose who is buying');
    // Ben, deliberately: signed in on the service as Ben.
    const chosen = await b.post(`${s.demoUrl}/login`, { user: 'u-ben', returnTo: login.searchParams.get('returnTo')! });
    const token = await b.get(chosen.location!);
    expect((await b.get(new URL(token.location!, s.serviceUrl).href)).text).toContain('ben@demo.test');
  });

  it('never follows a foreign returnTo (no open redirect)', async () => {
    const b = new TestBrowser();
    const svc = new URL(s.serviceUrl);
    const evil = ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', `http://${svc.host}@evil.example/`, `http://${svc.hostname}.evil.example:${svc.port}/`, 'http://localhost:1/'];
    for (const returnTo of evil) {
      const page = await b.get(`${s.demoUrl}/login?returnTo=${encodeURIComponent(returnTo)}`);
      expect(page.status, returnTo).toBe(200);
      expect(page.text, returnTo).toContain('will not be followed');
      const res = await b.post(`${s.demoUrl}/login`, { user: 'u-carla', returnTo });
      expect(res.status, returnTo).toBe(303);
      expect(res.location, returnTo).toBe('/');
      // Signed in now: still no redirect anywhere but the page itself.
      const signedIn = await b.get(`${s.demoUrl}/login?returnTo=${encodeURIComponent(returnTo)}`);
      expect(signedIn.status, returnTo).toBe(200);
      expect(signedIn.location).toBeNull();
      await b.post(`${s.demoUrl}/logout`, {});
    }
  });

  it('resolveReturnTo keeps the demo and the service, refuses the rest', () => {
    const self = 'http://localhost:3001';
    const svc = 'http://localhost:3000';
    expect(resolveReturnTo('/my-tickets?x=1', self, svc)).toEqual({ kind: 'self', path: '/my-tickets?x=1' });
    expect(resolveReturnTo('http://localhost:3001/events/a', self, svc)).toEqual({ kind: 'self', path: '/events/a' });
    expect(resolveReturnTo(null, self, svc)).toEqual({ kind: 'self', path: '/' });
    expect(resolveReturnTo('http://localhost:3000/checkout/p/1?a=b', self, svc)).toMatchObject({ kind: 'service' });
    for (const bad of ['http://localhost:3002/', 'https://localhost:3000/', 'http://a@localhost:3000/', 'data:text/html,x', '/x\n//evil', 'http://localhost:3000\\@evil']) {
      expect(resolveReturnTo(bad, self, svc), bad).toEqual({ kind: 'refused' });
    }
  });

  it('refuses forged form posts (CSRF) and unknown users', async () => {
    const b = new TestBrowser();
    expect((await b.post(`${s.demoUrl}/login`, { user: 'u-ana' }, { origin: 'https://evil.example' })).status).toBe(403);
    const noOrigin = await fetch(`${s.demoUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=u-ana', redirect: 'manual' });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.headers.getSetCookie()).toEqual([]);
    const unknown = await b.post(`${s.demoUrl}/login`, { user: 'u-nobody' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('Choose one of the users listed.');
    expect(unknown.headers.getSetCookie()).toEqual([]);
    expect((await b.post(`${s.demoUrl}/logout`, {}, { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('a forged session cookie is no session', async () => {
    const res = await fetch(`${s.demoUrl}/my-tickets`, { headers: { cookie: 'demo_session=u-ana.AAAA' }, redirect: 'manual' });
    expect(res.status).toBe(302);
  });
});

describe('pages', () => {
  it('writes a show’s date exactly as the resale pages do: the venue’s time zone, named', () => {
    for (const [iso, zone] of [['2027-01-19T18:00:00Z', 'Europe/Madrid'], ['2026-07-04T23:30:00Z', 'America/New_York'], ['2026-03-29T00:30:00Z', 'Europe/London']] as const) {
      expect(formatDate(iso, zone)).toBe(formatInstant(Date.parse(iso), 'en', zone));
    }
    expect(formatDate('2027-01-19T18:00:00Z', 'Europe/Madrid')).toBe('Tuesday, 19 January 2027 at 19:00 CET');
  });

  it('home lists the events and links to My tickets, Webhooks and sign-in, under the CSP that allows the service', async () => {
    const res = await new TestBrowser().get(`${s.demoUrl}/`);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^<!DOCTYPE html><html lang="en">/);
    for (const href of ['/events/demo-gala', '/events/demo-festival', '/my-tickets', '/webhooks', '/login']) expect(res.text).toContain(`href="${href}"`);
    expect(res.text).toContain('4242 4242 4242 4242');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain(`script-src 'self' ${s.serviceUrl}`);
    expect(csp).toContain(`connect-src 'self' ${s.serviceUrl}`);
    expect(csp).toContain(`img-src 'self' data: ${s.serviceUrl}`);
    expect(csp).not.toContain('unsafe-inline');
    expect(res.text).not.toMatch(/<script(?![^>]*\b(src|type="application\/json")\b)/);
    expect(res.text).not.toMatch(/\sstyle=/);
  });

  it('an event page drops the widgets as a partner would, with a no-JavaScript link to the market', async () => {
    const res = await new TestBrowser().get(`${s.demoUrl}/events/demo-gala`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<script type="module" src="${s.serviceUrl}/widgets/v1/resale.js"></script>`);
    expect(res.text).toContain(`<resale-access-layer event-id="demo-gala" show-id="gala-1" lang="en" public-key="${TEST_KEYS.public}" api-base="${s.serviceUrl}">`);
    expect(res.text).toContain('Aurora Orchestra: Winter Gala');
    expect(res.text).toMatch(/<button type="button" disabled="">Sold out<\/button>|<button type="button" disabled>Sold out<\/button>/);
    const link = res.text.match(/<a class="button" href="([^"]+)">See resale tickets<\/a>/)![1]!.replace(/&amp;/g, '&');
    expect(link.startsWith(s.serviceUrl)).toBe(true);
    const market = await fetch(link, { redirect: 'manual' });
    expect(market.status).toBeLessThan(400);
    expect(link).not.toContain('oneTimeToken');
    expect((await new TestBrowser().get(`${s.demoUrl}/events/nope`)).status).toBe(404);
  });

  it('signs the no-JavaScript market link for the signed-in user (Login Trust)', async () => {
    const b = new TestBrowser();
    await b.signIn(s.demoUrl, 'u-ben');
    const res = await b.get(`${s.demoUrl}/events/demo-festival`);
    const link = res.text.match(/<a class="button" href="([^"]+)">See resale tickets<\/a>/)![1]!.replace(/&amp;/g, '&');
    expect(link).toMatch(/oneTimeToken=/);
    expect(res.text).toContain('Demo Fest: Summer Nights');
    // The widgets get the buy access layer signed for Ben (his own holds apart from others'), in an inert data block.
    expect(res.text).toContain('data-resale-data="resale-buy-components"');
    expect(res.text).toContain('<script type="module" src="/assets/resale-data.js"></script>');
    const block = JSON.parse(res.text.match(/<script type="application\/json" id="resale-buy-components">([^<]*)<\/script>/)![1]!) as { class: string; buyButton?: { callToAction: { url: string } } }[];
    const button = block.find((c) => c.class === 'buyButton')!;
    expect(new URL(button.buyButton!.callToAction.url).searchParams.get('oneTimeToken')).toBeTruthy();
    // Signed out: no block, the widgets ask the service with the public key.
    expect((await new TestBrowser().get(`${s.demoUrl}/events/demo-festival`)).text).not.toContain('resale-buy-components');
  });

  it('the widget bundle and the CORS the page relies on come from the service', async () => {
    const res = await fetch(`${s.serviceUrl}/v1/wrapper/accesslayer?type=buy&eventId=demo-gala&showId=gala-1`, { headers: { authorization: TEST_KEYS.public, origin: s.demoUrl } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(s.demoUrl);
  });

  it('assets are files (no inline script or style) with their types', async () => {
    const js = await fetch(`${s.demoUrl}/assets/resale-data.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await js.text()).toContain('data-resale-data');
    const css = await fetch(`${s.demoUrl}/assets/demo.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect((await fetch(`${s.demoUrl}/assets/../start.ts`)).status).toBe(404);
  });
});

describe('My tickets', () => {
  it('needs a signed-in user', async () => {
    const res = await new TestBrowser().get(`${s.demoUrl}/my-tickets`);
    expect(res.status).toBe(302);
    expect(res.location).toBe('/login?returnTo=%2Fmy-tickets');
  });

  it('renders each ticket with the sell access layer status and a <resale-sell-actions> fed from a data block', async () => {
    const b = new TestBrowser();
    await b.signIn(s.demoUrl, 'u-ana');
    const res = await b.get(`${s.demoUrl}/my-tickets`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toContain('<script type="module" src="/assets/resale-data.js"></script>');
    const blocks = dataBlocks(res.text);
    const ana = s.demo.store.ticketsOf('u-ana');
    expect(ana.length).toBeGreaterThan(0);
    for (const t of ana) {
      const entry = blocks.get(`resale-entry-${t.ticketId}`);
      expect(entry, t.ticketId).toMatchObject({ ticketId: t.ticketId, status: 'SELLABLE', sync: true });
      const sell = entry.callToActions.find((c: { key: string }) => c.key === 'SELL');
      // autologin: the seller arrives signed in.
      expect(sell.url).toMatch(/oneTimeToken=/);
      expect(sell.url.startsWith(s.serviceUrl)).toBe(true);
      expect(res.text).toContain(`<resale-sell-actions data-resale-data="resale-entry-${t.ticketId}" lang="en">`);
      // The no-JavaScript fallback: a plain link to the same URL.
      expect(res.text).toContain(`href="${sell.url.replace(/&/g, '&amp;')}"`);
    }
    expect(res.text).toContain('You can resell this ticket');
    expect(res.text).not.toContain('dt-gala-c4'); // Carla's
    // Seated tickets by seat, general admission by the option's name.
    expect(res.text).toContain('<h3>Stalls · Row A · Seat 5</h3>');
    expect(res.text).toContain('<h3>General admission</h3>');
    const ben = new TestBrowser();
    await ben.signIn(s.demoUrl, 'u-ben');
    expect((await ben.get(`${s.demoUrl}/my-tickets`)).text).toContain('<h3>Early entry</h3>');
  });

  it('links each ticket to its secure ticket view (GET /v1/tickets/:ticketId/url), which opens', async () => {
    const b = new TestBrowser();
    await b.signIn(s.demoUrl, 'u-ana');
    const res = await b.get(`${s.demoUrl}/my-tickets`);
    const ana = s.demo.store.ticketsOf('u-ana');
    for (const t of ana) {
      const url = (await s.api('GET', `/v1/tickets/${encodeURIComponent(t.ticketId)}/url`)).body.data as string;
      expect(res.text, t.ticketId).toContain(`<a class="button secondary" href="${url.replace(/&/g, '&amp;')}">View ticket`);
    }
    const first = res.text.match(/<a class="button secondary" href="([^"]+)">View ticket/)![1]!.replace(/&amp;/g, '&');
    expect((await new TestBrowser().get(first)).status).toBe(200);
  });

  it('follows the service: a show with resale switched off shows NOT_SELLABLE without a Sell action', async () => {
    const gala = await s.api('GET', '/v1/events/demo-gala');
    const show = gala.body.data.shows[0];
    const off = await s.api('PUT', '/v1/events', { externalReferenceId: 'demo-gala', shows: [{ showId: show.showId, resaleEnabled: false }] });
    expect(off.status).toBe(200);
    try {
      const b = new TestBrowser();
      await b.signIn(s.demoUrl, 'u-carla');
      const res = await b.get(`${s.demoUrl}/my-tickets`);
      const blocks = dataBlocks(res.text);
      expect(blocks.get('resale-entry-dt-gala-c4')).toMatchObject({ status: 'NOT_SELLABLE', callToActions: [] });
      expect(blocks.get('resale-entry-dt-festival-0003')).toMatchObject({ status: 'SELLABLE' });
      expect(res.text).toContain('Resale is not available for this ticket');
    } finally {
      await s.api('PUT', '/v1/events', { externalReferenceId: 'demo-gala', shows: [{ showId: show.showId, resaleEnabled: true }] });
    }
  });

  it('a user without tickets sees an empty state', async () => {
    const b = new TestBrowser();
    await b.signIn(s.demoUrl, 'u-dan');
    const res = await b.get(`${s.demoUrl}/my-tickets`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('You have no tickets.');
    expect(res.text).not.toContain('<resale-sell-actions');
  });

  it('still shows the tickets when the service is down', async () => {
    const port = await freePort();
    const store = DemoStore.open(`${s.dir}/copy-${port}.json`);
    store.state = structuredClone(s.demo.store.state);
    const app = createDemoApp({ ...TEST_KEYS_OPTIONS(), serviceUrl: `http://127.0.0.1:${port}`, store, sessionSecret: 'x'.repeat(32) });
    const login = await app.request('/login', { method: 'POST', headers: { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=u-ana' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const res = await app.request('/my-tickets', { headers: { cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('The resale service did not answer');
    expect(html).toContain('dt-gala-a5');
    expect(html).not.toContain('<resale-sell-actions');
  });
});

function TEST_KEYS_OPTIONS() {
  return { publicKey: TEST_KEYS.public, privateKey: TEST_KEYS.private, webhookSecret: TEST_KEYS.webhookSecret, platformSecret: TEST_KEYS.platformSecret };
}

describe('jsonBlock', () => {
  it('cannot close its script element or break the page', () => {
    const value = { text: '</script><script>alert(1)</script>', amp: 'a&b', sep: '\u2028\u2029' };
    const out = jsonBlock(value);
    expect(out).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(value);
  });
});
