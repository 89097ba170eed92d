import { sqlRows } from '../../../testing/sql.js';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestApp } from '../../../testing/harness.js';
import { hashSecret } from '../../../lib/crypto.js';
import { users } from '../../../domain/users/users.table.js';
import { oneTimeTokens, sessions } from '../../../domain/auth/auth.table.js';
import { authService, SESSION_TTL_MS } from '../../../domain/auth/auth.service.js';
import { inputValue, mountAuth, TestBrowser } from './auth.testing.js';

async function setup(settings: Parameters<ReturnType<typeof createTestApp>['partner']>[1] = {}, config: Parameters<typeof createTestApp>[0] = {}) {
  const t = mountAuth(createTestApp(config));
  const p = await t.partner('Acme', settings);
  return { t, p };
}

async function mint(t: Awaited<ReturnType<typeof setup>>['t'], key: string, user: string, method?: string) {
  const q = new URLSearchParams({ user, ...(method ? { method } : {}) });
  return t.request('GET', `/v1/auth/oneTimeToken?${q}`, { key });
}

describe('GET /v1/auth/oneTimeToken', () => {
  it('answers a fresh random token in the envelope, stores only its hash, and creates the user', async () => {
    const { t, p } = await setup();
    const res = await mint(t, p.keys.private, 'Ana@Example.com');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200, data: expect.stringMatching(/^[0-9A-Za-z]{43}$/), errors: null });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const token = res.body.data as string;

    const rows = await t.db.select().from(oneTimeTokens);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(hashSecret(token));
    expect(rows[0]!.purpose).toBe('login');
    expect(rows[0]!.expiresAt - rows[0]!.createdAt).toBe(300_000);
    expect(JSON.stringify((await sqlRows(t.db, 'select * from one_time_tokens')))).not.toContain(token);
    const user = (await t.db.select().from(users).where(eq(users.id, rows[0]!.userPk)).limit(1))[0]!;
    expect(user).toMatchObject({ partnerId: p.id, email: 'ana@example.com', externalId: null });

    // Two calls, two different tokens, the same user.
    const again = await mint(t, `Bearer ${p.keys.private}`, 'ana@example.com');
    expect(again.body.data).not.toBe(token);
    expect(new Set((await t.db.select().from(oneTimeTokens)).map((r) => r.userPk)).size).toBe(1);
  });

  it('reads user by method: e-mail, phone, partner id; guesses without it', async () => {
    const { t, p } = await setup();
    const userOf = async (token: string) => {
      const row = (await t.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, hashSecret(token))).limit(1))[0]!;
      return (await t.db.select().from(users).where(eq(users.id, row.userPk)).limit(1))[0]!;
    };
    expect(await userOf((await mint(t, p.keys.private, 'ana@example.com', 'email')).body.data)).toMatchObject({ email: 'ana@example.com' });
    expect(await userOf((await mint(t, p.keys.private, '+34 600 111 222', 'phone')).body.data)).toMatchObject({ phone: '+34600111222', email: null });
    expect(await userOf((await mint(t, p.keys.private, '+34600111222')).body.data)).toMatchObject({ phone: '+34600111222' });
    expect(await userOf((await mint(t, p.keys.private, 'user-881')).body.data)).toMatchObject({ externalId: 'user-881', email: null });
    // An id that looks like an e-mail is still an id when the partner says so.
    expect(await userOf((await mint(t, p.keys.private, 'a@b', 'id')).body.data)).toMatchObject({ externalId: 'a@b', email: null });

    const badEmail = await mint(t, p.keys.private, 'user-881', 'email');
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.errors[0]).toMatchObject({ code: 'invalid_format', path: 'user', in: 'query' });
    const badPhone = await mint(t, p.keys.private, '600', 'phone');
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.errors[0]).toMatchObject({ code: 'invalid_format', path: 'user', in: 'query' });
    const badMethod = await mint(t, p.keys.private, 'ana@example.com', 'password');
    expect(badMethod.status).toBe(400);
    expect(badMethod.body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'method', in: 'query' });
  });

  it('needs user, and the private key', async () => {
    const { t, p } = await setup();
    const missing = await t.request('GET', '/v1/auth/oneTimeToken', { key: p.keys.private });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ code: 'missing_field', message: 'user is required', path: 'user', in: 'query' }]);
    const blank = await mint(t, p.keys.private, '   ');
    expect(blank.status).toBe(400);
    expect(blank.body.errors[0]).toMatchObject({ path: 'user', in: 'query' });

    for (const key of [p.keys.public, p.keys.channels]) {
      const res = await mint(t, key, 'ana@example.com');
      expect(res.status).toBe(403);
      expect(res.body.errors[0].code).toBe('forbidden_key_kind');
    }
    expect((await mint(t, 'sk_unknown', 'ana@example.com')).status).toBe(401);
    expect((await t.request('GET', '/v1/auth/oneTimeToken?user=ana%40example.com')).status).toBe(401);
    expect(await t.db.select().from(oneTimeTokens)).toHaveLength(0);
    expect(await t.db.select().from(users)).toHaveLength(0);
  });

  it('is documented: operationId, tag Auth, private key, both query parameters', async () => {
    const { t } = await setup();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as any;
    const op = doc.paths['/v1/auth/oneTimeToken'].get;
    expect(op.operationId).toBe('getOneTimeToken');
    expect(op.tags).toEqual(['Auth']);
    expect(op.security).toEqual([{ privateKey: [] }]);
    const params = Object.fromEntries(op.parameters.map((x: { name: string; required?: boolean; schema: { enum?: string[] } }) => [x.name, x]));
    expect(params.user.required).toBe(true);
    expect(params.method.required).toBeFalsy();
    expect(params.method.schema.enum).toEqual(['email', 'phone', 'id']);
    expect(op.responses['200']).toBeDefined();
    expect(op.responses['403']).toBeDefined();
  });
});

