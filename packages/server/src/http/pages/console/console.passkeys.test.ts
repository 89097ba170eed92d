import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { createTestApp } from '../../../testing/harness.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor, OTP_LIMITS } from '../../../domain/auth/auth.service.js';
import { consoleMemberships, consolePasskeyChallenges, consolePasskeys, consoleSessions } from '../../../domain/console/console.table.js';
import { MAX_PASSKEYS, PASSKEY_CHALLENGE_TTL_MS } from '../../../domain/console/console.service.js';
import { hashSecret } from '../../../lib/crypto.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { addPasskey, ceremonyAction, ceremonyCsrf, fetchOptions, passkeySignIn, SoftAuthenticator } from './console.passkeys.testing.js';
import { PASSKEY_SCRIPT_PATH } from './console.passkeys.script.js';
import { confirmWithCode, signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';

async function setup() {
  const t = createTestApp();
  await withOperators(t, OPERATOR);
  return t;
}

type TestApp = Awaited<ReturnType<typeof setup>>;

/** The operator signed in by code (so stepped up) with one passkey of a new authenticator. */
async function withPasskey(t: TestApp, email = OPERATOR) {
  const browser = await signIn(t, email);
  const authenticator = new SoftAuthenticator();
  const added = await addPasskey(browser, authenticator);
  expect(added.status, added.text.slice(0, 500)).toBe(303);
  const passkeyId = /added=([^&]+)/.exec(added.location!)![1]!;
  return { browser, authenticator, passkeyId: decodeURIComponent(passkeyId) };
}

const sessionOf = async (t: TestApp, browser: TestBrowser) => (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
const passkeyRows = async (t: TestApp) => await t.db.read(async (tx) => await tx.select().from(consolePasskeys));
const auditRows = async (t: TestApp) => await t.db.read(async (tx) => await tx.select().from(auditLog));

describe('console passkeys: the pages', () => {
  it('offers a passkey on the sign-in page, hidden until its script shows it, under a policy of the service’s own scripts only', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    const page = await browser.get('/console/sign-in');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'; connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.text.match(/<form[^>]*data-passkey=[^>]*>/)?.[0]).toMatch(/^<form method="post" action="\/console\/sign-in\/passkey\?next=%2Fconsole" class="card" hidden(?:="")? data-passkey="sign-in" data-passkey-options="\/console\/sign-in\/passkey\/options" data-passkey-options-csrf="[^"]+"/);
    expect(page.text).toContain(`<script src="${PASSKEY_SCRIPT_PATH}" defer></script>`);
    expect(page.text).toContain('Sign in with a passkey');
    expect((await browser.get('/console/sign-in?lang=es')).text).toContain('Entrar con una llave de acceso');
    const script = await browser.get(PASSKEY_SCRIPT_PATH);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.text).toContain('navigator.credentials.get');
  });

  it('asks a fresh code before adding a passkey, then adds it, lists it, renames and removes it, each change audited without a partner', async () => {
    const t = await setup();
    const browser = await signIn(t, OPERATOR);
    // The code of the sign-in counts 10 minutes; after that, adding a way in asks for a new one.
    t.clock.advance(11 * 60_000);
    const account = await browser.get('/console/account');
    expect(account.status).toBe(200);
    expect(account.text).toContain('You have no passkey yet.');
    expect(account.text).toContain('href="/console/account/passkeys/new"');
    expect(account.text).toMatch(/<a href="\/console\/account" aria-current="page">Your account<\/a>/);
    const asked = await browser.get('/console/account/passkeys/new');
    expect(asked.status).toBe(303);
    expect(asked.location).toBe('/console/confirm?next=%2Fconsole%2Faccount%2Fpasskeys%2Fnew');
    // The script's options answer the same way while the session is not stepped up.
    const early = await browser.post('/console/account/passkeys/options', { _csrf: await csrfFor(t, browser, '/console/account/passkeys/options') });
    expect(early.status).toBe(403);
    expect(JSON.parse(early.text)).toEqual({ redirect: '/console/confirm?next=%2Fconsole%2Faccount%2Fpasskeys%2Fnew' });
    const back = await confirmWithCode(t, browser, asked.location!, OPERATOR);
    expect(back.location).toBe('/console/account/passkeys/new');

    const authenticator = new SoftAuthenticator();
    const added = await addPasskey(browser, authenticator, { name: '  Work   laptop ' });
    expect(added.status, added.text.slice(0, 300)).toBe(303);
    expect(added.location).toMatch(/^\/console\/account\?added=cpk_/);
    const listed = await browser.get(added.location!);
    expect(listed.text).toContain('Passkey “Work laptop” added.');
    expect(listed.text).toContain('value="Work laptop"');
    const [row] = await passkeyRows(t);
    expect(row).toMatchObject({ credentialId: authenticator.id, counter: 0, transports: ['internal'], name: 'Work laptop', lastUsedAt: null });

    const passkeyId = row!.id;
    const renamed = await submit(browser, '/console/account', `/console/account/passkeys/${passkeyId}`, { op: 'rename', name: 'Blue key' });
    expect(renamed.status).toBe(303);
    expect(renamed.location).toBe('/console/account?renamed=1');
    expect((await passkeyRows(t))[0]!.name).toBe('Blue key');
    const blank = await submit(browser, '/console/account', `/console/account/passkeys/${passkeyId}`, { op: 'rename', name: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain('Enter a name of 1 to 60 characters.');

    const removed = await submit(browser, '/console/account', `/console/account/passkeys/${passkeyId}`, { op: 'remove' });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe('/console/account?removed=1');
    expect(await passkeyRows(t)).toEqual([]);

    const audit = (await auditRows(t)).map((r) => ({ action: r.action, target: r.target, partnerId: r.partnerId, role: r.role, actorEmail: r.actorEmail, before: r.before, after: r.after }));
    expect(audit).toEqual([
      { action: 'passkey.add', target: passkeyId, partnerId: null, role: 'operator', actorEmail: OPERATOR, before: null, after: { name: 'Work laptop' } },
      { action: 'passkey.rename', target: passkeyId, partnerId: null, role: 'operator', actorEmail: OPERATOR, before: { name: 'Work laptop' }, after: { name: 'Blue key' } },
      { action: 'passkey.remove', target: passkeyId, partnerId: null, role: 'operator', actorEmail: OPERATOR, before: { name: 'Blue key' }, after: null },
    ]);
  });

  it('names a passkey “Passkey” when no name is typed, and speaks Spanish', async () => {
    const t = await setup();
    const browser = await signIn(t, OPERATOR);
    await browser.get('/console/account?lang=es');
    const added = await addPasskey(browser, new SoftAuthenticator(), { name: '' });
    expect(added.status).toBe(303);
    expect((await passkeyRows(t))[0]!.name).toBe('Llave de acceso');
    expect((await browser.get(added.location!)).text).toContain('Llave de acceso «Llave de acceso» añadida.');
  });

  it('records a partner person’s change with no role (it concerns no partner)', async () => {
    const t = await setup();
    const ops = await signIn(t, OPERATOR);
    const p = await t.partner('Acme');
    await submit(ops, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team`, { email: 'dev@acme.example', role: 'developer' });
    await withPasskey(t, 'dev@acme.example');
    const entry = (await auditRows(t)).find((r) => r.action === 'passkey.add')!;
    expect(entry).toMatchObject({ actorEmail: 'dev@acme.example', role: null, partnerId: null });
  });

  it('stops at the most passkeys one person may have', async () => {
    const t = await setup();
    const browser = await signIn(t, OPERATOR);
    for (let i = 0; i < MAX_PASSKEYS; i++) expect((await addPasskey(browser, new SoftAuthenticator(), { name: `Key ${i}` })).status).toBe(303);
    const account = await browser.get('/console/account');
    expect(account.text).not.toContain('href="/console/account/passkeys/new"');
    expect(account.text).toContain(`You have ${MAX_PASSKEYS} passkeys`);
    const page = await browser.get('/console/account/passkeys/new');
    expect((await fetchOptions(browser, page.text)).status).toBe(409);
  });
});

describe('console passkeys: signing in', () => {
  it('starts a session as a code does (a new token, the same cookie), not stepped up, and records the use', async () => {
    const t = await setup();
    const { browser: first, authenticator, passkeyId } = await withPasskey(t);
    const firstToken = first.cookies.get('resale_console')!;
    // The same browser signs in again with the passkey (its script posts with the session's tokens): the previous session ends, a new token starts.
    const options = await first.post('/console/sign-in/passkey/options', { _csrf: await csrfFor(t, first, '/console/sign-in/passkey/options') });
    const { challengeId, options: request } = JSON.parse(options.text) as { challengeId: string; options: PublicKeyCredentialRequestOptionsJSON };
    const res = await first.post('/console/sign-in/passkey?next=%2Fconsole%2Faudit', { _csrf: await csrfFor(t, first, '/console/sign-in/passkey'), challenge: challengeId, response: JSON.stringify(authenticator.assert(request)) });
    expect(res.status, res.text.slice(0, 500)).toBe(303);
    expect(res.location).toBe('/console/audit');
    expect(res.setCookies.find((c) => c.startsWith('resale_console='))).toMatch(/Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict/);
    expect(first.cookies.get('resale_console')).not.toBe(firstToken);
    const replaced = new TestBrowser(t.app);
    replaced.cookies.set('resale_console', firstToken);
    expect((await replaced.get('/console')).status).toBe(303);
    const home = await first.get('/console');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Signed in as ops@resale.test (operator)');

    const session = await sessionOf(t, first);
    expect(session).toMatchObject({ passkeyPk: passkeyId, steppedUpAt: null });
    const row = (await passkeyRows(t))[0]!;
    expect(row.counter).toBe(1);
    expect(row.lastUsedAt).toBe(t.clock.now());
    // A passkey is not a fresh code: adding another way in still asks for one.
    expect((await first.get('/console/account/passkeys/new')).location).toBe('/console/confirm?next=%2Fconsole%2Faccount%2Fpasskeys%2Fnew');

    const planted = new TestBrowser(t.app);
    planted.cookies.set('resale_console', 'planted-token-of-an-attacker');
    const again = await passkeySignIn(t, authenticator, { browser: planted });
    expect(again.res.status).toBe(303);
    expect(planted.cookies.get('resale_console')).not.toBe('planted-token-of-an-attacker');
  });

  it('refuses a passkey it does not know, and starts no session', async () => {
    const t = await setup();
    await withPasskey(t);
    const { res, browser } = await passkeySignIn(t, new SoftAuthenticator());
    expect(res.status).toBe(400);
    expect(res.text).toContain('That passkey is not known here');
    expect(browser.cookies.has('resale_console')).toBe(false);
    // The refused page's other-language link leads back to the sign-in page, in that language.
    const other = await browser.get(/href="([^"]*lang=es[^"]*)"/.exec(res.text)![1]!.replace(/&amp;/g, '&'));
    expect(other.status).toBe(303);
    expect(other.location).toBe('/console/sign-in?next=%2Fconsole');
    expect((await browser.get(other.location!)).text).toContain('<html lang="es">');
  });

  it('refuses a replayed challenge: an answer is accepted once, and a second answer to the same challenge never', async () => {
    const t = await setup();
    const { authenticator } = await withPasskey(t);
    const { res, challengeId, response } = await passkeySignIn(t, authenticator);
    expect(res.status).toBe(303);
    // The same answer posted again from another browser (captured on the wire, say).
    const thief = new TestBrowser(t.app);
    const page = await thief.get('/console/sign-in');
    const replay = await thief.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: challengeId, response: JSON.stringify(response) });
    expect(replay.status).toBe(410);
    expect(replay.text).toContain('That took too long');
    expect(thief.cookies.has('resale_console')).toBe(false);
    // A fresh signature over the spent challenge does no better.
    const second = authenticator.assert({ challenge: (await t.db.read(async (tx) => await tx.select().from(consolePasskeyChallenges).where(eq(consolePasskeyChallenges.id, challengeId))))[0]!.challenge } as PublicKeyCredentialRequestOptionsJSON);
    expect((await thief.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: challengeId, response: JSON.stringify(second) })).status).toBe(410);
  });

  it('refuses an expired challenge (5 minutes, by the service’s clock)', async () => {
    const t = await setup();
    const { authenticator } = await withPasskey(t);
    const browser = new TestBrowser(t.app);
    const page = await browser.get('/console/sign-in');
    const { body } = await fetchOptions<PublicKeyCredentialRequestOptionsJSON>(browser, page.text);
    t.clock.advance(PASSKEY_CHALLENGE_TTL_MS);
    const res = await browser.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: body.challengeId!, response: JSON.stringify(authenticator.assert(body.options!)) });
    expect(res.status).toBe(410);
    expect(browser.cookies.has('resale_console')).toBe(false);
  });

  it('refuses an answer signed for another origin or RP ID, without user verification, with a counter gone back, or that is not an answer', async () => {
    const t = await setup();
    const { authenticator } = await withPasskey(t);
    for (const tamper of [{ origin: 'http://evil.test' }, { origin: 'https://resale.test' }, { rpId: 'evil.test' }, { userVerified: false }]) {
      const { res, browser } = await passkeySignIn(t, authenticator, { tamper });
      expect(res.status, JSON.stringify(tamper)).toBe(400);
      expect(res.text).toContain('The passkey could not be checked');
      expect(browser.cookies.has('resale_console')).toBe(false);
    }
    expect((await passkeySignIn(t, authenticator)).res.status).toBe(303);
    // The counter was moved on; an answer counting no further is a clone's.
    const clone = await passkeySignIn(t, authenticator, { tamper: { counter: 1 } });
    expect(clone.res.status).toBe(400);
    // Not JSON at all, or not an answer.
    const browser = new TestBrowser(t.app);
    const page = await browser.get('/console/sign-in');
    for (const response of ['not json', '{"id":"x"}', '', 'x'.repeat(40_000)]) {
      const { body } = await fetchOptions<PublicKeyCredentialRequestOptionsJSON>(browser, page.text);
      const res = await browser.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: body.challengeId!, response });
      expect(res.status).toBe(400);
    }
  });

  it('refuses a registration made for another origin or without user verification: nothing kept, nothing audited', async () => {
    const t = await setup();
    const browser = await signIn(t, OPERATOR);
    for (const tamper of [{ origin: 'http://evil.test' }, { rpId: 'evil.test' }, { userVerified: false }]) {
      const res = await addPasskey(browser, new SoftAuthenticator(), { tamper });
      expect(res.status, JSON.stringify(tamper)).toBe(400);
      expect(res.text).toContain('The passkey could not be checked');
    }
    expect(await passkeyRows(t)).toEqual([]);
    expect(await auditRows(t)).toEqual([]);
  });

  it('binds a registration’s challenge to its session, once', async () => {
    const t = await setup();
    const mine = await signIn(t, OPERATOR);
    const other = await signIn(t, OPERATOR);
    const page = await mine.get('/console/account/passkeys/new');
    const { body } = await fetchOptions<never>(mine, page.text);
    const authenticator = new SoftAuthenticator();
    const response = JSON.stringify(authenticator.register(body.options!));
    const otherPage = await other.get('/console/account/passkeys/new');
    expect((await other.post(ceremonyAction(otherPage.text), { _csrf: ceremonyCsrf(otherPage.text), challenge: body.challengeId!, response })).status).toBe(410);
    expect((await mine.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: body.challengeId!, response, name: 'x' })).status).toBe(303);
    expect((await mine.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: body.challengeId!, response, name: 'x' })).status).toBe(410);
    // The same authenticator again, with a new challenge: excluded by the browser, refused here too.
    expect((await addPasskey(mine, authenticator)).status).toBe(409);
    expect(await passkeyRows(t)).toHaveLength(1);
  });

  it('answers 403 to a person who no longer has access', async () => {
    const t = await setup();
    const ops = await signIn(t, OPERATOR);
    const p = await t.partner('Acme');
    await submit(ops, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team`, { email: 'dev@acme.example', role: 'developer' });
    const { authenticator } = await withPasskey(t, 'dev@acme.example');
    await t.db.transact(async (tx) => await tx.delete(consoleMemberships));
    const { res, browser } = await passkeySignIn(t, authenticator);
    expect(res.status).toBe(403);
    expect(browser.cookies.has('resale_console')).toBe(false);
  });

  it('ends the sessions a passkey signed in when it is removed', async () => {
    const t = await setup();
    const { browser: owner, authenticator, passkeyId } = await withPasskey(t);
    const { browser: laptop } = await passkeySignIn(t, authenticator);
    expect((await laptop.get('/console')).status).toBe(200);
    expect((await submit(owner, '/console/account', `/console/account/passkeys/${passkeyId}`, { op: 'remove' })).status).toBe(303);
    expect((await laptop.get('/console')).status).toBe(303);
    expect((await owner.get('/console')).status).toBe(200);
    // Removed from the session it signed in: that session ends with it, and says so.
    const { authenticator: second } = await withPasskey(t);
    const { browser: phone } = await passkeySignIn(t, second);
    const id = (await passkeyRows(t))[0]!.id;
    const self = await submit(phone, '/console/account', `/console/account/passkeys/${id}`, { op: 'remove' });
    expect(self.location).toBe('/console/sign-in?signed-out=1');
    expect(phone.cookies.has('resale_console')).toBe(false);
  });

  it('limits passkey sign-ins per client address as codes are: options 20 per 15 minutes, answers 30 a minute', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    const page = await browser.get('/console/sign-in');
    for (let i = 0; i < OTP_LIMITS.perIp.limit; i++) expect((await fetchOptions(browser, page.text)).status).toBe(200);
    const limited = await fetchOptions(browser, page.text);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toContain('Too many attempts');
    // Another address is not held back.
    const elsewhere = new TestBrowser(t.app, '203.0.113.9');
    expect((await fetchOptions(elsewhere, (await elsewhere.get('/console/sign-in')).text)).status).toBe(200);
    t.clock.advance(OTP_LIMITS.perIp.windowMs);
    expect((await fetchOptions(browser, page.text)).status).toBe(200);

    for (let i = 0; i < OTP_LIMITS.verifyPerIpPerMinute; i++) expect((await browser.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: 'cpc_none', response: '{}' })).status).toBe(410);
    const tooMany = await browser.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: 'cpc_none', response: '{}' });
    expect(tooMany.status).toBe(429);
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('console passkeys: housekeeping', () => {
  it('deletes challenges two days after they were made (the hourly purge)', async () => {
    const t = await setup();
    const browser = new TestBrowser(t.app);
    await fetchOptions(browser, (await browser.get('/console/sign-in')).text);
    const challenges = async () => (await t.db.read(async (tx) => await tx.select().from(consolePasskeyChallenges))).length;
    t.clock.advance(2 * 24 * 60 * 60_000 - 1);
    expect((await t.db.transact(async (tx) => await t.deps.consoleAccess.purgeExpired(tx))).challenges).toBe(0);
    expect(await challenges()).toBe(1);
    t.clock.advance(1);
    expect((await t.db.transact(async (tx) => await t.deps.consoleAccess.purgeExpired(tx))).challenges).toBe(1);
    expect(await challenges()).toBe(0);
  });
});

describe('console passkeys: refusals', () => {
  it('answers 404 for another person’s passkey, and leaves it be', async () => {
    const t = await setup();
    const { passkeyId } = await withPasskey(t);
    const p = await t.partner('Acme');
    const ops = await signIn(t, OPERATOR);
    await submit(ops, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team`, { email: 'admin@acme.example', role: 'partner_admin' });
    const admin = await signIn(t, 'admin@acme.example');
    const before = (await auditRows(t)).length;
    for (const op of ['remove', 'rename']) {
      const page = await admin.get('/console/account');
      const url = `/console/account/passkeys/${passkeyId}`;
      const res = await admin.post(url, { _csrf: (await csrfFor(t, admin, url)), op, name: 'mine now' });
      expect(res.status, op).toBe(404);
      expect(page.text).not.toContain(passkeyId);
    }
    expect((await passkeyRows(t))[0]).toMatchObject({ id: passkeyId, name: 'Work laptop' });
    expect((await auditRows(t)).length).toBe(before);
  });

  it('refuses every passkey form without its CSRF token (403), before anything is written', async () => {
    const t = await setup();
    const { browser, passkeyId } = await withPasskey(t);
    const before = { challenges: (await t.db.read(async (tx) => await tx.select().from(consolePasskeyChallenges))).length, audit: (await auditRows(t)).length };
    const posts = ['/console/account/passkeys/options', '/console/account/passkeys', `/console/account/passkeys/${passkeyId}`, '/console/sign-in/passkey/options', '/console/sign-in/passkey'];
    for (const url of posts) {
      for (const who of [browser, new TestBrowser(t.app)]) {
        expect((await who.post(url, { op: 'remove', name: 'x' })).status, url).toBe(403);
        expect((await who.post(url, { _csrf: 'forged', op: 'remove' })).status, url).toBe(403);
      }
      // Another form's token does not do either.
      expect((await browser.post(url, { _csrf: await csrfFor(t, browser, '/console/sign-out'), op: 'remove' })).status, url).toBe(403);
    }
    expect((await t.db.read(async (tx) => await tx.select().from(consolePasskeyChallenges))).length).toBe(before.challenges);
    expect((await auditRows(t)).length).toBe(before.audit);
    expect(await passkeyRows(t)).toHaveLength(1);
  });

  it('sends a signed-out visitor to sign in, and tells the script so', async () => {
    const t = await setup();
    const { passkeyId } = await withPasskey(t);
    const visitor = new TestBrowser(t.app);
    for (const url of ['/console/account', '/console/account/passkeys/new']) {
      const res = await visitor.get(url);
      expect(res.status, url).toBe(303);
      expect(res.location).toBe(`/console/sign-in?next=${encodeURIComponent(url)}&ended=1`);
    }
    // With a valid pre-sign-in token (the sign-in page's cookie), the forms still do nothing.
    const page = await visitor.get('/console/sign-in');
    const tokenFor = (url: string) => csrfFor(t, visitor, url, page.text);
    const options = await visitor.post('/console/account/passkeys/options', { _csrf: await tokenFor('/console/account/passkeys/options') });
    expect(options.status).toBe(401);
    expect(JSON.parse(options.text)).toEqual({ redirect: '/console/sign-in?next=%2Fconsole%2Faccount%2Fpasskeys%2Fnew&ended=1' });
    for (const url of ['/console/account/passkeys', `/console/account/passkeys/${passkeyId}`]) {
      const res = await visitor.post(url, { _csrf: await tokenFor(url), op: 'remove' });
      expect(res.status, url).toBe(303);
      expect(res.location).toBe('/console/sign-in?next=%2Fconsole&ended=1');
    }
    expect(await passkeyRows(t)).toHaveLength(1);
  });
});

/**
 * The CSRF token of `action` for `browser`: its session's, or before sign-in its
 * `resale_console_csrf` cookie's (the sign-in page `page` set it).
 */
async function csrfFor(t: TestApp, browser: TestBrowser, action: string, page?: string): Promise<string> {
  if (!browser.cookies.has('resale_console')) {
    expect(page, 'a signed-out browser needs the sign-in page first').toBeDefined();
    return csrfTokenFor(browser.cookies.get('resale_console_csrf')!, action);
  }
  return csrfTokenFor((await sessionOf(t, browser)).csrfSecret, action);
}
