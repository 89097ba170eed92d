import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../testing/harness.js';
import { DOOR_SCRIPT } from './door.pages.js';

/**
 * The venue's scanner page's shell (`/door`) and its service worker (`/door/sw.js`): the same
 * page for every door (its script reads the door's token from the link's fragment, which never
 * reaches the service), in the language asked for, with every text its script says; and the
 * worker allowed the page's scope. What the page does is the browser's test (e2e/src/door.test.ts).
 */
describe('the door scanner page', () => {
  it('serves the shell with its script, its texts in the page’s language, and a policy that allows calls to the service only', async () => {
    const t = createTestApp();
    const res = await t.app.request('/door');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    const html = await res.text();
    expect(html).toContain(`<script type="module" src="${DOOR_SCRIPT}"></script>`);
    expect(DOOR_SCRIPT).toBe('/widgets/v1/door.js');
    expect(html).toContain('<html lang="en"');
    const texts = JSON.parse(/data-texts="([^"]*)"/.exec(html)![1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')) as Record<string, string>;
    // A verdict for every reason the service or the kit gives.
    for (const reason of ['admitted', 'already_admitted', 'revoked', 'expired', 'other_show', 'kit_expired', 'forged', 'malformed']) expect(texts[`reason_${reason}`], reason).toBeTruthy();
    expect(texts.closed).toMatch(/revoked/);

    const es = await (await t.app.request('/door?lang=es')).text();
    expect(es).toContain('<html lang="es"');
    expect(es).toContain('Escáner de acceso');
    // An unknown language is the page's default, never an error.
    expect((await t.app.request('/door?lang=xx')).status).toBe(200);
    // No page under it but its worker.
    expect((await t.app.request('/door/anything')).status).toBe(404);
  });

  it('serves the worker for the scope /door, keeping only the page, its script and its QR decoder', async () => {
    const t = createTestApp();
    const res = await t.app.request('/door/sw.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('service-worker-allowed')).toBe('/door');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; connect-src 'self'");
    const script = await res.text();
    expect(script).toContain('var PAGE = new RegExp("^/door$")');
    const kept = new RegExp(JSON.parse(/var SCRIPT = new RegExp\(("[^"]+")\);/.exec(script)![1]!) as string);
    expect(['/widgets/v1/door.js', '/widgets/v1/door-qr.js', '/widgets/v1/chunks/a1.js'].filter((p) => !kept.test(p))).toEqual([]);
    expect(['/widgets/v1/ticket-code.js', '/widgets/v1/resale.js', '/widgets/v1/doorXqr.js', '/widgets/v1/door.js.br', '/v1/door', '/door'].filter((p) => kept.test(p))).toEqual([]);
    expect(script).toContain('var DROP_ON_404 = false');
    // The door API (its answers carry the show's tickets) is never cached by the worker.
    expect(script).not.toMatch(/["^]\/v1\//);
  });
});
