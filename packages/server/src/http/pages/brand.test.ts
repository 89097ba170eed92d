import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { withEvent } from '../../testing/factories.js';

const BRANDING = {
  displayName: 'Partner <Tickets>',
  logoUrl: 'https://cdn.partner.example/logo.svg',
  color: '#5b21b6',
  supportUrl: 'https://partner.example/help',
  termsUrl: 'https://partner.example/terms',
};

describe('partner branding of the hosted pages', () => {
  it('shows the partner’s name or logo, its colour, help and terms, and the way back, escaped and allowed by the policy', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { branding: BRANDING, allowedOrigins: ['https://partner.example'] });
    await withEvent(t, p);
    const res = await t.app.request(`/market/${p.id}/tour?showId=show-1&returnTo=${encodeURIComponent('https://partner.example/events/tour')}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    // The logo is the way back too.
    expect(html).toContain('<a class="brand-link" href="https://partner.example/events/tour"><img src="https://cdn.partner.example/logo.svg" alt="Partner &lt;Tickets&gt;" height="40"/></a>');
    expect(html).toContain('<a class="back" href="https://partner.example/events/tour">Back to Partner &lt;Tickets&gt;</a>');
    expect(html).toContain('<style>:root{--brand:#5b21b6}</style>');
    expect(html).toContain('The official resale of Partner &lt;Tickets&gt;');
    expect(html).toContain('<a href="https://partner.example/help">Help</a>');
    expect(html).toContain('<a href="https://partner.example/terms">Terms of resale</a>');
    expect(html).not.toContain('<Tickets>');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain('img-src https://cdn.partner.example ');
    // The colour rule is allowed by its own hash, nothing broader.
    expect(csp).toMatch(/style-src 'sha256-[^']+' 'sha256-[^']+'/);
    expect(csp).not.toContain('unsafe-inline');
  });

  it('without branding shows the partner’s name and no way back it cannot check', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme Tickets');
    await withEvent(t, p);
    const html = await (await t.app.request(`/market/${p.id}/tour?showId=show-1&returnTo=${encodeURIComponent('https://evil.example/')}&lang=es`)).text();
    expect(html).toMatch(/<p class="brand">Acme Tickets<span class="by">Reventa oficial<\/span><\/p>/);
    expect(html).not.toContain('evil.example');
    expect(html).not.toMatch(/<style>:root\{--brand:#[0-9a-f]{6}\}<\/style>/);
    expect(html).toContain('La reventa oficial de Acme Tickets');
  });

  it('leads back to the partner’s site (setting siteUrl) from every branded page when the fan came with no checked returnTo', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme Tickets', { siteUrl: 'https://tickets.acme.example/' });
    await withEvent(t, p);
    // The market without a returnTo (or with one it cannot check), the sign-in page (where the sell pages start).
    for (const path of [`/market/${p.id}/tour?showId=show-1`, `/market/${p.id}/tour?showId=show-1&returnTo=${encodeURIComponent('https://evil.example/')}`, `/auth/otp?p=${p.id}&returnTo=${encodeURIComponent('http://resale.test/')}`]) {
      const html = await (await t.app.request(path)).text();
      expect(html, path).toContain('<a class="brand-link" href="https://tickets.acme.example/">Acme Tickets</a>');
      expect(html, path).toContain('<a class="back" href="https://tickets.acme.example/">Back to Acme Tickets</a>');
      expect(html, path).not.toContain('evil.example');
    }
    // A checked returnTo comes first.
    await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { allowedOrigins: ['https://shop.acme.example'] } } });
    const html = await (await t.app.request(`/market/${p.id}/tour?showId=show-1&returnTo=${encodeURIComponent('https://shop.acme.example/tour')}`)).text();
    expect(html).toContain('<a class="brand-link" href="https://shop.acme.example/tour">');
    // Not an http(s) URL: refused by the settings.
    const bad = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { siteUrl: 'javascript:alert(1)' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ path: 'settings.siteUrl' });
  });

  it('refuses a brand colour without 4.5:1 against white, a logo over http and unknown fields, and keeps the stored branding', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { branding: BRANDING });
    const patch = async (branding: unknown) => await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { branding } } });
    const pale = await patch({ displayName: 'X', color: '#7fb8ff' });
    expect(pale.status).toBe(400);
    expect(JSON.stringify(pale.body)).toMatch(/4\.5:1 against white.*#7fb8ff reaches 2\.\d\d:1/);
    const malformed = await patch({ displayName: 'X', color: 'purple' });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toContain('must be a hex colour');
    expect((await patch({ displayName: 'X', logoUrl: 'http://partner.example/logo.png' })).status).toBe(400);
    expect((await patch({ displayName: 'X', font: 'Comic Sans' })).status).toBe(400);
    expect((await patch({ displayName: '' })).status).toBe(400);
    const read = await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true });
    expect((read.body as { data: { settings: { branding: unknown } } }).data.settings.branding).toEqual(BRANDING);
    // null clears it.
    expect((await patch(null)).status).toBe(200);
    const cleared = await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true });
    expect((cleared.body as { data: { settings: { branding: unknown } } }).data.settings.branding).toBeNull();
  });
});
