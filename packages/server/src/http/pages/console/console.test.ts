import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../testing/harness.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { consoleCodes, consoleSessions } from '../../../domain/console/console.table.js';
import { CONSOLE_IDLE_MS, CONSOLE_SESSION_MS } from '../../../domain/console/console.service.js';
import { OTP_LIMITS } from '../../../domain/auth/auth.service.js';
import { csrfOf, inputValue, TestBrowser } from '../auth/auth.testing.js';
import { confirmWithCode, csrfFor, hiddenFieldsOf, settingsFormOf as formValues, signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';

async function setup() {
  const t = createTestApp();
  await withOperators(t, OPERATOR);
  return t;
}

/** Invites `email` to `partnerId` with `role` as the operator would, through the console. */
async function invite(t: ReturnType<typeof createTestApp>, operator: TestBrowser, partnerId: string, email: string, role: string) {
  const res = await submit(operator, `/console/partners/${partnerId}/team`, `/console/partners/${partnerId}/team`, { email, role });
  expect(res.status, res.text.slice(0, 300)).toBe(303);
}

describe('console sign-in', () => {
  it('sends a signed-out visitor to the sign-in page, an accessible form under the pages’ policy, in English or Spanish', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    const home = await browser.get('/console/partners?q=x');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/console/sign-in?next=%2Fconsole%2Fpartners%3Fq%3Dx&ended=1');
    const page = await browser.get(home.location!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    // The passkey form's script, from the service only (console.passkeys.test.ts): never an inline one.
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('<html lang="en">');
    expect(page.text).toContain('Sign in to the console');
    expect(page.text).toContain('Your session ended');
    expect(page.setCookies.find((c) => c.startsWith('resale_console_csrf='))).toMatch(/HttpOnly; SameSite=Strict/);
    const es = await browser.get('/console/sign-in?lang=es');
    expect(es.text).toContain('<html lang="es">');
    expect(es.text).toContain('Entra en la consola');
    // The choice is remembered.
    expect((await browser.get('/console/sign-in')).text).toContain('<html lang="es">');
  });

  it('signs an operator in with an e-mailed code: a new session cookie scoped to the console, the code stored hashed', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    // A cookie planted before sign-in (session fixation) is never the signed-in one.
    browser.cookies.set('resale_console', 'planted-token-of-an-attacker');
    await signIn(t, 'OPS@resale.test ', browser);
    const token = browser.cookies.get('resale_console')!;
    expect(token).not.toBe('planted-token-of-an-attacker');
    const [msg] = await t.deps.messages.list({ to: OPERATOR });
    expect(msg).toMatchObject({ template: 'consoleCode', partnerId: null });
    const code = /\b(\d{6})\b/.exec(msg!.text)![1]!;
    const rows = await t.db.read(async (tx) => await tx.select().from(consoleCodes));
    expect(JSON.stringify(rows)).not.toContain(code);
    const home = await browser.get('/console');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Signed in as ops@resale.test (operator)');
    expect(home.text).toContain('href="/console/partners"');
  });

  it('sets the session cookie HttpOnly, SameSite=Strict, Path=/console, for 12 hours', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    const form = await browser.get('/console/sign-in');
    const sent = await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: csrfOf(form.text, '/console/sign-in?next=%2Fconsole')!, email: OPERATOR });
    const codePage = await browser.get(sent.location!);
    const code = /\b(\d{6})\b/.exec((await t.deps.messages.list({ to: OPERATOR }))[0]!.text)![1]!;
    const done = await browser.post(`/console/sign-in/code?next=%2Fconsole`, { _csrf: csrfOf(codePage.text, '/console/sign-in/code?next=%2Fconsole')!, c: inputValue(codePage.text, 'c')!, code });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/console');
    expect(done.setCookies.find((c) => c.startsWith('resale_console='))).toMatch(/Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict/);
  });

  it('answers an address without access exactly as one with it, and sends it nothing', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    const form = await browser.get('/console/sign-in');
    const sent = await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: csrfOf(form.text, '/console/sign-in?next=%2Fconsole')!, email: 'stranger@example.com' });
    expect(sent.status).toBe(303);
    const page = await browser.get(sent.location!);
    expect(page.text).toContain('If stranger@example.com has access to the console');
    expect(await t.deps.messages.list({ to: 'stranger@example.com' })).toEqual([]);
  });

  it('refuses a bad e-mail with its error and the typed value kept, a form without its CSRF token, and wrong codes until the code dies', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    const form = await browser.get('/console/sign-in');
    const csrf = csrfOf(form.text, '/console/sign-in?next=%2Fconsole')!;
    const bad = await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: csrf, email: 'not an <email>' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter an e-mail address');
    expect(bad.text).toContain('value="not an &lt;email&gt;"');
    expect((await browser.post('/console/sign-in?next=%2Fconsole', { email: OPERATOR })).status).toBe(403);
    expect((await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: 'forged', email: OPERATOR })).status).toBe(403);
    expect(await t.deps.messages.list({ to: OPERATOR })).toEqual([]);

    const sent = await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: csrf, email: OPERATOR });
    const codePage = await browser.get(sent.location!);
    const action = '/console/sign-in/code?next=%2Fconsole';
    const codeCsrf = csrfOf(codePage.text, action)!;
    const c = inputValue(codePage.text, 'c')!;
    const real = /\b(\d{6})\b/.exec((await t.deps.messages.list({ to: OPERATOR }))[0]!.text)![1]!;
    const wrong = real === '000000' ? '111111' : '000000';
    const malformed = await browser.post(action, { _csrf: codeCsrf, c, code: '12' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('Enter the 6 digits');
    for (let left = 4; left >= 1; left--) {
      const res = await browser.post(action, { _csrf: codeCsrf, c, code: wrong });
      expect(res.status).toBe(400);
      expect(res.text).toContain(`${left} attempts left`);
    }
    // The fifth wrong guess kills the code: the page says to ask for a new one.
    expect((await browser.post(action, { _csrf: codeCsrf, c, code: wrong })).status).toBe(410);
    const dead = await browser.post(action, { _csrf: codeCsrf, c, code: real });
    expect(dead.status).toBe(410);
    expect(browser.cookies.has('resale_console')).toBe(false);
  });

  it('limits the codes an address may ask for, as the fans’ codes are limited', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    const form = await browser.get('/console/sign-in');
    const csrf = csrfOf(form.text, '/console/sign-in?next=%2Fconsole')!;
    for (let i = 0; i < OTP_LIMITS.perIdentifier.limit; i++) expect((await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: csrf, email: OPERATOR })).status).toBe(303);
    const limited = await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: csrf, email: OPERATOR });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('ends a session after 30 minutes idle and after 12 hours whatever happens, and at sign-out', async () => {
    const t = await setup();
    const browser = await signIn(t, OPERATOR);
    t.clock.advance(CONSOLE_IDLE_MS - 60_000);
    expect((await browser.get('/console')).status).toBe(200);
    t.clock.advance(CONSOLE_IDLE_MS - 60_000);
    expect((await browser.get('/console')).status).toBe(200);
    t.clock.advance(CONSOLE_IDLE_MS + 1);
    const idle = await browser.get('/console');
    expect(idle.status).toBe(303);
    expect(idle.location).toContain('/console/sign-in');

    const busy = await signIn(t, OPERATOR);
    for (let spent = 0; spent < CONSOLE_SESSION_MS - 20 * 60_000; spent += 20 * 60_000) {
      t.clock.advance(20 * 60_000);
      expect((await busy.get('/console')).status).toBe(200);
    }
    t.clock.advance(20 * 60_000);
    expect((await busy.get('/console')).status).toBe(303);

    const leaving = await signIn(t, OPERATOR);
    const out = await submit(leaving, '/console', '/console/sign-out', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/console/sign-in?signed-out=1');
    expect((await leaving.get('/console')).status).toBe(303);
    const live = await t.db.read(async (tx) => await tx.select().from(consoleSessions));
    expect(live.filter((s) => s.revokedAt === null && s.expiresAt > t.clock.now() && s.seenAt > t.clock.now() - CONSOLE_IDLE_MS)).toEqual([]);
  });
});

