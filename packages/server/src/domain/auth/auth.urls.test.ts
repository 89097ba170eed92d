import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestApp } from '../../testing/harness.js';
import { hashSecret } from '../../lib/crypto.js';
import { ApiError } from '../../lib/errors.js';
import { users } from '../users/users.table.js';
import { authPurgeJob } from '../../jobs/auth.job.js';
import { AuthService, authService, SESSION_TTL_MS } from './auth.service.js';
import { oneTimeTokens, otpCodes, sessions } from './auth.table.js';
import { safeReturnTo, signUrl, withLoginTrust, withLoginTrustSigner } from './auth.urls.js';
import { mountAuth, TestBrowser } from '../../http/pages/auth/auth.testing.js';

const BASE = 'https://resale.test';

describe('safeReturnTo', () => {
  it('keeps URLs on the service, made absolute', () => {
    expect(safeReturnTo('https://resale.test/buy/1?lang=es#seats', BASE)).toBe('https://resale.test/buy/1?lang=es#seats');
    expect(safeReturnTo('HTTPS://RESALE.TEST/buy', BASE)).toBe('https://resale.test/buy');
    expect(safeReturnTo('https://resale.test:443/buy', BASE)).toBe('https://resale.test/buy');
    expect(safeReturnTo('/buy/1?x=%2F%2Fevil.com', BASE)).toBe('https://resale.test/buy/1?x=%2F%2Fevil.com');
    expect(safeReturnTo('/', BASE)).toBe('https://resale.test/');
    expect(safeReturnTo('/a/../b', BASE)).toBe('https://resale.test/b');
  });

  it.each([
    ['protocol-relative', '//evil.com'],
    ['protocol-relative with path', '//evil.com/resale.test'],
    ['another origin', 'https://evil.com'],
    ['a look-alike host', 'https://resale.test.evil.com/'],
    ['user info', 'https://resale.test@evil.com/'],
    ['user info with password', 'https://resale.test:pw@evil.com/'],
    ['user info on our host', 'https://attacker@resale.test/'],
    ['another scheme', 'javascript:alert(document.cookie)'],
    ['a scheme in capitals', 'JaVaScRiPt:alert(1)'],
    ['data', 'data:text/html,<script>alert(1)</script>'],
    ['http instead of https', 'http://resale.test/buy'],
    ['another port', 'https://resale.test:8443/buy'],
    ['a backslash', '/\\evil.com'],
    ['backslashes', '\\\\evil.com'],
    ['a backslash after the scheme', 'https:\\\\evil.com'],
    ['encoded slashes', '/%2F%2Fevil.com'],
    ['encoded slashes, lower case', '/%2f%2fevil.com'],
    ['an encoded backslash', '/%5Cevil.com'],
    ['encoded slashes without a leading slash', '%2F%2Fevil.com'],
    ['a scheme without slashes', 'https:evil.com'],
    ['a tab in the scheme', 'java\tscript:alert(1)'],
    ['a newline', '/\n/evil.com'],
    ['a leading space', ' https://resale.test/'],
    ['a relative path', 'buy/1'],
    ['a dot path', './buy'],
    ['empty', ''],
    ['too long', '/' + 'a'.repeat(2048)],
  ])('refuses %s', (_name, input) => {
    expect(safeReturnTo(input, BASE)).toBeNull();
  });

  it('refuses what is not a string', () => {
    expect(safeReturnTo(undefined, BASE)).toBeNull();
    expect(safeReturnTo(null, BASE)).toBeNull();
  });

  it('keeps a base URL with a path to that path', () => {
    expect(safeReturnTo('https://resale.test/resale/buy', 'https://resale.test/resale')).toBe('https://resale.test/resale/buy');
    expect(safeReturnTo('https://resale.test/resale', 'https://resale.test/resale/')).toBe('https://resale.test/resale');
    expect(safeReturnTo('https://resale.test/other', 'https://resale.test/resale')).toBeNull();
    expect(safeReturnTo('https://resale.test/resalex', 'https://resale.test/resale')).toBeNull();
  });
});