describe('redeeming a one-time token on a hosted page', () => {
  const page = (p: { id: string }, query = '') => `/test/${p.id}/protected${query}`;

  it('starts a session, and redirects to the same URL without the token', async () => {
    const { t, p } = await setup();
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const browser = new TestBrowser(t.app);
    const res = await browser.get(page(p, `?lang=es&oneTimeToken=${token}&x=1`));
    expect(res.status).toBe(302);
    expect(res.location).toBe(page(p, '?lang=es&x=1'));
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cookie = res.setCookies.find((c) => c.startsWith('resale_session='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Max-Age=43200/);
    expect(cookie).not.toMatch(/Secure/);

    // The cookie holds a random token; the database only its hash.
    const value = browser.cookies.get('resale_session')!;
    expect(value).toMatch(/^[0-9A-Za-z]{43}$/);
    const stored = await t.db.select().from(sessions);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.tokenHash).toBe(hashSecret(value));
    expect((await t.db.select().from(oneTimeTokens).limit(1))[0]!.usedAt).toBe(t.clock.now());

    const later = await browser.get(res.location!);
    expect(later.status).toBe(200);
    expect(later.text).toContain(`user:${stored[0]!.userPk}`);
    t.clock.advance(60 * 60_000);
    expect((await browser.get(page(p))).status).toBe(200);
  });

  it('keeps the session (and its step-up) when a new token of the same person arrives; another person’s token replaces it', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const first = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    await browser.get(page(p, `?oneTimeToken=${first}`));
    const cookie = browser.cookies.get('resale_session')!;
    const [session] = await t.db.select().from(sessions);
    // Stepped up by a code meanwhile (as the sell pages ask before payout details).
    await t.db.update(sessions).set({ steppedUpAt: t.clock.now() }).where(eq(sessions.id, session!.id));

    // The partner's next link (a Sell press on My tickets) brings a new token of the same person.
    const again = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const res = await browser.get(page(p, `?oneTimeToken=${again}`));
    expect(res.status).toBe(302);
    expect(res.location).toBe(page(p));
    expect(browser.cookies.get('resale_session')).toBe(cookie);
    const kept = await t.db.select().from(sessions);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ id: session!.id, revokedAt: null, steppedUpAt: t.clock.now() });
    expect((await t.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, hashSecret(again))))[0]!.usedAt).toBe(t.clock.now());

    // Another person's token (a shared computer, a planted session): a new session, not stepped up.
    const ben = (await mint(t, p.keys.private, 'ben@example.com')).body.data as string;
    await browser.get(page(p, `?oneTimeToken=${ben}`));
    expect(browser.cookies.get('resale_session')).not.toBe(cookie);
    const after = await t.db.select().from(sessions);
    expect(after.find((s) => s.id === session!.id)!.revokedAt).not.toBeNull();
    expect(after.find((s) => s.id !== session!.id)).toMatchObject({ revokedAt: null, steppedUpAt: null });
  });

  it('refuses a used token with a plain localised page', async () => {
    const { t, p } = await setup();
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const first = new TestBrowser(t.app);
    expect((await first.get(page(p, `?oneTimeToken=${token}`))).status).toBe(302);

    const other = new TestBrowser(t.app);
    const reused = await other.get(page(p, `?oneTimeToken=${token}`));
    expect(reused.status).toBe(410);
    expect(reused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reused.text).toMatch(/^<!DOCTYPE html><html lang="en">/);
    expect(reused.text).toContain('This link was already used');
    expect(reused.setCookies.some((c) => c.startsWith('resale_session='))).toBe(false);
    expect(other.cookies.has('resale_session')).toBe(false);

    const es = await other.get(page(p, `?oneTimeToken=${token}&lang=es`));
    expect(es.text).toContain('<html lang="es">');
    expect(es.text).toContain('Este enlace ya se ha usado');

    // The browser that used it, signed in as that user, just loses the token from the URL.
    const same = await first.get(page(p, `?oneTimeToken=${token}`));
    expect(same.status).toBe(302);
    expect(same.location).toBe(page(p));
    expect(await t.db.select().from(sessions)).toHaveLength(1);
  });

  it('refuses an expired token (past the partner TTL)', async () => {
    const { t, p } = await setup({ oneTimeTokenTtlSeconds: 60, defaultLang: 'es' });
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    t.clock.advance(60_000);
    const res = await new TestBrowser(t.app).get(page(p, `?oneTimeToken=${token}`));
    expect(res.status).toBe(410);
    expect(res.text).toContain('<html lang="es">');
    expect(res.text).toContain('Este enlace ha caducado');
    expect((await t.db.select().from(oneTimeTokens).limit(1))[0]!.usedAt).toBeNull();

    const fresh = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    t.clock.advance(59_000);
    expect((await new TestBrowser(t.app).get(page(p, `?oneTimeToken=${fresh}`))).status).toBe(302);
  });

  it("refuses another partner's token as unknown, without using it up", async () => {
    const { t, p } = await setup();
    const other = await t.partner('Other');
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const res = await new TestBrowser(t.app).get(page(other, `?oneTimeToken=${token}`));
    expect(res.status).toBe(401);
    expect(res.text).toContain('This link is not valid');
    expect(await t.db.select().from(sessions)).toHaveLength(0);
    // Still good where it belongs.
    expect((await new TestBrowser(t.app).get(page(p, `?oneTimeToken=${token}`))).status).toBe(302);
    // Unknown tokens read the same.
    const unknown = await new TestBrowser(t.app).get(page(p, '?oneTimeToken=nope'));
    expect(unknown.status).toBe(401);
  });

  it("does not accept one partner's session on another partner's page", async () => {
    const { t, p } = await setup({ loginUrl: 'https://acme.example/login' });
    const other = await t.partner('Other', { loginUrl: 'https://other.example/login' });
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const browser = new TestBrowser(t.app);
    await browser.get(page(p, `?oneTimeToken=${token}`));
    expect((await browser.get(page(p))).status).toBe(200);
    const res = await browser.get(page(other));
    expect(res.status).toBe(302);
    expect(res.location).toMatch(/^https:\/\/other\.example\/login\?returnTo=/);
  });

  it('does not redeem on HEAD (link scanners)', async () => {
    const { t, p } = await setup({ loginUrl: 'https://acme.example/login' });
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const head = await t.app.request(page(p, `?oneTimeToken=${token}`), { method: 'HEAD' });
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toMatch(/^https:\/\/acme\.example\/login/);
    expect((await t.db.select().from(oneTimeTokens).limit(1))[0]!.usedAt).toBeNull();
  });

  it('sets Secure on cookies in production', async () => {
    const { t, p } = await setup({}, { env: 'production', publicBaseUrl: 'https://resale.example' });
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const res = await new TestBrowser(t.app).get(page(p, `?oneTimeToken=${token}`));
    expect(res.setCookies.find((c) => c.startsWith('resale_session='))).toMatch(/; Secure/);
  });

  it('ends sessions after 12 hours', async () => {
    const { t, p } = await setup({ loginUrl: 'https://acme.example/login' });
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const browser = new TestBrowser(t.app);
    await browser.get(page(p, `?oneTimeToken=${token}`));
    t.clock.advance(SESSION_TTL_MS - 1);
    expect((await browser.get(page(p))).status).toBe(200);
    t.clock.advance(1);
    expect((await browser.get(page(p))).status).toBe(302);
  });
});

