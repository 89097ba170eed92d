import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../lib/config.js';
import { TestBrowser } from '../pages/auth/auth.testing.js';
import { createTestApp } from '../../testing/harness.js';
import { PAGE_RATE_LIMIT_DEFAULTS } from '../../lib/config.js';
import { isPagePath } from './page-rate-limit.js';

/** A test app with the production limits (the harness's are higher), or `config`'s. */
function setup(config: Partial<AppConfig> = {}) {
  const t = createTestApp({ pageRateLimitPerMinute: PAGE_RATE_LIMIT_DEFAULTS.perMinute, pagePostRateLimitPerMinute: PAGE_RATE_LIMIT_DEFAULTS.postPerMinute, ...config });
  return { t, fan: new TestBrowser(t.app, '203.0.113.10'), other: new TestBrowser(t.app, '203.0.113.11') };
}

/** A cheap page: the secure view of a token that does not exist. */
const PAGE = '/tickets/view/not-a-token';

describe('per-address limit of the hosted pages', () => {
  it('lets an address burst to PAGE_RATE_LIMIT_PER_MINUTE (300), then answers a localised 429 notice with Retry-After', async () => {
    expect(PAGE_RATE_LIMIT_DEFAULTS).toEqual({ perMinute: 300, postPerMinute: 60 });
    const { t, fan, other } = setup();
    for (let i = 0; i < 300; i++) expect((await fan.get(PAGE)).status).not.toBe(429);
    const limited = await fan.get(PAGE);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('61');
    expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
    expect(limited.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(limited.text).toContain('<h1>Too many requests</h1>');
    expect(limited.text).toContain('Please wait 61 s and try again.');
    const es = await fan.get(`${PAGE}?lang=es`);
    expect(es.status).toBe(429);
    expect(es.text).toContain('<html lang="es">');
    expect(es.text).toContain('<h1>Demasiadas solicitudes</h1>');

    // Per address: another client is not affected.
    expect((await other.get(PAGE)).status).not.toBe(429);
    // The limiter reads the service's clock: nothing comes back within the minute, all 300 once it has passed.
    t.clock.advance(60_000);
    expect((await fan.get(PAGE)).status).toBe(429);
    t.clock.advance(1_000);
    for (let i = 0; i < 300; i++) expect((await fan.get(PAGE)).status).not.toBe(429);
    expect((await fan.get(PAGE)).status).toBe(429);
  });

  it('limits POSTs to pages more strictly (PAGE_POST_RATE_LIMIT_PER_MINUTE, 60), before reading the form', async () => {
    const { t, fan } = setup();
    const p = await t.partner('Guests');
    const post = () => fan.post(`/auth/otp?p=${p.id}`, { identifier: 'ana@example.com' });
    // Without a CSRF token each is refused (403), cheaply; the limit counts them all the same.
    for (let i = 0; i < 60; i++) expect((await post()).status).toBe(403);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('61');
    expect(limited.text).toContain('Too many requests');
    // Reading pages goes on: the refused POST took nothing from the page bucket.
    expect((await fan.get(`/auth/otp?p=${p.id}`)).status).toBe(200);
    t.clock.advance(61_000);
    expect((await post()).status).toBe(403);
  });

  it('covers every server-rendered page and the reference, not the API, the widget files or the dev mailbox', async () => {
    for (const path of ['/sell/ptr_1/start', '/market/ptr_1/tour', '/checkout/ptr_1/bi_1', '/auth/otp', '/auth/session', '/tickets/view/x', '/tickets/view/x/ticket.pdf', '/docs', '/docs/assets/x.js']) {
      expect(isPagePath(path), path).toBe(true);
    }
    for (const path of ['/v1/events', '/admin/v1/partners', '/widgets/v1/resale.js', '/dev/mailbox', '/docsx', '/selling', '/tickets/viewer', '/']) {
      expect(isPagePath(path), path).toBe(false);
    }

    const { fan } = setup({ pageRateLimitPerMinute: 3, pagePostRateLimitPerMinute: 1 });
    for (const path of ['/sell/ptr_x/start', '/market/ptr_x/tour', '/checkout/ptr_x/bi_x']) expect((await fan.get(path)).status, path).not.toBe(429);
    expect((await fan.get('/docs')).status).toBe(429);
    // The API answers as ever (it has its per-partner limit).
    for (let i = 0; i < 10; i++) expect((await fan.get('/v1/events/x')).status).toBe(401);
  });

  it('counts the address TRUST_PROXY allows: a made-up X-Forwarded-For does not reset it', async () => {
    const { fan } = setup({ pageRateLimitPerMinute: 5 });
    for (let i = 0; i < 5; i++) expect((await fan.get(PAGE, { 'x-forwarded-for': `198.51.100.${i}` })).status).not.toBe(429);
    expect((await fan.get(PAGE, { 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);

    // Behind one trusted proxy, each client behind it has its own count.
    const behind = setup({ pageRateLimitPerMinute: 5, trustProxy: 1 });
    const proxy = new TestBrowser(behind.t.app, '10.0.0.2');
    for (let i = 0; i < 5; i++) expect((await proxy.get(PAGE, { 'x-forwarded-for': '198.51.100.1' })).status).not.toBe(429);
    expect((await proxy.get(PAGE, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
    expect((await proxy.get(PAGE, { 'x-forwarded-for': '198.51.100.2' })).status).not.toBe(429);
    // An IPv6 client counts by its /64: rotating the interface part does not help.
    const v6 = setup({ pageRateLimitPerMinute: 5 });
    for (let i = 0; i < 5; i++) expect((await new TestBrowser(v6.t.app, `2001:db8:1:2::${i + 1}`).get(PAGE)).status).not.toBe(429);
    expect((await new TestBrowser(v6.t.app, '2001:db8:1:2::ffff').get(PAGE)).status).toBe(429);
    expect((await new TestBrowser(v6.t.app, '2001:db8:1:3::1').get(PAGE)).status).not.toBe(429);
  });

  it('is off with 0', async () => {
    const { fan, t } = setup({ pageRateLimitPerMinute: 0, pagePostRateLimitPerMinute: 0 });
    const p = await t.partner('Guests');
    for (let i = 0; i < 400; i++) expect((await fan.get(PAGE)).status).not.toBe(429);
    for (let i = 0; i < 100; i++) expect((await fan.post(`/auth/otp?p=${p.id}`, { identifier: 'x' })).status).toBe(403);
  });
});
