import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../testing/harness.js';
import { eventBody, withEvent } from '../../../testing/factories.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { can, type Permission } from '../../../domain/console/console.service.js';
import { hashSecret } from '../../../lib/crypto.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { PARTNER_SECTIONS } from './console.sections.js';
import { signIn, withOperators } from './console.testing.js';

/**
 * Every console page and action, walked as each role and as a signed-out visitor: what each
 * may see and do. The routes are read from the app itself, so a page or action added without
 * a line in ACTIONS (its permission) fails here.
 */

/** Who may take an action: a permission at the partner, or operators only (`operator`: refunds). */
type Need = Permission | 'operator';

/** The permission each POST of a partner's pages needs (the path after `/console/partners/:partnerId`). */
const ACTIONS: Record<string, Need> = {
  '/settings': 'administer',
  '/origins': 'develop',
  '/keys/rotate': 'develop',
  '/sandbox/reset': 'develop',
  '/team': 'administer',
  '/team/:membershipId': 'administer',
  '/webhooks/endpoint': 'develop',
  '/webhooks/test': 'develop',
  '/webhooks/:messageId/resend': 'develop',
  '/events/:eventId/resale': 'administer',
  '/events/:eventId/ticket-shield': 'administer',
  '/events/:eventId/categories': 'administer',
  '/events/:eventId/rules': 'administer',
  '/events/:eventId/shows/:showId/waiting-list/settings': 'administer',
  '/events/:eventId/shows/:showId/doors': 'administer',
  '/events/:eventId/shows/:showId/doors/:doorId/revoke': 'administer',
  '/feeds/poll': 'administer',
  '/load': 'administer',
  '/load/:loadId/apply': 'administer',
  '/risk/:evaluationId/feedback': 'administer',
  '/sales/:intentionId/refund': 'operator',
  '/money/payouts/:payoutId/retry': 'operator',
};

const PREFIX = '/console/partners/:partnerId';

/**
 * The POSTs of a person's own account (under `/console/account`): every signed-in person may
 * take them, on their own passkeys only (another person's is a 404: console.passkeys.test.ts).
 */
const ACCOUNT_ACTIONS: Record<string, 'signed_in'> = {
  '/console/account/passkeys': 'signed_in',
  '/console/account/passkeys/options': 'signed_in',
  '/console/account/passkeys/:passkeyId': 'signed_in',
};
const ACCOUNT_PREFIX = '/console/account';

type Role = 'operator' | 'partner_admin' | 'developer' | 'viewer' | 'other_admin';
const ROLES: Role[] = ['operator', 'partner_admin', 'developer', 'viewer', 'other_admin'];

/** Whether `role` (at the partner the walk is about) may `what`. */
function allowed(role: Role, what: Need): boolean {
  if (role === 'operator') return true;
  if (role === 'other_admin' || what === 'operator') return false;
  return can({ user: { operator: false } as never, memberships: [{ partnerId: 'P', role } as never] }, what, 'P');
}

/** The permission a GET page of a partner needs: its section's. */
function pagePermission(rest: string): Permission {
  const section = [...PARTNER_SECTIONS].sort((a, b) => b.path.length - a.path.length).find((s) => s.path === '' ? rest === '' : rest === s.path || rest.startsWith(`${s.path}/`));
  if (!section) throw new Error(`${PREFIX}${rest} belongs to no section of PARTNER_SECTIONS`);
  return section.permission;
}

async function setup() {
  const t = createTestApp();
  await withOperators(t, 'ops@resale.test');
  const p = await t.partner('Acme');
  const q = await t.partner('Other');
  await withEvent(t, p, eventBody('tour'));
  const ops = await signIn(t, 'ops@resale.test');
  const invite = async (partnerId: string, email: string, role: string) => {
    await t.db.transact(async (tx) => await t.deps.consoleAccess.invite(tx, { email, partnerId, partnerName: 'x', role: role as never, invitedBy: null, consoleUrl: 'http://resale.test/console', lang: 'en' }));
  };
  await invite(p.id, 'admin@acme.example', 'partner_admin');
  await invite(p.id, 'dev@acme.example', 'developer');
  await invite(p.id, 'viewer@acme.example', 'viewer');
  await invite(q.id, 'admin@other.example', 'partner_admin');
  const browsers: Record<Role, TestBrowser> = {
    operator: ops,
    partner_admin: await signIn(t, 'admin@acme.example'),
    developer: await signIn(t, 'dev@acme.example'),
    viewer: await signIn(t, 'viewer@acme.example'),
    other_admin: await signIn(t, 'admin@other.example'),
  };
  const csrfFor = async (browser: TestBrowser, action: string) => {
    const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
    return csrfTokenFor(row.csrfSecret, action);
  };
  const routes = (method: 'GET' | 'POST') => [...new Set(t.app.routes.filter((r) => r.method === method && r.path.startsWith(PREFIX)).map((r) => r.path.slice(PREFIX.length)))];
  // The event and show that exist (so a show's pages render, and its forms are read), any other id unknown.
  const concrete = (rest: string) => `/console/partners/${p.id}${rest.replace(/:eventId/g, 'tour').replace(/:showId/g, 'show-1').replace(/:[A-Za-z]+/g, 'unknown_id')}`;
  return { t, p, q, browsers, csrfFor, routes, concrete };
}

