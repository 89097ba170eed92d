import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { setup as flowsSetup } from '../../../flows/flows.testing.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { hashSecret } from '../../../lib/crypto.js';
import { payouts } from '../../../domain/payouts/payouts.table.js';
import { users } from '../../../domain/users/users.table.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { decoded, signIn, submit, withOperators } from './console.testing.js';

/**
 * The console's money: a partner's Money tab and the operators' money page, as each role sees
 * them; the CSV exports; Retry of an overdue payout (operators only, audited); bad periods.
 */

const OPERATOR = 'ops@resale.test';
const DAY = 86_400_000;

/** Acme (flows' setup: seller@example.com holds s1–s4) with two resales paid, its people signed in, and another partner with its admin. */
async function setup() {
  const j = await flowsSetup();
  const { t, p } = j;
  await withOperators(t, OPERATOR);
  const q = await t.partner('Other');
  const invite = async (partnerId: string, email: string, role: 'partner_admin' | 'developer' | 'viewer') => {
    await t.db.transact(async (tx) => await t.deps.consoleAccess.invite(tx, { email, partnerId, partnerName: 'x', role, invitedBy: null, consoleUrl: 'http://resale.test/console', lang: 'en' }));
  };
  await invite(p.id, 'admin@acme.example', 'partner_admin');
  await invite(p.id, 'dev@acme.example', 'developer');
  await invite(p.id, 'viewer@acme.example', 'viewer');
  await invite(q.id, 'admin@other.example', 'partner_admin');
  const ids: string[] = [];
  for (const ticket of ['s1', 's2']) {
    const listing = await j.list(ticket);
    expect((await j.pay(await j.reserve(listing.id))).kind).toBe('paid');
    ids.push((await t.db.select().from(payouts).where(eq(payouts.listingId, listing.id)))[0]!.id);
  }
  const payout = async (id: string) => (await t.db.select().from(payouts).where(eq(payouts.id, id)))[0]!;
  const dueAt = (await payout(ids[0]!)).dueAt;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  /** A period of whole days around the payouts' date. */
  const period = `from=${day(dueAt)}&to=${day(dueAt + DAY)}`;
  const browsers = {
    operator: await signIn(t, OPERATOR),
    partner_admin: await signIn(t, 'admin@acme.example'),
    developer: await signIn(t, 'dev@acme.example'),
    viewer: await signIn(t, 'viewer@acme.example'),
    other_admin: await signIn(t, 'admin@other.example'),
  };
  /** Moves the clock to `ms` and signs everyone in again (a console session ends 12 hours after sign-in). */
  const travel = async (ms: number) => {
    t.clock.set(ms);
    for (const [role, browser] of Object.entries(browsers)) await signIn(t, role === 'operator' ? OPERATOR : { partner_admin: 'admin@acme.example', developer: 'dev@acme.example', viewer: 'viewer@acme.example', other_admin: 'admin@other.example' }[role]!, browser);
  };
  const tab = `/console/partners/${p.id}/money`;
  const audit = async () => await t.db.read(async (tx) => await tx.select().from(auditLog).orderBy(asc(auditLog.at), asc(auditLog.id)));
  return { ...j, q, ids, payout, dueAt, day, period, browsers, travel, tab, audit };
}

const PARTNER_ROLES = ['partner_admin', 'developer', 'viewer'] as const;

/** The CSRF token `browser`'s console session gives a form posting to `action` (for a form its page does not show). */
async function csrfFor(t: Awaited<ReturnType<typeof setup>>['t'], browser: TestBrowser, action: string): Promise<string> {
  const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
  return csrfTokenFor(row.csrfSecret, action);
}