describe('console partners', () => {
  it('lets an operator create a partner (keys shown once), set its QR lock hours, and read them back through the API; each change audited', async () => {
    const t = await setup();
    const ops = await signIn(t, OPERATOR);
    const created = await submit(ops, '/console/partners', '/console/partners', { name: 'Acme <Tickets>' });
    expect(created.status).toBe(201);
    expect(created.text).toContain('Keys of Acme &lt;Tickets&gt;');
    const privateKey = /<code class="secret">(sk_[^<]+)<\/code>/.exec(created.text)![1]!;
    const partnerId = /href="\/console\/partners\/(ptr_[^"]+)"/.exec(created.text)![1]!;
    expect((await t.request('GET', '/v1/events/none', { key: privateKey })).status).toBe(404);

    const saved = await submit(ops, `/console/partners/${partnerId}`, `/console/partners/${partnerId}/settings`, { ...(await formValues(ops, partnerId)), qrLockHoursBeforeShow: '48' });
    expect(saved.status, saved.text.slice(0, 400)).toBe(303);
    const api = await t.request('GET', `/admin/v1/partners/${partnerId}`, { operator: true });
    expect(api.body.data.settings.qrLockHoursBeforeShow).toBe(48);
    expect((await ops.get(saved.location!)).text).toContain('Saved.');

    const entries = await t.db.read(async (tx) => await tx.select().from(auditLog));
    const update = entries.find((e) => e.action === 'partner.update')!;
    expect(update).toMatchObject({ actorKind: 'console', actorEmail: OPERATOR, role: 'operator', partnerId, before: { 'settings.qrLockHoursBeforeShow': 3 }, after: { 'settings.qrLockHoursBeforeShow': 48 } });
    expect(entries.find((e) => e.action === 'partner.create')).toMatchObject({ actorKind: 'console', partnerId });
    expect(JSON.stringify(entries)).not.toContain(privateKey);
  });

  it('asks before a second partner of a name (the keys’ page reloaded sends the form again), and makes it when asked, through a step-up', async () => {
    const t = await setup();
    const ops = await signIn(t, OPERATOR);
    const first = await submit(ops, '/console/partners', '/console/partners', { name: 'Acme Tickets' });
    expect(first.status).toBe(201);
    const firstId = /href="\/console\/partners\/(ptr_[^"]+)"/.exec(first.text)![1]!;
    const count = async () => (await t.request('GET', '/admin/v1/partners', { operator: true })).body.data.length as number;
    const auditCount = async () => (await t.db.read(async (tx) => await tx.select().from(auditLog))).length;
    const [partnersBefore, auditBefore] = [await count(), await auditCount()];

    // The same form again (letter case and spaces aside): a warning, the typed name kept, the twin linked, nothing made.
    const twice = await submit(ops, '/console/partners', '/console/partners', { name: '  acme   TICKETS ' });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain('A partner named “acme   TICKETS” exists already');
    expect(inputValue(twice.text, 'name')).toBe('acme   TICKETS');
    expect(twice.text).toContain(`href="/console/partners/${firstId}"`);
    expect(twice.text).toMatch(/<input type="checkbox" id="f-again" name="again" value="yes"\s*\/?>/);
    expect([await count(), await auditCount()]).toEqual([partnersBefore, auditBefore]);
    // Another name is no twin; a bad name is refused before any twin is looked for.
    expect((await submit(ops, '/console/partners', '/console/partners', { name: '' })).status).toBe(400);
    expect((await submit(ops, '/console/partners', '/console/partners', { name: 'x'.repeat(201), again: 'yes' })).status).toBe(400);

    // Asked for, after a fresh code: the step-up comes back to the form as it was sent, box ticked.
    t.clock.advance(11 * 60_000);
    const asked = await submit(ops, '/console/partners', '/console/partners', { name: 'Acme Tickets', again: 'yes' });
    expect(asked.status).toBe(303);
    expect(asked.location).toBe(`/console/confirm?next=${encodeURIComponent('/console/partners?name=Acme%20Tickets&again=yes')}`);
    const back = await confirmWithCode(t, ops, asked.location!, OPERATOR);
    const form = await ops.get(back.location!);
    expect(inputValue(form.text, 'name')).toBe('Acme Tickets');
    expect(form.text).toMatch(/<input type="checkbox" id="f-again" name="again" value="yes" checked/);
    expect(form.text).toContain(`href="/console/partners/${firstId}"`);
    const made = await submit(ops, back.location!, '/console/partners', { name: 'Acme Tickets', again: 'yes' });
    expect(made.status).toBe(201);
    expect(made.text).toContain('Keys of Acme Tickets');
    expect(await count()).toBe(partnersBefore + 1);
    // An unticked "again" in the address (typed by hand) shows no box: nothing to ask.
    expect((await ops.get('/console/partners?name=Other')).text).not.toContain('name="again"');
    // A double click: two forms at once make one partner, the other is asked about.
    const clicks = await Promise.all([0, 1].map(async () => await submit(ops, '/console/partners', '/console/partners', { name: 'Double Click' })));
    expect(clicks.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(clicks.find((r) => r.status === 409)!.text).toContain('A partner named “Double Click” exists already');
    expect(await count()).toBe(partnersBefore + 2);
  });

  it('answers a settings form with every error at once, the typed values kept, nothing written', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const ops = await signIn(t, OPERATOR);
    const res = await submit(ops, `/console/partners/${p.id}`, `/console/partners/${p.id}/settings`, {
      ...(await formValues(ops, p.id)),
      qrLockHoursBeforeShow: 'soon',
      buyIntentionTtlSeconds: '5',
      webhookUrl: 'ftp://acme.example/hooks',
      'branding.color': '#ffff00',
      'branding.displayName': 'Acme',
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('There is a problem');
    expect(res.text).toMatch(/QR codes unlock \(hours before the show\): Enter a number\./);
    expect(res.text).toContain('href="#f-buyIntentionTtlSeconds"');
    expect(res.text).toContain('href="#f-webhookUrl"');
    expect(res.text).toContain('href="#f-branding-color"');
    expect(res.text).toContain('value="soon"');
    expect(res.text).toContain('value="ftp://acme.example/hooks"');
    const api = await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true });
    expect(api.body.data.settings).toMatchObject({ qrLockHoursBeforeShow: 3, buyIntentionTtlSeconds: 600, webhookUrl: null, branding: null });
    expect(await t.db.read(async (tx) => await tx.select().from(auditLog))).toEqual([]);
  });

  it('lets a developer allow their origin (the public key then answers that page with CORS), and nothing their role may not do', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const other = await t.partner('Other');
    const ops = await signIn(t, OPERATOR);
    await invite(t, ops, p.id, 'dev@acme.example', 'developer');
    const [invitation] = await t.deps.messages.list({ to: 'dev@acme.example' });
    expect(invitation).toMatchObject({ template: 'consoleInvitation' });
    expect(invitation!.text).toContain('http://resale.test/console');

    const dev = await signIn(t, 'dev@acme.example');
    const home = await dev.get('/console');
    expect(home.text).toContain(`/console/partners/${p.id}`);
    expect(home.text).not.toContain('href="/console/partners"');

    const bad = await submit(dev, `/console/partners/${p.id}/developers`, `/console/partners/${p.id}/origins`, { allowedOrigins: 'https://shop.acme.example/path\njavascript:alert(1)' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('https://shop.acme.example/path: must be an origin');
    expect(bad.text).toContain('javascript:alert(1)');
    const ok = await submit(dev, `/console/partners/${p.id}/developers`, `/console/partners/${p.id}/origins`, { allowedOrigins: 'HTTPS://Shop.Acme.example/\n\nhttp://localhost:3001' });
    expect(ok.status).toBe(303);
    const cors = await t.request('GET', '/v1/rules?eventId=x&showId=y', { key: p.keys.public, headers: { origin: 'https://shop.acme.example' } });
    expect(cors.headers.get('access-control-allow-origin')).toBe('https://shop.acme.example');

    // Settings are the partner admin's; the operators' pages are the operators'; another partner does not exist for them.
    const settings = await dev.post(`/console/partners/${p.id}/settings`, { _csrf: await csrfFor(t, dev, `/console/partners/${p.id}/settings`), qrLockHoursBeforeShow: '1' });
    expect(settings.status).toBe(403);
    expect(settings.text).toContain('Your role cannot do this here');
    expect((await dev.get('/console/partners')).status).toBe(403);
    expect((await dev.get(`/console/partners/${other.id}`)).status).toBe(404);
    expect((await dev.get('/console/partners/ptr_unknown')).status).toBe(404);
    const foreign = await dev.post(`/console/partners/${other.id}/origins`, { _csrf: await csrfFor(t, dev, `/console/partners/${other.id}/origins`), allowedOrigins: 'https://evil.example' });
    expect(foreign.status).toBe(404);
    expect((await t.request('GET', `/admin/v1/partners/${other.id}`, { operator: true })).body.data.settings.allowedOrigins).toEqual([]);
  });

  it('refuses every change of a viewer, who still reads the partner', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const ops = await signIn(t, OPERATOR);
    await invite(t, ops, p.id, 'viewer@acme.example', 'viewer');
    const viewer = await signIn(t, 'viewer@acme.example');
    const page = await viewer.get(`/console/partners/${p.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('your role cannot change them');
    expect(page.text).not.toContain('>Save<');
    const before = await t.db.read(async (tx) => await tx.select().from(auditLog));
    for (const [path, fields] of [
      ['settings', { qrLockHoursBeforeShow: '1' }],
      ['origins', { allowedOrigins: 'https://viewer.example' }],
      ['keys/rotate', { kind: 'private', graceHours: '0' }],
      ['team', { email: 'friend@example.com', role: 'partner_admin' }],
    ] as const) {
      const action = `/console/partners/${p.id}/${path}`;
      const res = await viewer.post(action, { _csrf: await csrfFor(t, viewer, action), ...fields });
      expect(res.status, path).toBe(403);
      expect(res.text, path).toContain('Your role cannot do this here');
    }
    expect(await t.db.read(async (tx) => await tx.select().from(auditLog))).toEqual(before);
  });

  it('asks for a fresh code before rotating a key, then shows the new key once; the old one works through the grace', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const ops = await signIn(t, OPERATOR);
    await invite(t, ops, p.id, 'dev@acme.example', 'developer');
    const dev = await signIn(t, 'dev@acme.example');
    t.clock.advance(11 * 60_000);
    const devPage = `/console/partners/${p.id}/developers`;
    const action = `/console/partners/${p.id}/keys/rotate`;
    const asked = await submit(dev, devPage, action, { ...(await hiddenFieldsOf(dev, devPage, action)), kind: 'private', graceHours: '1' });
    expect(asked.status).toBe(303);
    expect(asked.location).toBe(`/console/confirm?next=${encodeURIComponent(`/console/partners/${p.id}/developers#keys`)}`);
    const confirmed = await confirmWithCode(t, dev, asked.location!, 'dev@acme.example');
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe(`/console/partners/${p.id}/developers#keys`);
    for (const [kind, graceHours] of [['private', '9999'], ['private', '-1'], ['private', ''], ['owner', '1']] as const) {
      const bad = await submit(dev, devPage, action, { kind, graceHours });
      expect(bad.status, `${kind} ${graceHours}`).toBe(400);
    }
    // Every error at once, the typed values kept.
    const both = await submit(dev, devPage, action, { kind: 'owner', graceHours: '9999' });
    expect(both.status).toBe(400);
    expect(both.text).toContain('Choose the key to rotate.');
    expect(both.text).toContain('Enter 0 to 168 hours.');
    expect(inputValue(both.text, 'graceHours')).toBe('9999');
    const rotated = await submit(dev, devPage, action, { ...(await hiddenFieldsOf(dev, devPage, action)), kind: 'private', graceHours: '1' });
    expect(rotated.status).toBe(200);
    const key = /<code class="secret">(sk_[^<]+)<\/code>/.exec(rotated.text)![1]!;
    expect((await t.request('GET', '/v1/events/none', { key })).status).toBe(404);
    expect((await t.request('GET', '/v1/events/none', { key: p.keys.private })).status).toBe(404);
    t.clock.advance(3600_000 + 1);
    expect((await t.request('GET', '/v1/events/none', { key: p.keys.private })).status).toBe(401);
    const entry = (await t.db.read(async (tx) => await tx.select().from(auditLog))).find((e) => e.action === 'partner.key.rotate')!;
    expect(entry).toMatchObject({ actorEmail: 'dev@acme.example', role: 'developer', after: { kind: 'private', graceSeconds: 3600 } });
    expect(JSON.stringify(entry)).not.toContain(key);
  });

  it('rotates nothing when the new key’s page is sent again (a reload) or the form is out of date: the key just shown stays in force', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const ops = await signIn(t, OPERATOR);
    const devPage = `/console/partners/${p.id}/developers`;
    const action = `/console/partners/${p.id}/keys/rotate`;
    const auditCount = async () => (await t.db.read(async (tx) => await tx.select().from(auditLog))).length;
    for (const [kind, pattern] of [['public', /<code class="secret">(pk_[^<]+)<\/code>/], ['webhookSecret', /<code class="secret">(whsec_[^<]+)<\/code>/]] as const) {
      const form: Record<string, string> = { ...(await hiddenFieldsOf(ops, devPage, action)), kind, graceHours: '0' };
      const shown = await submit(ops, devPage, action, form);
      expect(shown.status, kind).toBe(200);
      const secret = pattern.exec(shown.text)![1]!;
      const entries = await auditCount();
      // The same body again, as a reload of the new key's page sends it.
      const again = await submit(ops, devPage, action, form);
      expect(again.status, kind).toBe(409);
      expect(again.text).toContain('This key was replaced after the page you sent was opened');
      expect(again.text).not.toMatch(/<code class="secret">/);
      // The form comes back as sent, with what the kind is now.
      expect(again.text).toMatch(new RegExp(`<option value="${kind}" selected`));
      expect(inputValue(again.text, 'graceHours')).toBe('0');
      expect(inputValue(again.text, `version-${kind}`)).not.toBe(form[`version-${kind}`]);
      expect(await auditCount()).toBe(entries);
      if (kind === 'public') expect(await t.deps.partners.authenticate(secret)).toMatchObject({ kind: 'public' });
      else expect((await t.db.read(async (tx) => await t.deps.partners.keyVersionsIn(tx, p.id))).webhookSecret).toBe(inputValue(again.text, 'version-webhookSecret'));
    }
    // A form without what it read (an old page, typed by hand) is out of date too.
    expect((await submit(ops, devPage, action, { kind: 'private', graceHours: '0' })).status).toBe(409);
    expect((await t.request('GET', '/v1/events/none', { key: p.keys.private })).status).toBe(404);
    // From the page as it is now, the rotation goes through.
    expect((await submit(ops, devPage, action, { ...(await hiddenFieldsOf(ops, devPage, action)), kind: 'private', graceHours: '0' })).status).toBe(200);
    expect((await t.request('GET', '/v1/events/none', { key: p.keys.private })).status).toBe(401);
  });

  it('asks for a fresh code before a platform URL or the webhook endpoint changes, not for the rest', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const ops = await signIn(t, OPERATOR);
    await invite(t, ops, p.id, 'ana@acme.example', 'partner_admin');
    const ana = await signIn(t, 'ana@acme.example');
    t.clock.advance(11 * 60_000);
    const timing = await submit(ana, `/console/partners/${p.id}`, `/console/partners/${p.id}/settings`, { ...(await formValues(ana, p.id)), qrLockHoursBeforeShow: '6' });
    expect(timing.status).toBe(303);
    expect(timing.location).toContain('saved=settings');
    const moved = await submit(ana, `/console/partners/${p.id}`, `/console/partners/${p.id}/settings`, { ...(await formValues(ana, p.id)), ownershipUrl: 'https://attacker.example/owned' });
    expect(moved.status).toBe(303);
    expect(moved.location).toBe(`/console/confirm?next=${encodeURIComponent(`/console/partners/${p.id}`)}`);
    expect((await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings.ownershipUrl).toBeNull();
    const hook = await submit(ana, `/console/partners/${p.id}/webhooks`, `/console/partners/${p.id}/webhooks/endpoint`, { webhookUrl: 'https://attacker.example/hooks', webhookEvents: 'all' });
    expect(hook.status).toBe(303);
    expect(hook.location).toContain('/console/confirm?next=');
    expect((await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings.webhookUrl).toBeNull();
    expect((await confirmWithCode(t, ana, moved.location!, 'ana@acme.example')).status).toBe(303);
    const after = await submit(ana, `/console/partners/${p.id}`, `/console/partners/${p.id}/settings`, { ...(await formValues(ana, p.id)), ownershipUrl: 'https://acme.example/owned' });
    expect(after.location).toContain('saved=settings');
    expect((await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings.ownershipUrl).toBe('https://acme.example/owned');
  });

  it('manages the team: a duplicate invitation refused, a role changed, a member removed and signed out; each audited', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const ops = await signIn(t, OPERATOR);
    await invite(t, ops, p.id, 'ana@acme.example', 'partner_admin');
    const ana = await signIn(t, 'ana@acme.example');
    // A partner admin invites too.
    await invite(t, ana, p.id, 'ben@acme.example', 'viewer');
    const dup = await submit(ana, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team`, { email: 'BEN@acme.example', role: 'developer' });
    expect(dup.status).toBe(409);
    expect(dup.text).toContain('ben@acme.example already has a role here');
    const missing = await submit(ana, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team`, { email: 'nope', role: 'owner' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Enter an e-mail address');
    expect(missing.text).toContain('Choose a role');
    const ben = await signIn(t, 'ben@acme.example');
    const page = await ana.get(`/console/partners/${p.id}/team`);
    const benMembership = new RegExp(`action="/console/partners/${p.id}/team/(cm_[^"]+)"`).exec(page.text.slice(page.text.indexOf('ben@acme.example')))![1]!;
    const promoted = await submit(ana, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team/${benMembership}`, { op: 'role', role: 'developer' });
    expect(promoted.status).toBe(303);
    expect((await ben.get(`/console/partners/${p.id}/team`)).text).toContain('developer');
    const removed = await submit(ana, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team/${benMembership}`, { op: 'remove' });
    expect(removed.status).toBe(303);
    expect((await ben.get('/console')).status).toBe(303);
    const actions = (await t.db.read(async (tx) => await tx.select().from(auditLog))).map((e) => e.action).sort();
    expect(actions).toEqual(['team.invite', 'team.invite', 'team.remove', 'team.role.change']);
    // Another partner's membership id reads as unknown.
    const other = await t.partner('Other');
    await invite(t, ops, other.id, 'cy@other.example', 'viewer');
    const otherPage = await ops.get(`/console/partners/${other.id}/team`);
    const cyMembership = new RegExp(`action="/console/partners/${other.id}/team/(cm_[^"]+)"`).exec(otherPage.text)![1]!;
    const action = `/console/partners/${p.id}/team/${cyMembership}`;
    const cross = await ana.post(action, { _csrf: await csrfFor(t, ana, action), op: 'remove' });
    expect(cross.status).toBe(404);
    expect((await ops.get(`/console/partners/${other.id}/team`)).text).toContain('cy@other.example');
  });
});

describe('console audit page', () => {
  it('shows the operator every change, and a partner’s people only their partner’s', async () => {
    const t = await setup();
    const p = await t.partner('Acme');
    const other = await t.partner('Other');
    const ops = await signIn(t, OPERATOR);
    await invite(t, ops, p.id, 'ana@acme.example', 'viewer');
    await invite(t, ops, other.id, 'cy@other.example', 'viewer');
    expect((await t.request('PATCH', `/admin/v1/partners/${other.id}`, { operator: true, body: { settings: { qrLockHoursBeforeShow: 12 } } })).status).toBe(200);
    const all = await ops.get('/console/audit');
    expect(all.status).toBe(200);
    expect(all.text).toContain('operator token');
    expect(all.text).toContain('settings.qrLockHoursBeforeShow: 3 → 12');
    const ana = await signIn(t, 'ana@acme.example');
    const mine = await ana.get('/console/audit');
    expect(mine.text).toContain('ana@acme.example');
    expect(mine.text).not.toContain('cy@other.example');
    expect((await ana.get(`/console/audit?partnerId=${other.id}`)).status).toBe(404);
  });
});