describe('console roles', () => {
  it('declares the permission of every action of a partner’s pages', async () => {
    const { routes } = await setup();
    expect(routes('POST').sort()).toEqual(Object.keys(ACTIONS).sort());
  });

  it('shows each role the pages of its partner its role may read, never another partner’s, and signs out visitors in', async () => {
    const { t, browsers, routes, concrete, q } = await setup();
    const pages = routes('GET');
    expect(pages.length).toBeGreaterThanOrEqual(PARTNER_SECTIONS.length);
    for (const rest of pages) {
      const url = concrete(rest);
      const need = pagePermission(rest);
      for (const role of ROLES) {
        const res = await browsers[role].get(url);
        const label = `${role} GET ${url}`;
        expect(res.status, label).not.toBe(500);
        if (role === 'other_admin') expect(res.status, label).toBe(404);
        else if (!allowed(role, need)) expect(res.status, label).toBe(403);
        else expect([200, 404], label).toContain(res.status);
      }
      expect((await new TestBrowser(t.app).get(url)).status, `signed out GET ${url}`).toBe(303);
    }
    // The other partner's admin reads their own partner.
    expect((await browsers.other_admin.get(`/console/partners/${q.id}`)).status).toBe(200);
    // The operators' pages are the operators'.
    for (const role of ROLES.filter((r) => r !== 'operator')) expect((await browsers[role].get('/console/partners')).status, role).toBe(403);
  });

  it('refuses every action to a role that may not take it, before anything is written, and lets the others through', async () => {
    const { t, browsers, csrfFor, concrete } = await setup();
    for (const [rest, need] of Object.entries(ACTIONS)) {
      const url = concrete(rest);
      for (const role of ROLES) {
        const before = (await t.db.read(async (tx) => await tx.select().from(auditLog))).length;
        const res = await browsers[role].post(url, { _csrf: await csrfFor(browsers[role], url.split('?')[0]!) });
        const label = `${role} POST ${url}`;
        expect(res.status, label).not.toBe(500);
        if (role === 'other_admin') expect(res.status, label).toBe(404);
        else if (!allowed(role, need)) {
          expect(res.status, label).toBe(403);
          expect(res.text, label).toContain('Your role cannot do this here');
        } else expect(res.status, label).not.toBe(403);
        if (role === 'other_admin' || !allowed(role, need)) expect((await t.db.read(async (tx) => await tx.select().from(auditLog))).length, label).toBe(before);
      }
    }
  });

  it('declares every action of a person’s own account, lets every signed-in role take it, and refuses forged forms', async () => {
    const { t, browsers, csrfFor } = await setup();
    const posts = [...new Set(t.app.routes.filter((r) => r.method === 'POST' && r.path.startsWith(ACCOUNT_PREFIX)).map((r) => r.path))];
    expect(posts.sort()).toEqual(Object.keys(ACCOUNT_ACTIONS).sort());
    for (const path of posts) {
      const url = path.replace(/:[A-Za-z]+/g, 'unknown_id');
      for (const role of ROLES) {
        const res = await browsers[role].post(url, { _csrf: await csrfFor(browsers[role], url) });
        expect(res.status, `${role} POST ${url}`).not.toBe(500);
        expect(res.status, `${role} POST ${url}`).not.toBe(403);
      }
      expect((await new TestBrowser(t.app).post(url, { _csrf: 'forged' })).status, `visitor ${url}`).toBe(403);
      expect((await browsers.viewer.post(url, {})).status, `no token ${url}`).toBe(403);
    }
    expect(await t.db.read(async (tx) => await tx.select().from(auditLog))).toEqual([]);
  });

  it('refuses a signed-out visitor’s and a forged form (no or another action’s CSRF token) with 403, nothing written', async () => {
    const { t, browsers, csrfFor, concrete } = await setup();
    for (const rest of Object.keys(ACTIONS)) {
      const url = concrete(rest);
      const visitor = new TestBrowser(t.app);
      expect((await visitor.post(url, { _csrf: 'forged' })).status, `visitor ${url}`).toBe(403);
      expect((await browsers.operator.post(url, {})).status, `no token ${url}`).toBe(403);
      expect((await browsers.operator.post(url, { _csrf: await csrfFor(browsers.operator, '/console/sign-out') })).status, `another form's token ${url}`).toBe(403);
    }
    expect(await t.db.read(async (tx) => await tx.select().from(auditLog))).toEqual([]);
  });
});