describe('console money: the pages', () => {
  it('shows the Money tab to every role of the partner, another partner’s admin 404, a visitor the sign-in', async () => {
    const { q, ids, period, browsers, tab, t } = await setup();
    for (const role of ['operator', ...PARTNER_ROLES] as const) {
      const res = await browsers[role].get(`${tab}?${period}`);
      expect(res.status, role).toBe(200);
      expect(res.text, role).toContain(`href="${tab}" aria-current="page"`);
      expect(res.text, role).toContain('Payouts due in the period');
      for (const id of ids) expect(res.text, role).toContain(id);
      // Not due yet: nothing overdue, no Retry for anyone.
      expect(res.text, role).toContain('No payout is overdue.');
      expect(res.text, role).not.toContain('/retry"');
      // The ledger report of the period (the sales happened now, not in the payouts' period).
      expect(res.text, role).toContain('No money moved in this period.');
      // The reconciliation is the deployment's: not shown on a partner's tab.
      expect(res.text, role).toContain('operators see it on the money page');
      expect(res.text, role).toContain(`${tab}/payouts.csv?`);
      expect(res.text, role).toContain(`${tab}/ledger.csv?`);
      expect(res.text, role).not.toContain('reconciliation.csv');
    }
    // The default period (the last 30 days) holds the sales: the ledger report shows them.
    const now = await browsers.viewer.get(tab);
    expect(now.status).toBe(200);
    expect(now.text).toContain('provider_balance');
    expect(now.text).toMatch(/<code>sale<\/code><\/td><td class="num">2<\/td>/);
    expect(now.text).toContain('Balanced: the accounts sum to zero.');

    expect((await browsers.other_admin.get(tab)).status).toBe(404);
    expect((await browsers.other_admin.get(`/console/partners/${q.id}/money`)).status).toBe(200);
    expect((await browsers.operator.get('/console/partners/ptr_unknown/money')).status).toBe(404);
    const visitor = await new TestBrowser(t.app).get(tab);
    expect(visitor.status).toBe(303);
    expect(visitor.location).toContain('/console/sign-in?next=');
  });

  it('shows operators the deployment’s money page from the console bar, every partner or one, and nobody else', async () => {
    const { q, ids, period, browsers, t } = await setup();
    const home = await browsers.operator.get('/console');
    expect(home.text).toContain('href="/console/money"');
    const page = await browsers.operator.get(`/console/money?${period}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/console/money" aria-current="page"');
    for (const id of ids) expect(page.text).toContain(id);
    expect(page.text).toContain(`<option value="${q.id}">Other</option>`);
    // The sandbox moves no money: nothing to reconcile.
    expect(page.text).toContain('Nothing to reconcile: payments go through the sandbox provider');
    expect(page.text).toContain('/console/money/reconciliation.csv?');
    // Narrowed to the other partner: none of Acme's payouts.
    const other = await browsers.operator.get(`/console/money?${period}&partnerId=${q.id}`);
    expect(other.status).toBe(200);
    for (const id of ids) expect(other.text).not.toContain(id);
    expect(other.text).toContain(`<option value="${q.id}" selected="">Other</option>`);
    expect((await browsers.operator.get(`/console/money?partnerId=ptr_unknown`)).status).toBe(404);
    for (const role of [...PARTNER_ROLES, 'other_admin'] as const) {
      expect((await browsers[role].get('/console/money')).status, role).toBe(403);
      expect((await browsers[role].get(`/console/money/payouts.csv?${period}`)).status, role).toBe(403);
      expect((await browsers[role].get(`/console/money/reconciliation.csv?${period}`)).status, role).toBe(403);
      expect((await browsers[role].get('/console')).text, role).not.toContain('href="/console/money"');
    }
    expect((await new TestBrowser(t.app).get('/console/money')).status).toBe(303);
  });

  it('answers a bad period 400 on the page, with the error by its field', async () => {
    const { browsers, tab } = await setup();
    const cases: [string, string, string][] = [
      ['from=yesterday', 'from', 'Enter a date such as 2026-11-01'],
      ['from=2026-02-30', 'from', 'Enter a date such as 2026-11-01'],
      ['to=2026-13-01T00:00:00Z', 'to', 'Enter a date such as 2026-11-01'],
      ['from=2026-03-02&to=2026-03-01', 'to', 'The end must be after the start.'],
      ['from=2026-03-01&to=2026-03-01', 'to', 'The end must be after the start.'],
    ];
    for (const [query, field, message] of cases) {
      for (const url of [`${tab}?${query}`, `/console/money?${query}`, `${tab}/payouts.csv?${query}`, `/console/money/ledger.csv?${query}`]) {
        const res = await browsers.operator.get(url);
        expect(res.status, url).toBe(400);
        expect(res.headers.get('content-type'), url).toContain('text/html');
        expect(res.text, url).toContain('There is a problem');
        expect(res.text, url).toContain(`href="#f-${field}"`);
        expect(res.text, url).toContain(message);
        // What was typed is kept; no table is shown.
        expect(res.text, url).not.toContain('Payouts due in the period');
      }
    }
    // A date-time with an offset is a period too.
    expect((await browsers.viewer.get(`${tab}?from=2026-03-01T00:00:00%2B01:00&to=2026-03-02T00:00:00Z`)).status).toBe(200);
  });
});

describe('console money: CSV', () => {
  it('exports the payouts and the ledger report of the period as CSV, formulas neutralised, money in major units', async () => {
    const { t, p, ids, period, day, dueAt, browsers, tab } = await setup();
    // A seller the partner names with a formula, and a provider's reason that looks like one.
    const seller = (await t.db.select().from(payouts).where(eq(payouts.id, ids[0]!)))[0]!.sellerPk;
    await t.db.update(users).set({ externalId: '@SUM(A1:A9)' }).where(eq(users.id, seller));
    await t.db.update(payouts).set({ lastError: '=HYPERLINK("http://evil.example","x")' }).where(eq(payouts.id, ids[0]!));
    await t.db.update(payouts).set({ lastError: '-2+3' }).where(eq(payouts.id, ids[1]!));

    for (const role of ['operator', ...PARTNER_ROLES] as const) {
      const res = await browsers[role].get(`${tab}/payouts.csv?${period}`);
      expect(res.status, role).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="payouts-${p.id}-${day(dueAt)}-${day(dueAt + DAY)}.csv"`);
      const lines = res.text.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
      expect(lines[0]).toBe('id,partner_id,seller_id,listing_id,amount,currency,state,overdue,due_at,delivered_at,cancelled_at,transfer_ref,last_error,created_at');
      expect(lines).toHaveLength(3);
      expect(lines[1]).toContain(`${ids[0]},${p.id},'@SUM(A1:A9),`);
      expect(lines[1]).toContain(',38.00,EUR,SCHEDULED,false,');
      expect(lines[1]).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")",`);
      expect(lines[2]).toContain(",'-2+3,");
    }
    // Filtered by state like the page: none delivered.
    const delivered = await browsers.viewer.get(`${tab}/payouts.csv?${period}&state=DELIVERED`);
    expect(delivered.text.replace(/^\uFEFF/, '').trimEnd().split('\r\n')).toHaveLength(1);

    const ledger = await browsers.viewer.get(`${tab}/ledger.csv`);
    expect(ledger.status).toBe(200);
    expect(ledger.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(ledger.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="ledger-${p.id}-\\d{4}-\\d{2}-\\d{2}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    const rows = ledger.text.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(rows[0]).toBe('currency,line,name,amount,count');
    // Credits are negative numbers, not text: never prefixed.
    expect(rows).toContain('EUR,account,seller_payable,-76.00,');
    expect(rows).toContain('EUR,account,provider_balance,88.00,');
    expect(rows).toContain('EUR,journals,sale,,2');
    expect(rows).toContain('EUR,balanced,true,,');

    // Another partner's admin: 404; a visitor: the sign-in.
    expect((await browsers.other_admin.get(`${tab}/payouts.csv?${period}`)).status).toBe(404);
    expect((await browsers.other_admin.get(`${tab}/ledger.csv`)).status).toBe(404);
    expect((await new TestBrowser(t.app).get(`${tab}/payouts.csv`)).status).toBe(303);
  });

  it('exports every partner’s (or one’s) for operators, and the reconciliation: only its header with the sandbox', async () => {
    const { q, ids, period, browsers } = await setup();
    const all = await browsers.operator.get(`/console/money/payouts.csv?${period}`);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-disposition')).toMatch(/^attachment; filename="payouts-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/);
    for (const id of ids) expect(all.text).toContain(id);
    const other = await browsers.operator.get(`/console/money/payouts.csv?${period}&partnerId=${q.id}`);
    expect(other.text.replace(/^\uFEFF/, '').trimEnd().split('\r\n')).toHaveLength(1);
    expect((await browsers.operator.get(`/console/money/payouts.csv?partnerId=ptr_unknown`)).status).toBe(404);
    const recon = await browsers.operator.get(`/console/money/reconciliation.csv?${period}`);
    expect(recon.status).toBe(200);
    expect(recon.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(recon.headers.get('content-disposition')).toMatch(/^attachment; filename="reconciliation-[-0-9]+\.csv"$/);
    expect(recon.text.replace(/^\uFEFF/, '').trimEnd().split('\r\n')).toEqual(['row,reason,provider_ref,currency,provider_type,provider_category,provider_amount,ledger_amount,provider_fee,ledger_fee,journal_ids,count']);
  });
});

describe('console money: Retry', () => {
  it('lets an operator deliver an overdue payout now, audited, from the tab and from the money page', async () => {
    const { p, ids, payout, dueAt, period, browsers, travel, tab, audit } = await setup();
    await travel(dueAt);
    const page = await browsers.operator.get(`${tab}?${period}`);
    expect(page.text).toContain('2 overdue, 0 of them failing.');
    const action = `${tab}/payouts/${ids[0]}/retry`;
    expect(page.text).toContain(`action="${action}"`);
    const res = await submit(browsers.operator, `${tab}?${period}`, action, {});
    expect(res.status).toBe(303);
    expect(decoded(res.location!)).toBe(`${tab}?retried=delivered&payout=${ids[0]}#overdue`);
    expect((await payout(ids[0]!)).state).toBe('DELIVERED');
    const after = await browsers.operator.get(res.location!);
    expect(after.text).toContain(`Payout ${ids[0]} delivered.`);
    expect(after.text).toContain('1 overdue, 0 of them failing.');
    expect(await audit()).toMatchObject([
      {
        action: 'payout.retry',
        partnerId: p.id,
        target: ids[0],
        actorKind: 'console',
        actorEmail: OPERATOR,
        role: 'operator',
        before: { state: 'SCHEDULED', lastError: null },
        after: { state: 'DELIVERED', lastError: null },
      },
    ]);

    // From the operators' page, back to it.
    const fromPage = await submit(browsers.operator, '/console/money', `/console/money/payouts/${ids[1]}/retry`, {});
    expect(fromPage.status).toBe(303);
    expect(decoded(fromPage.location!)).toBe(`/console/money?retried=delivered&payout=${ids[1]}#overdue`);
    expect((await payout(ids[1]!)).state).toBe('DELIVERED');
    expect((await audit()).map((e) => [e.action, e.target])).toEqual([
      ['payout.retry', ids[0]],
      ['payout.retry', ids[1]],
    ]);
    expect((await browsers.operator.get('/console/money')).text).toContain('No payout is overdue.');
  });

  it('refuses a payout that is not overdue with 409, and one of another partner with 404, recording nothing', async () => {
    const { t, q, ids, payout, dueAt, browsers, travel, tab, audit } = await setup();
    // Not due yet: the page shows no Retry; a post is refused.
    expect((await browsers.operator.get(tab)).text).not.toContain('/retry"');
    await travel(dueAt - 1000);
    const action = `${tab}/payouts/${ids[0]}/retry`;
    const token = await csrfFor(t, browsers.operator, action);
    const refused = await browsers.operator.post(action, { _csrf: token });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(`Payout ${ids[0]} is not overdue`);
    expect((await payout(ids[0]!)).state).toBe('SCHEDULED');

    // Delivered already: not overdue either.
    t.clock.set(dueAt);
    expect(await t.deps.payouts.deliverDue()).toBe(2);
    const again = await browsers.operator.post(action, { _csrf: token });
    expect(again.status).toBe(409);

    // Acme's payout through the other partner's tab: 404.
    const otherAction = `/console/partners/${q.id}/money/payouts/${ids[1]}/retry`;
    // The other partner shows no Retry form (nothing overdue there): its token is made as the page would.
    const otherToken = await csrfFor(t, browsers.operator, otherAction);
    expect((await browsers.operator.post(otherAction, { _csrf: otherToken })).status).toBe(404);
    expect(await audit()).toEqual([]);
  });

  it('refuses Retry to every partner role with 403 before anything is done, and shows them no Retry', async () => {
    const { t, ids, payout, dueAt, period, browsers, travel, tab, audit } = await setup();
    await travel(dueAt);
    for (const role of PARTNER_ROLES) {
      const page = await browsers[role].get(`${tab}?${period}`);
      expect(page.text, role).toContain('2 overdue, 0 of them failing.');
      expect(page.text, role).not.toContain('/retry"');
      const action = `${tab}/payouts/${ids[0]}/retry`;
      const res = await browsers[role].post(action, { _csrf: await csrfFor(t, browsers[role], action) });
      expect(res.status, role).toBe(403);
      const fromPage = `/console/money/payouts/${ids[0]}/retry`;
      expect((await browsers[role].post(fromPage, { _csrf: await csrfFor(t, browsers[role], fromPage) })).status, role).toBe(403);
    }
    expect((await payout(ids[0]!)).state).toBe('SCHEDULED');
    expect(await audit()).toEqual([]);
  });
});
