import { describe, expect, it } from 'vitest';
import { createTestApp, type TestPartner } from '../../../testing/harness.js';
import { users } from '../../../domain/users/users.table.js';
import { otpCodes, sessions } from '../../../domain/auth/auth.table.js';
import { ENGINE } from '../../../db/engine.js';
import { sameDatabase } from '../../../testing/postgres.js';
import { csrfTokenFor, OTP_LIMITS, OTP_MAX_ATTEMPTS, OTP_TTL_MS } from '../../../domain/auth/auth.service.js';
import { formAction, inputValue, lastCode, mountAuth, TestBrowser } from './auth.testing.js';

async function setup(settings: { defaultLang?: 'en' | 'es' } = {}) {
  const t = mountAuth(createTestApp());
  const p = await t.partner('Guests', settings);
  return { t, p };
}

const RETURN_TO = (p: TestPartner) => `http://resale.test/test/${p.id}/protected?listing=lst_1`;

/** Opens the sign-in page and submits `identifier`; answers the POST's response. */
async function requestCode(browser: TestBrowser, p: TestPartner, identifier: string, query = '') {
  const form = await browser.get(`/auth/otp?p=${p.id}${query}`);
  expect(form.status).toBe(200);
  return browser.post(formAction(form.text)!, { _csrf: inputValue(form.text, '_csrf')!, identifier });
}

/** Opens the code page (after requestCode) and submits `code`. */
async function submitCode(browser: TestBrowser, verifyUrl: string, code: string) {
  const form = await browser.get(verifyUrl);
  if (form.status !== 200) return form;
  return browser.post(formAction(form.text)!, { _csrf: inputValue(form.text, '_csrf')!, code });
}

