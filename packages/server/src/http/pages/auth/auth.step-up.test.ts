import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../testing/harness.js';
import { PayoutAccounts } from '../../../domain/payouts/payouts.accounts.js';
import { authService, csrfTokenFor, STEP_UP_TTL_MS } from '../../../domain/auth/auth.service.js';
import { sessions } from '../../../domain/auth/auth.table.js';
import { completeCodeFlow, csrfOf, formAction, inputValue, lastCode, TestBrowser } from './auth.testing.js';

/**
 * Step-up before payout changes (issue: a session begun from a sign-in link could redirect a
 * seller's money): a fresh one-time code to the account's own e-mail or phone, even inside a
 * session; the seller told by e-mail of every change.
 */

async function setup() {
  const t = createTestApp();
  const p = await t.partner('Acme');
  const accounts = new PayoutAccounts(t.deps);
  /** A browser signed in from a one-time token in a URL (Login Trust), as `who`. */
  const fromLink = async (who: { email?: string; id?: string }) => {
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, who));
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, user.id, 'test'));
    const b = new TestBrowser(t.app);
    expect((await b.get(`/sell/${p.id}/payout?oneTimeToken=${token}`)).status).toBe(302);
    return { b, user };
  };
  const account = async (userPk: string) => await accounts.view(t.db, userPk);
  /** A valid CSRF token of the (one) live session for a form action: what an intruder holding the session can make. */
  const csrfOfSession = async (action: string) => csrfTokenFor((await t.db.select().from(sessions)).at(-1)!.csrfSecret, action);
  return { t, p, fromLink, account, csrfOfSession };
}

describe('step-up before payout changes', () => {
  it('a session from a sign-in link must prove a code first; the change is then saved and the seller e-mailed', async () => {
    const { t, p, fromLink, account, csrfOfSession } = await setup();
    const { b, user } = await fromLink({ email: 'ana@example.com' });
    const page = await b.get(`/sell/${p.id}/payout`);
    expect(page.status).toBe(302);
    expect(page.location).toBe(`/auth/step-up?p=${p.id}&returnTo=%2Fsell%2F${p.id}%2Fpayout%3Flang%3Den&lang=en`);
    const stepUpPage = await b.get(page.location!);
    expect(stepUpPage.text).toContain('a•••@example.com');
    // A form posted without the step-up, even with a valid CSRF token of this very session, saves nothing.
    const blind = await b.post(`/sell/${p.id}/payout`, { _csrf: await csrfOfSession(`/sell/${p.id}/payout`), holderName: 'Mallory Stranger', iban: 'DE89 3704 0044 0532 0130 00' });
    expect(blind.status).toBe(303);
    expect(blind.location).toContain('/auth/step-up?');
    expect(await account(user.id)).toBeNull();

    const proven = await completeCodeFlow(t, b, page.location!, 'ana@example.com');
    expect(proven.status).toBe(303);
    expect(proven.location).toBe(`http://resale.test/sell/${p.id}/payout?lang=en`);
    const form = await b.get(`/sell/${p.id}/payout`);
    expect(form.text).toContain('<label for="iban">IBAN</label>');
    const saved = await b.post(`/sell/${p.id}/payout`, { _csrf: csrfOf(form.text, `/sell/${p.id}/payout`)!, holderName: 'Ana García', iban: 'ES91 2100 0418 4502 0005 1332' });
    expect(saved.status).toBe(303);
    expect(await account(user.id)).toEqual({ holderName: 'Ana García', accountHint: '1332' });
    const notice = (await t.deps.messages.list({ to: 'ana@example.com' }))[0]!;
    expect(notice.template).toBe('payoutDetailsChanged');
    expect(notice.text).toContain('ending in 1332 (Ana García)');

    // The proof lapses: ten minutes later the page asks again.
    t.clock.advance(STEP_UP_TTL_MS);
    expect((await b.get(`/sell/${p.id}/payout`)).location).toContain('/auth/step-up?');
  });

  it('refuses a code sent to someone else: an intruder cannot step up the seller’s session with a code of their own', async () => {
    const { t, p, fromLink, account, csrfOfSession } = await setup();
    const { b, user } = await fromLink({ email: 'ana@example.com' });
    // The intruder asks the sign-in page (in another browser) for a code to their own address…
    const other = new TestBrowser(t.app);
    const signIn = await other.get(`/auth/otp?p=${p.id}`);
    const sent = await other.post(formAction(signIn.text)!.replace(/&amp;/g, '&'), { _csrf: inputValue(signIn.text, '_csrf')!, identifier: 'mallory@example.com' });
    const otpId = new URL(sent.location!, 'http://x').searchParams.get('o')!;
    // …and posts it to the step-up form of the seller's session.
    const verify = await b.post(`/auth/step-up/verify?p=${p.id}&o=${otpId}&lang=en`, { _csrf: await csrfOfSession('/auth/step-up/verify'), code: await lastCode(t, 'mallory@example.com') });
    expect(verify.status).toBe(410);
    expect((await b.get(`/sell/${p.id}/payout`)).location).toContain('/auth/step-up?');
    expect(await account(user.id)).toBeNull();
  });

  it('counts a sign-in by code as a step-up, refuses without CSRF, and says so when the account has no e-mail or phone', async () => {
    const { t, p, fromLink } = await setup();
    const b = new TestBrowser(t.app);
    await completeCodeFlow(t, b, `/auth/otp?p=${p.id}`, 'ben@example.com', 'ben@example.com');
    expect((await b.get(`/sell/${p.id}/payout`)).status).toBe(200);

    const { b: noContact } = await fromLink({ id: 'user-without-contact' });
    const asked = await noContact.get(`/sell/${p.id}/payout`);
    const page = await noContact.get(asked.location!);
    expect(page.status).toBe(409);
    expect(page.text).toContain('We cannot confirm it’s you');
    expect((await noContact.post(`/auth/step-up?p=${p.id}`, { nothing: 'x' })).status).toBe(403);
    // Signed out, the step-up page sends the person to sign in first.
    const anon = await new TestBrowser(t.app).get(`/auth/step-up?p=${p.id}&returnTo=/sell/${p.id}/payout`);
    expect(anon.status).toBe(302);
    expect(anon.location).toContain('/auth/otp?');
    // Unknown partner: the incomplete-link page, not a 500.
    expect((await new TestBrowser(t.app).get('/auth/step-up?p=ptr_nope')).status).toBe(404);
  });

  it('PayoutAccounts.change itself refuses a session that has not stepped up (defence in depth)', async () => {
    const { t, p } = await setup();
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'ana@example.com' }));
    const accounts = new PayoutAccounts(t.deps);
    const input = { holderName: 'Ana García', iban: 'ES9121000418450200051332' };
    await expect(t.db.transact(async (tx) => await accounts.change(tx, { partnerId: p.id, userPk: user.id, steppedUpAt: null }, input, 'en'))).rejects.toThrow(/one-time code/);
    await expect(t.db.transact(async (tx) => await accounts.change(tx, { partnerId: p.id, userPk: user.id, steppedUpAt: t.clock.now() - STEP_UP_TTL_MS }, input, 'en'))).rejects.toThrow(/one-time code/);
    expect(await t.db.transact(async (tx) => await accounts.change(tx, { partnerId: p.id, userPk: user.id, steppedUpAt: t.clock.now() }, input, 'en'))).toEqual({ holderName: 'Ana García', accountHint: '1332' });
  });
});