describe('CSRF and sign-out', () => {
  async function signedIn(opts: { loginUrl?: string } = {}) {
    const { t, p } = await setup(opts.loginUrl ? { loginUrl: opts.loginUrl } : {});
    const token = (await mint(t, p.keys.private, 'ana@example.com')).body.data as string;
    const browser = new TestBrowser(t.app);
    await browser.get(`/test/${p.id}/protected?oneTimeToken=${token}`);
    const pageRes = await browser.get(`/test/${p.id}/protected`);
    const csrf = inputValue(pageRes.text, '_csrf')!;
    return { t, p, browser, csrf, url: `/test/${p.id}/protected` };
  }

  it('refuses a form without the token or with a wrong one (403 page), accepts the right one', async () => {
    const { browser, csrf, url } = await signedIn();
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const missing = await browser.post(url, {});
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('This form has expired');
    expect(missing.text).toContain('<html lang="en">');
    // Change the first character to a different one: a fixed 'x' would leave one token in 64 unchanged.
    const wrong = (csrf[0] === 'x' ? 'y' : 'x') + csrf.slice(1);
    expect((await browser.post(url + '?lang=es', { _csrf: wrong })).text).toContain('Este formulario ha caducado');
    expect((await browser.post(url, { _csrf: csrf + 'x' })).status).toBe(403);
    const ok = await browser.post(url, { _csrf: csrf });
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('posted');
    // The header works as well (for scripts).
    expect((await browser.post(url, {}, { 'X-CSRF-Token': csrf })).status).toBe(200);
  });

  it('binds the token to the session and to the action', async () => {
    const { t, browser, csrf, url } = await signedIn();
    const session = (await t.db.select().from(sessions).limit(1))[0]!;
    const other = authService(t.deps);
    // The same user signed in elsewhere has another secret, so another token.
    const second = await t.db.transact(async (tx) => await other.startSession(tx, session.partnerId, session.userPk));
    const thief = new TestBrowser(t.app);
    thief.cookies.set('resale_session', second.token);
    expect((await thief.post(url, { _csrf: csrf })).status).toBe(403);
    // A token for another action is refused.
    const logoutToken = inputValue((await browser.get('/auth/session')).text, '_csrf')!;
    expect(logoutToken).not.toBe(csrf);
    expect((await browser.post(url, { _csrf: logoutToken })).status).toBe(403);
    // Without a session, no token is good.
    expect((await new TestBrowser(t.app).post(url, { _csrf: csrf })).status).toBe(403);
  });

  it('signs out: the session is revoked, the cookie cleared, and the old cookie no longer works', async () => {
    const { t, p, browser } = await signedIn({ loginUrl: 'https://acme.example/login' });
    const stolen = browser.cookies.get('resale_session')!;
    const account = await browser.get('/auth/session');
    expect(account.status).toBe(200);
    expect(account.text).toContain('You are signed in as ana@example.com.');
    expect(account.text).toMatch(/<form method="post" action="\/auth\/logout\?lang=en">/);
    const csrf = inputValue(account.text, '_csrf')!;

    expect((await browser.post('/auth/logout', {})).status).toBe(403);
    expect((await t.db.select().from(sessions).limit(1))[0]!.revokedAt).toBeNull();

    const out = await browser.post('/auth/logout?lang=en', { _csrf: csrf });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/auth/session?lang=en');
    expect(out.setCookies.find((c) => c.startsWith('resale_session='))).toMatch(/Max-Age=0/);
    expect(browser.cookies.has('resale_session')).toBe(false);
    expect((await t.db.select().from(sessions).limit(1))[0]!.revokedAt).toBe(t.clock.now());

    const replay = new TestBrowser(t.app);
    replay.cookies.set('resale_session', stolen);
    const res = await replay.get(`/test/${p.id}/protected`);
    expect(res.status).toBe(302);
    expect(res.location).toMatch(/^https:\/\/acme\.example\/login/);
    expect((await replay.get('/auth/session')).text).toContain('You are not signed in');
  });

  it('after sign-out, goes back to a returnTo on the service only', async () => {
    const cases: [string, string][] = [
      ['http://resale.test/test/x?lang=es', 'http://resale.test/test/x?lang=es'],
      ['/test/y', 'http://resale.test/test/y'],
      ['https://evil.com/', '/auth/session?lang=en'],
      ['//evil.com', '/auth/session?lang=en'],
    ];
    for (const [returnTo, expected] of cases) {
      const { browser } = await signedIn();
      const csrf = inputValue((await browser.get('/auth/session')).text, '_csrf')!;
      const out = await browser.post('/auth/logout', { _csrf: csrf, returnTo });
      expect(out.status).toBe(303);
      expect(out.location, returnTo).toBe(expected);
    }
  });
});