describe('one-time password pages', () => {
  it('shows an accessible, localised form with a CSRF token', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const res = await browser.get(`/auth/otp?p=${p.id}&returnTo=${encodeURIComponent(RETURN_TO(p))}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.text).toMatch(/^<!DOCTYPE html><html lang="en">/);
    expect(res.text).toContain('<title>Sign in · Guests</title>');
    expect(res.text).toContain('<label for="identifier">E-mail or mobile phone</label>');
    expect(res.text).toMatch(/<input id="identifier" name="identifier"[^>]*autocomplete="username"/);
    expect(inputValue(res.text, '_csrf')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Before sign-in the CSRF secret lives in its own cookie.
    expect(res.setCookies.find((c) => c.startsWith('resale_csrf='))).toMatch(/HttpOnly; SameSite=Lax/);
    const action = new URL(formAction(res.text)!, 'http://resale.test');
    expect(action.pathname).toBe('/auth/otp');
    expect(action.searchParams.get('returnTo')).toBe(RETURN_TO(p));

    const es = await browser.get(`/auth/otp?p=${p.id}&lang=es`);
    expect(es.text).toContain('<html lang="es">');
    expect(es.text).toContain('<label for="identifier">E-mail o teléfono móvil</label>');
    const partnerEs = await setup({ defaultLang: 'es' });
    expect((await new TestBrowser(partnerEs.t.app).get(`/auth/otp?p=${partnerEs.p.id}`)).text).toContain('Iniciar sesión');
  });

  it('says plainly when the partner is missing or unknown', async () => {
    const { t } = await setup();
    const browser = new TestBrowser(t.app);
    for (const url of ['/auth/otp', '/auth/otp?p=ptr_nope', '/auth/otp/verify?p=ptr_nope&o=otp_x']) {
      const res = await browser.get(url);
      expect(res.status, url).toBe(404);
      expect(res.text).toContain('This sign-in link is incomplete');
    }
  });

  it('e-mails a code, stored hashed; the right code starts a session and goes back to returnTo', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const sent = await requestCode(browser, p, ' Ana@Example.com ', `&returnTo=${encodeURIComponent(RETURN_TO(p))}`);
    expect(sent.status).toBe(303);
    const verifyUrl = sent.location!;
    const verify = new URL(verifyUrl, 'http://resale.test');
    expect(verify.pathname).toBe('/auth/otp/verify');
    expect(verify.searchParams.get('o')).toMatch(/^otp_/);
    expect(verify.searchParams.get('returnTo')).toBe(RETURN_TO(p));

    const [msg] = await t.deps.messages.list({ to: 'ana@example.com' });
    expect(msg).toMatchObject({ channel: 'email', template: 'oneTimePassword', lang: 'en', partnerId: p.id });
    const code = await lastCode(t, 'ana@example.com');
    expect(msg!.text).toContain('10 minutes');
    const row = (await t.db.select().from(otpCodes).limit(1))[0]!;
    expect(row).toMatchObject({ partnerId: p.id, identifier: 'email:ana@example.com', attempts: 0, expiresAt: t.clock.now() + OTP_TTL_MS, usedAt: null });
    expect(row.codeHash).not.toContain(code);
    expect(await t.db.select().from(users)).toHaveLength(0); // created on success only

    const page = await browser.get(verifyUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain('We sent a 6-digit code by e-mail to a•••@example.com.');
    expect(page.text).toContain('<label for="code">6-digit code</label>');
    expect(page.text).toMatch(/<input id="code" name="code"[^>]*autocomplete="one-time-code"/);

    const done = await submitCode(browser, verifyUrl, code);
    expect(done.status).toBe(303);
    expect(done.location).toBe(RETURN_TO(p));
    expect(done.setCookies.find((c) => c.startsWith('resale_session='))).toMatch(/HttpOnly; SameSite=Lax/);
    const user = (await t.db.select().from(users).limit(1))[0]!;
    expect(user).toMatchObject({ partnerId: p.id, email: 'ana@example.com' });
    const protectedPage = await browser.get(RETURN_TO(p));
    expect(protectedPage.status).toBe(200);
    expect(protectedPage.text).toContain(`user:${user.id}`);

    // Signed in: the sign-in page sends the person straight back.
    const signedIn = await browser.get(`/auth/otp?p=${p.id}&returnTo=${encodeURIComponent(RETURN_TO(p))}`);
    expect(signedIn.status).toBe(302);
    expect(signedIn.location).toBe(RETURN_TO(p));

    // The code is used up.
    const again = await submitCode(browser, verifyUrl, code);
    expect(again.status).toBe(410);
    expect(await t.db.select().from(sessions)).toHaveLength(1);
  });

  it('sends a code by SMS to a phone, and signs in the user of that phone', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const sent = await requestCode(browser, p, '+34 600 111 222', '&lang=es');
    expect(sent.status).toBe(303);
    const [msg] = await t.deps.messages.list({ to: '+34600111222' });
    expect(msg).toMatchObject({ channel: 'sms', to: '+34600111222', template: 'oneTimePassword', lang: 'es' });
    const page = await browser.get(sent.location!);
    expect(page.text).toContain('por SMS al •••••••••222');
    const done = await submitCode(browser, sent.location!, await lastCode(t, '+34600111222'));
    expect(done.status).toBe(303);
    expect(done.location).toBe('/auth/session?lang=es');
    const account = await browser.get(done.location!);
    expect(account.text).toContain('Has iniciado sesión como +34600111222.');
    expect((await t.db.select().from(users).limit(1))[0]).toMatchObject({ phone: '+34600111222', email: null });
  });

  it('finds the existing user of that e-mail instead of creating another', async () => {
    const { t, p } = await setup();
    const existing = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { id: 'user-881', email: 'ana@example.com' }));
    const browser = new TestBrowser(t.app);
    const sent = await requestCode(browser, p, 'ana@example.com');
    await submitCode(browser, sent.location!, await lastCode(t, 'ana@example.com'));
    expect(await t.db.select().from(users)).toHaveLength(1);
    expect((await t.db.select().from(sessions).limit(1))[0]!.userPk).toBe(existing.id);
  });

  it('refuses a wrong code with the attempts left; the 5th wrong one kills the code', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const sent = await requestCode(browser, p, 'ana@example.com');
    const code = await lastCode(t, 'ana@example.com');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let left = 4; left >= 1; left--) {
      const res = await submitCode(browser, sent.location!, wrong);
      expect(res.status).toBe(400);
      expect(res.text).toContain(`That code is not right. Attempts left: ${left}.`);
      expect(res.text).toContain('aria-invalid="true"');
    }
    // Not six digits: said so, and no attempt spent.
    const malformed = await submitCode(browser, sent.location!, '12');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('Enter the 6 digits of the code.');
    expect((await t.db.select().from(otpCodes).limit(1))[0]!.attempts).toBe(4);

    const fifth = await submitCode(browser, sent.location!, wrong);
    expect(fifth.status).toBe(410);
    expect(fifth.text).toContain('This code no longer works');
    // Dead: even the right code is refused now, and the code page says so.
    const form = await browser.get(sent.location!);
    expect(form.status).toBe(410);
    const right = await browser.post(sent.location!, { _csrf: csrfTokenFor(browser.cookies.get('resale_csrf')!, '/auth/otp/verify'), code });
    expect(right.status).toBe(410);
    expect(await t.db.select().from(sessions)).toHaveLength(0);
  });

  it('expires a code after 10 minutes', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const sent = await requestCode(browser, p, 'ana@example.com');
    const code = await lastCode(t, 'ana@example.com');
    const form = await browser.get(sent.location!);
    t.clock.advance(OTP_TTL_MS);
    const res = await browser.post(formAction(form.text)!, { _csrf: inputValue(form.text, '_csrf')!, code });
    expect(res.status).toBe(410);
    expect(await t.db.select().from(sessions)).toHaveLength(0);
  });

  it('only the latest code works', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const first = await requestCode(browser, p, 'ana@example.com');
    const firstCode = await lastCode(t, 'ana@example.com');
    const second = await requestCode(browser, p, 'ana@example.com');
    expect((await browser.get(first.location!)).status).toBe(410);
    expect((await submitCode(browser, second.location!, await lastCode(t, 'ana@example.com'))).status).toBe(303);
    expect(firstCode).toMatch(/^\d{6}$/);
  });

  it('re-renders the form for something that is neither an e-mail nor an international phone', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    for (const bad of ['', 'ana', 'ana@', '600111222', '+34 12']) {
      const res = await requestCode(browser, p, bad);
      expect(res.status, bad).toBe(400);
      expect(res.text).toContain('Enter a valid e-mail address, or a phone number in international format starting with +.');
      expect(res.text).toMatch(/aria-describedby="identifier-error identifier-hint" aria-invalid="true"/);
    }
    expect(await t.deps.messages.list()).toHaveLength(0);
  });

  it('refuses a request without the CSRF token', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    await browser.get(`/auth/otp?p=${p.id}`);
    const res = await browser.post(`/auth/otp?p=${p.id}`, { identifier: 'ana@example.com' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('This form has expired');
    // A token from one browser is no good in another (it is tied to that browser's cookie).
    const form = await browser.get(`/auth/otp?p=${p.id}`);
    const other = new TestBrowser(t.app);
    await other.get(`/auth/otp?p=${p.id}`);
    expect((await other.post(`/auth/otp?p=${p.id}`, { _csrf: inputValue(form.text, '_csrf')!, identifier: 'ana@example.com' })).status).toBe(403);
    expect(await t.deps.messages.list()).toHaveLength(0);
  });

  it('limits codes per e-mail: 5 per 15 minutes', async () => {
    const { t, p } = await setup();
    for (let i = 0; i < 5; i++) {
      const browser = new TestBrowser(t.app, `203.0.113.${i + 1}`);
      expect((await requestCode(browser, p, 'ana@example.com')).status).toBe(303);
      t.clock.advance(60_000);
    }
    const limited = await requestCode(new TestBrowser(t.app, '203.0.113.99'), p, 'ANA@example.com');
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many attempts');
    // The oldest of the five was sent 5 minutes ago: it leaves the window in 10 minutes.
    expect(limited.headers.get('retry-after')).toBe('600');
    expect(await t.deps.messages.list({ to: 'ana@example.com' })).toHaveLength(5);
    // Another e-mail is not affected; the same one is again after the window.
    expect((await requestCode(new TestBrowser(t.app, '203.0.113.99'), p, 'bob@example.com')).status).toBe(303);
    t.clock.advance(600_000);
    expect((await requestCode(new TestBrowser(t.app, '203.0.113.99'), p, 'ana@example.com')).status).toBe(303);
  });

  it('limits code requests per client address: 20 per 15 minutes', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app, '203.0.113.50');
    for (let i = 0; i < 20; i++) expect((await requestCode(browser, p, `fan${i}@example.com`)).status).toBe(303);
    const limited = await requestCode(browser, p, 'fan20@example.com', '&lang=es');
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Demasiados intentos');
    expect(Number(limited.headers.get('retry-after'))).toBe(900);
    // Another address is not limited.
    expect((await requestCode(new TestBrowser(t.app, '203.0.113.51'), p, 'fan20@example.com')).status).toBe(303);
    t.clock.advance(15 * 60_000);
    expect((await requestCode(browser, p, 'fan21@example.com')).status).toBe(303);
  });

  it('reads the client address from X-Forwarded-For only as far as TRUST_PROXY allows', async () => {
    const post = async (browser: TestBrowser, p: TestPartner, forwardedFor: string, identifier: string) => {
      const form = await browser.get(`/auth/otp?p=${p.id}`);
      return browser.post(formAction(form.text)!, { _csrf: inputValue(form.text, '_csrf')!, identifier }, { 'x-forwarded-for': forwardedFor });
    };
    // By default nobody is trusted, a loopback peer included: the header never picks the address
    // (http/middleware/client-address.test.ts tries it over real HTTP).
    const { t, p } = await setup();
    const local = new TestBrowser(t.app, '127.0.0.1');
    for (let i = 0; i < 20; i++) expect((await post(local, p, `203.0.113.${i}`, `l${i}@example.com`)).status).toBe(303);
    expect((await post(local, p, '203.0.113.99', 'y@example.com')).status).toBe(429);

    // Behind one proxy (TRUST_PROXY=1) the address that proxy appended counts, and only that.
    const behind = mountAuth(createTestApp({ trustProxy: 1 }));
    const q = await behind.partner('Guests');
    const direct = new TestBrowser(behind.app, '203.0.113.60');
    for (let i = 0; i < 20; i++) expect((await requestCode(direct, q, `d${i}@example.com`)).status).toBe(303);
    const proxy = new TestBrowser(behind.app, '127.0.0.1');
    expect((await post(proxy, q, '6.6.6.6, 203.0.113.60', 'z@example.com')).status).toBe(429);
    expect((await post(proxy, q, '203.0.113.60, 203.0.113.61', 'z@example.com')).status).toBe(303);
  });

  it('limits code submissions per client address (30 a minute)', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app, '203.0.113.70');
    const sent = await requestCode(browser, p, 'ana@example.com');
    const form = await browser.get(sent.location!);
    const submit = (code: string) => browser.post(formAction(form.text)!, { _csrf: inputValue(form.text, '_csrf')!, code });
    for (let i = 0; i < 30; i++) expect((await submit('x')).status).toBe(400);
    const limited = await submit(await lastCode(t, 'ana@example.com'));
    expect(limited.status).toBe(429);
    // The 30 were made within one second of the clock: they count for the next 60 seconds.
    expect(limited.headers.get('retry-after')).toBe('61');
    t.clock.advance(60_000);
    expect((await submit(await lastCode(t, 'ana@example.com'))).status).toBe(429);
    t.clock.advance(1_000);
    expect((await submit(await lastCode(t, 'ana@example.com'))).status).toBe(303);
  });
});

describe('one-time passwords under concurrency (several processes on PostgreSQL)', () => {
  it('sends at most the identifier limit of codes when many requests arrive at once', async () => {
    const { t, p } = await setup();
    // Each from its own address, so only the per-identifier limit (counted in the database) applies.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.db.transact((tx) => t.deps.auth.requestOtp(tx, { partnerId: p.id, identifier: 'race@example.com', lang: 'en', ip: `198.51.100.${i}` }))),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(OTP_LIMITS.perIdentifier.limit);
    expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.reason)).toEqual(Array(12 - OTP_LIMITS.perIdentifier.limit).fill('rate_limited'));
    expect(await t.db.select().from(otpCodes)).toHaveLength(OTP_LIMITS.perIdentifier.limit);
  });

  it('sends at most the client address limit of codes when one address asks for many identifiers at once, through two processes', async () => {
    const { t, p } = await setup();
    // A second process's handle on PostgreSQL (its own pool); SQLite has one process.
    const other = ENGINE === 'postgres' ? sameDatabase(t.db) : t.db;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? other : t.db).transact((tx) => t.deps.auth.requestOtp(tx, { partnerId: p.id, identifier: `fan${i}@example.com`, lang: 'en', ip: '198.51.100.77' })),
      ),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(OTP_LIMITS.perIp.limit);
    expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.reason)).toEqual(Array(30 - OTP_LIMITS.perIp.limit).fill('rate_limited'));
    expect(await t.db.select().from(otpCodes)).toHaveLength(OTP_LIMITS.perIp.limit);
  });

  it('counts at most the allowed attempts when wrong guesses arrive at once, and the right code then fails as exhausted', async () => {
    const { t, p } = await setup();
    const sent = await t.db.transact((tx) => t.deps.auth.requestOtp(tx, { partnerId: p.id, identifier: 'guess@example.com', lang: 'en', ip: '198.51.100.1' }));
    if (!sent.ok) throw new Error('no code sent');
    const code = await lastCode(t, 'guess@example.com');
    const wrong = code === '000000' ? '111111' : '000000';
    const guesses = await Promise.all(Array.from({ length: 10 }, () => t.db.transact((tx) => t.deps.auth.verifyOtp(tx, { partnerId: p.id, otpId: sent.otpId, code: wrong }))));
    expect(guesses.filter((g) => !g.ok && g.reason === 'wrong')).toHaveLength(OTP_MAX_ATTEMPTS);
    expect((await t.db.select().from(otpCodes))[0]!.attempts).toBe(OTP_MAX_ATTEMPTS);
    expect(await t.db.transact((tx) => t.deps.auth.verifyOtp(tx, { partnerId: p.id, otpId: sent.otpId, code }))).toEqual({ ok: false, reason: 'exhausted' });
  });
});
