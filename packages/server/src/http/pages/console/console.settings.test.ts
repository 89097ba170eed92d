import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../testing/harness.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { SANDBOX_BUY_ACCESS_LAYER } from '../../../flows/accesslayer/accesslayer.buy.js';
import { confirmWithCode, settingsFormOf, signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';

async function setup() {
  const t = createTestApp();
  await withOperators(t, OPERATOR);
  const p = await t.partner('Acme');
  const ops = await signIn(t, OPERATOR);
  const page = `/console/partners/${p.id}`;
  const action = `${page}/settings`;
  const settings = async () => (await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings;
  return { t, p, ops, page, action, settings };
}

describe('console settings: the platform secret, the components, the preview', () => {
  it('sets the write-only platform secret after a fresh code; blank keeps it; it is shown and audited as set, never in the clear', async () => {
    const { t, ops, page, action, settings } = await setup();
    const before = await ops.get(page);
    expect(before.text).toContain('No secret is set');
    expect(before.text).toMatch(/<input[^>]*name="platformSecret"[^>]*type="password"[^>]*value=""/);

    const tooShort = await submit(ops, page, action, { ...(await settingsFormOf(ops, page.split('/').pop()!)), platformSecret: 'short' });
    expect(tooShort.status).toBe(400);
    expect(tooShort.text).toContain('must be at least 16 characters');
    expect(tooShort.text).not.toContain('value="short"');

    const secret = 'platform-secret-0123456789abcdef';
    t.clock.advance(11 * 60_000); // past the fresh sign-in's grace: a new secret asks for a fresh code
    const asked = await submit(ops, page, action, { ...(await settingsFormOf(ops, page.split('/').pop()!)), platformSecret: secret });
    expect(asked.status).toBe(303);
    expect(asked.location).toContain('/console/confirm?next=');
    expect((await settings()).platformSecretSet).toBe(false);
    expect((await confirmWithCode(t, ops, asked.location!, OPERATOR)).status).toBe(303);
    const saved = await submit(ops, page, action, { ...(await settingsFormOf(ops, page.split('/').pop()!)), platformSecret: secret });
    expect(saved.location).toContain('saved=settings');
    expect((await settings()).platformSecretSet).toBe(true);

    const after = await ops.get(page);
    expect(after.text).toContain('A secret is set (it is never shown).');
    expect(after.text).not.toContain(secret);
    // An untouched (blank) secret keeps the stored one.
    const kept = await submit(ops, page, action, { ...(await settingsFormOf(ops, page.split('/').pop()!)), qrLockHoursBeforeShow: '5' });
    expect(kept.location).toContain('saved=settings');
    expect(await settings()).toMatchObject({ platformSecretSet: true, qrLockHoursBeforeShow: 5 });
    const rows = await t.db.read(async (tx) => await tx.select().from(auditLog));
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  it('sets which code the venue scans (a choice of two) and its step, both errors at once with the typed values kept, audited', async () => {
    const { t, p, ops, page, action, settings } = await setup();
    // A partner stored before the setting existed reads the default.
    expect((await settingsFormOf(ops, p.id))).toMatchObject({ 'admissionCodes.venueScans': 'partner', 'admissionCodes.rotationSeconds': '15' });
    const form = (await ops.get(page)).text;
    const select = /<select id="f-admissionCodes-venueScans" name="admissionCodes.venueScans"[^>]*>([\s\S]*?)<\/select>/.exec(form)?.[1] ?? '';
    expect([...select.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)</g)].map((o) => [o[1], o[2]])).toEqual([
      ['partner', 'Your own QR (ticketAccess.locator)'],
      ['rotating', 'The rotating code bound to the holder'],
    ]);
    const wrong = await submit(ops, page, action, { ...(await settingsFormOf(ops, p.id)), 'admissionCodes.venueScans': 'laser', 'admissionCodes.rotationSeconds': '61' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('href="#f-admissionCodes-venueScans"');
    expect(wrong.text).toContain('href="#f-admissionCodes-rotationSeconds"');
    // A value no option has (a form made by hand): refused at its field; the select shows the choices.
    expect(wrong.text).toMatch(/id="f-admissionCodes-venueScans-error"[^>]*>[^<]*partner[^<]*rotating/);
    expect(wrong.text).toContain('value="61"');
    expect((await settings()).admissionCodes).toEqual({ venueScans: 'partner', rotationSeconds: 15 });
    expect(await t.db.read(async (tx) => await tx.select().from(auditLog))).toEqual([]);
    const saved = await submit(ops, page, action, { ...(await settingsFormOf(ops, p.id)), 'admissionCodes.venueScans': 'rotating', 'admissionCodes.rotationSeconds': '10' });
    expect(saved.status, saved.text.slice(0, 400)).toBe(303);
    expect((await settings()).admissionCodes).toEqual({ venueScans: 'rotating', rotationSeconds: 10 });
    expect((await settingsFormOf(ops, p.id))['admissionCodes.venueScans']).toBe('rotating');
    const entry = (await t.db.read(async (tx) => await tx.select().from(auditLog)))[0]!;
    expect(JSON.stringify(entry)).toContain('rotationSeconds');
  });

  it('takes the buy access layer and the sell banner as JSON, checked by the API’s schema with every problem at once and the typed text kept', async () => {
    const { t, p, ops, page, action, settings } = await setup();
    const notJson = await submit(ops, page, action, { ...(await settingsFormOf(ops, p.id)), buyAccessLayer: '{ "buyBanner": ', sellBanner: '[1, 2]' });
    expect(notJson.status).toBe(400);
    expect(notJson.text).toContain('Not valid JSON: ');
    expect(notJson.text).toContain('Enter a JSON object ({ … }), or leave it blank.');
    expect(notJson.text).toContain('{ &quot;buyBanner&quot;: </textarea>');

    const wrong = { buyBanner: { visible: true, title: { en: 'Hi' }, description: { en: 'x', es: 'x' }, ctaText: { en: 'Go', es: 'Ir' }, colors: { background: 'blue', text: '#ffffff' } }, extra: 1 };
    const refused = await submit(ops, page, action, { ...(await settingsFormOf(ops, p.id)), buyAccessLayer: JSON.stringify(wrong) });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('buyBanner.title.es:');
    expect(refused.text).toContain('buyBanner.colors.background: must be a hex colour such as #0b4fb3');
    expect(refused.text).toContain('href="#f-buyAccessLayer"');

    let deep: unknown = 'x';
    for (let i = 0; i < 50; i++) deep = { a: deep };
    const nested = await submit(ops, page, action, { ...(await settingsFormOf(ops, p.id)), sellBanner: JSON.stringify(deep) });
    expect(nested.status).toBe(400);
    expect(nested.text).toContain('Enter a JSON object ({ … }), or leave it blank.');
    expect(await settings()).toMatchObject({ buyAccessLayer: null, sellBanner: null });
    expect(await t.db.read(async (tx) => await tx.select().from(auditLog))).toEqual([]);

    const ok = await submit(ops, page, action, { ...(await settingsFormOf(ops, p.id)), buyAccessLayer: JSON.stringify(SANDBOX_BUY_ACCESS_LAYER) });
    expect(ok.status, ok.text.slice(0, 400)).toBe(303);
    expect((await settings()).buyAccessLayer.buyBanner.title.en).toBe('Sold out? Not quite.');
    // The form shows it back as JSON, and saving it untouched changes nothing.
    const again = await settingsFormOf(ops, p.id);
    expect(JSON.parse(again.buyAccessLayer!)).toEqual((await settings()).buyAccessLayer);
    const stored = (await settings()).buyAccessLayer;
    expect((await submit(ops, page, action, again)).status).toBe(303);
    expect((await settings()).buyAccessLayer).toEqual(stored);
    // Blank is the API's null: the default set.
    expect((await submit(ops, page, action, { ...(await settingsFormOf(ops, p.id)), buyAccessLayer: '' })).status).toBe(303);
    expect((await settings()).buyAccessLayer).toBeNull();
  });

  it('previews typed branding and a typed buy banner without saving anything, as a page or (for the script) the preview alone', async () => {
    const { t, p, ops, page, action, settings } = await setup();
    const stored = await ops.get(page);
    expect(stored.text).toContain('id="preview"');
    expect(stored.text).toContain('No buy banner is configured');
    expect(stored.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(stored.headers.get('content-security-policy')).toContain("connect-src 'self'");

    const typed = { ...(await settingsFormOf(ops, p.id)), 'branding.displayName': 'Acme <Tickets>', 'branding.color': '#5b21b6', 'branding.logoUrl': 'javascript:alert(1)', buyAccessLayer: JSON.stringify(SANDBOX_BUY_ACCESS_LAYER), op: 'preview' };
    const preview = await submit(ops, page, action, typed);
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('Acme &lt;Tickets&gt;');
    expect(preview.text).not.toContain('src="javascript:');
    expect(preview.text).toContain('<style>.preview-page{--brand:#5b21b6}</style>');
    const csp = preview.headers.get('content-security-policy')!;
    const { createHash } = await import('node:crypto');
    expect(csp).toContain(`'sha256-${createHash('sha256').update('.preview-page{--brand:#5b21b6}').digest('base64')}'`);
    expect(preview.text).toContain('<resale-buy-banner');
    expect(preview.text).toContain('Sold out? Not quite.');
    // The logo's error is said (the preview leaves it out), the typed values are kept.
    expect(preview.text).toContain('value="Acme &lt;Tickets&gt;"');
    expect(await settings()).toMatchObject({ branding: null, buyAccessLayer: null });
    expect(await t.db.read(async (tx) => await tx.select().from(auditLog))).toEqual([]);

    const fragment = await submit(ops, page, action, { ...typed, fragment: '1', buyAccessLayer: '{"buyBanner": {"visible": true}}' });
    expect(fragment.status).toBe(200);
    expect(fragment.text.startsWith('<section class="preview"')).toBe(true);
    expect(fragment.text).toContain('data-brand-color="#5b21b6"');
    expect(fragment.text).toContain('The buy access layer cannot be previewed: buyBanner.title:');
    expect(fragment.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a preview to whoever may not change the settings, and shows them the stored preview only', async () => {
    const { t, ops, page, action } = await setup();
    const invited = await submit(ops, `${page}/team`, `${page}/team`, { email: 'dev@acme.example', role: 'developer' });
    expect(invited.status).toBe(303);
    const dev = await signIn(t, 'dev@acme.example');
    const read = await dev.get(page);
    expect(read.text).toContain('id="preview"');
    expect(read.text).not.toContain('data-live-preview');
    expect(read.text).not.toContain('name="op" value="preview"');
    expect(read.text).toContain('No secret is set');
    expect(read.text).not.toMatch(/name="platformSecret"/);
    const { csrfOf } = await import('../auth/auth.testing.js');
    const csrf = csrfOf(read.text, action);
    expect(csrf).toBeTruthy();
    const refused = await dev.post(action, { _csrf: csrf!, op: 'preview', fragment: '1', 'branding.displayName': 'Mine' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Your role cannot do this here');
    expect(refused.text).not.toContain('Mine');
  });
});
