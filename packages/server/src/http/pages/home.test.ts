import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';

describe('the landing page and the favicon', () => {
  it('answers GET / with a page that says what the service is and links to the API reference, in English and Spanish', async () => {
    const t = createTestApp();
    const en = await t.app.request('/');
    expect(en.status).toBe(200);
    expect(en.headers.get('content-type')).toMatch(/^text\/html/);
    expect(en.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await en.text();
    expect(html).toContain('<h1>Official resale for ticketing platforms</h1>');
    expect(html).toContain('href="/docs"');
    // The widgets' guide, a page of the reference.
    expect(html).toContain('<a href="/docs#description/widgets">Put resale on your pages: the widgets guide</a>');
    expect(html).toContain('<html lang="en">');
    const es = await (await t.app.request('/?lang=es')).text();
    expect(es).toContain('<html lang="es">');
    expect(es).toContain('Lee la referencia de la API');
    expect(es).toContain('<a href="/docs#description/widgets">Pon la reventa en tus páginas: la guía de los widgets</a>');
    // Other methods on / are still refused as before.
    expect((await t.app.request('/', { method: 'POST' })).status).toBe(405);
  });

  it('serves the favicon every page links, and at /favicon.ico for browsers that ask on their own', async () => {
    const t = createTestApp();
    const page = await (await t.app.request('/')).text();
    expect(page).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const res = await t.app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
  });
});