describe('signed URLs (Login Trust, smart publish, access layer)', () => {
  it('signUrl appends or replaces oneTimeToken and keeps the rest', () => {
    expect(signUrl('https://resale.test/sell/p1/start?lang=es#x', 'T1')).toBe('https://resale.test/sell/p1/start?lang=es&oneTimeToken=T1#x');
    expect(signUrl('https://resale.test/sell/p1/start?oneTimeToken=old', 'T2')).toBe('https://resale.test/sell/p1/start?oneTimeToken=T2');
  });

  it('signs each URL with its own fresh token for the user, created on first sight', async () => {
    const t = mountAuth(createTestApp());
    const p = await t.partner('Acme');
    const urls = await t.db.transact((tx) =>
      withLoginTrustSigner(t.deps, tx, { partnerId: p.id, user: 'Ana@Example.com' }, 'accessLayer', (sign) => [
        sign(`http://resale.test/sell/${p.id}/start?b=1`),
        sign(`http://resale.test/sell/${p.id}/start?b=2`),
      ]),
    );
    const tokens = urls.map((u) => new URL(u).searchParams.get('oneTimeToken')!);
    expect(tokens[0]).not.toBe(tokens[1]);
    const rows = await t.db.select().from(oneTimeTokens);
    expect(rows.map((r) => r.purpose)).toEqual(['accessLayer', 'accessLayer']);
    expect(rows.map((r) => r.tokenHash).sort()).toEqual(tokens.map(hashSecret).sort());
    expect(await t.db.select().from(users)).toEqual([expect.objectContaining({ email: 'ana@example.com' })]);

    // Each opens its page once.
    for (const url of urls) {
      const browser = new TestBrowser(t.app);
      const res = await browser.get(url);
      expect(res.status).toBe(302);
      expect(res.location).not.toContain('oneTimeToken');
      // Signed in as that user (the sell page itself needs the partner's platform, absent here).
      expect((await browser.get('/auth/session')).text).toContain('ana@example.com');
    }
  });

  it('leaves URLs alone without a user, and names loginTrust[user] when it is unusable', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme');
    await t.db.transact(async (tx) => {
      expect(await withLoginTrust(t.deps, tx, { partnerId: p.id, user: undefined }, 'https://resale.test/sell/p1/x')).toBe('https://resale.test/sell/p1/x');
      expect(await withLoginTrust(t.deps, tx, { partnerId: p.id, user: '  ' }, 'https://resale.test/sell/p1/x')).toBe('https://resale.test/sell/p1/x');
      expect(await withLoginTrust(t.deps, tx, { partnerId: p.id, user: '+34600111222' }, 'https://resale.test/sell/p1/x', 'smartPublish')).toMatch(/\?oneTimeToken=\w{43}$/);
      try {
        await withLoginTrust(t.deps, tx, { partnerId: p.id, user: 'not-an-email', method: 'email' }, 'https://resale.test/sell/p1/x');
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).entries[0]).toMatchObject({ code: 'invalid_format', path: 'loginTrust[user]', in: 'query' });
      }
    });
    expect((await t.db.select().from(oneTimeTokens)).map((r) => r.purpose)).toEqual(['smartPublish']);
  });

  it('the token is single use even when two redemptions race', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme');
    const auth = authService(t.deps);
    const token = await t.db.transact(async (tx) => await auth.mintOneTimeToken(tx, p.id, (await t.deps.users.resolve(tx, p.id, { email: 'a@example.com' })).id, 'login'));
    const results = [await auth.redeemOneTimeToken(t.db, token, p.id), await auth.redeemOneTimeToken(t.db, token, p.id)];
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(results[1]).toMatchObject({ reason: 'used' });
  });
});

describe('authService', () => {
  it('uses deps.auth once AppDeps carries it, else one instance per deps', () => {
    const t = createTestApp();
    expect(authService(t.deps)).toBe(authService(t.deps));
    const wired = new AuthService(t.deps);
    expect(authService({ ...t.deps, auth: wired } as typeof t.deps)).toBe(wired);
  });
});

describe('the auth purge job', () => {
  it('deletes dead tokens, sessions and codes a day (codes two days) later, and keeps the rest', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme');
    const auth = authService(t.deps);
    const userPk = await t.db.transact(async (tx) => (await t.deps.users.resolve(tx, p.id, { email: 'a@example.com' })).id);
    await t.db.transact(async (tx) => {
      await auth.mintOneTimeToken(tx, p.id, userPk, 'login');
      await auth.startSession(tx, p.id, userPk);
      const revoked = await auth.startSession(tx, p.id, userPk);
      await auth.revokeSession(tx, revoked.session.id);
      await auth.requestOtp(tx, { partnerId: p.id, identifier: 'a@example.com', lang: 'en', ip: 'x' });
    });
    await authPurgeJob.run(t.deps);
    expect(await t.db.select().from(sessions)).toHaveLength(2);

    t.clock.advance(24 * 60 * 60_000 + 300_000); // a day after the token expired
    await authPurgeJob.run(t.deps);
    expect(await t.db.select().from(oneTimeTokens)).toHaveLength(0);
    expect(await t.db.select().from(sessions)).toHaveLength(1); // the live one lasts 12 h + a day
    expect(await t.db.select().from(otpCodes)).toHaveLength(1);

    t.clock.advance(SESSION_TTL_MS + 24 * 60 * 60_000);
    await authPurgeJob.run(t.deps);
    expect(await t.db.select().from(sessions)).toHaveLength(0);
    expect(await t.db.select().from(otpCodes)).toHaveLength(0);
    expect(await t.db.select().from(users).where(eq(users.id, userPk))).toHaveLength(1);
  });
});
