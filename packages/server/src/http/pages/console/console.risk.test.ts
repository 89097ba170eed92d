import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { riskEvaluations, riskFeedback } from '../../../domain/risk/risk.table.js';
import { setup as checkoutSetup } from '../../../flows/flows.testing.js';
import { hashSecret } from '../../../lib/crypto.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { decoded, signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';

/** A risk request (the API tests' consistent, verified customer), with `over` merged in. */
const request = (txId: string, over: { customer?: Record<string, unknown>; device?: Record<string, unknown>; transaction?: Record<string, unknown> } = {}) => ({
  customer: {
    id: 'user-1',
    firstName: 'Ana',
    lastName: 'García',
    address: { country: 'ES' },
    createdAt: '2025-01-01T00:00:00Z',
    email: { address: 'ana@example.com', verified: true },
    phone: { number: '+34600111222', verified: true },
    ...over.customer,
  },
  device: { userId: 'user-1', sessionId: 'sess-1', ...over.device },
  transaction: {
    id: txId,
    amount: 50,
    currency: 'EUR',
    action: 'resale_purchase',
    cardData: { bin: '424242', last4Digits: '4242', firstName: 'Ana', lastName: 'García', billingAddress: { country: 'ES' } },
    ...over.transaction,
  },
});

/**
 * A partner (Acme) with a paid checkout (flows.testing.ts: its evaluation made by the checkout
 * itself), another partner (Other), an operator, Acme's partner admin, developer and viewer, and
 * Other's admin, each signed in.
 */
async function setup() {
  const base = await checkoutSetup();
  const { t, p } = base;
  await withOperators(t, OPERATOR);
  const q = await t.partner('Other');
  const invite = async (partnerId: string, email: string, role: 'partner_admin' | 'developer' | 'viewer') => {
    await t.db.transact(async (tx) => await t.deps.consoleAccess.invite(tx, { email, partnerId, partnerName: 'x', role, invitedBy: null, consoleUrl: 'http://resale.test/console', lang: 'en' }));
  };
  await invite(p.id, 'admin@acme.example', 'partner_admin');
  await invite(p.id, 'dev@acme.example', 'developer');
  await invite(p.id, 'viewer@acme.example', 'viewer');
  await invite(q.id, 'admin@other.example', 'partner_admin');
  const browsers = {
    ops: await signIn(t, OPERATOR),
    admin: await signIn(t, 'admin@acme.example'),
    dev: await signIn(t, 'dev@acme.example'),
    viewer: await signIn(t, 'viewer@acme.example'),
    otherAdmin: await signIn(t, 'admin@other.example'),
  };
  /** Evaluates `body` through the API with `key` (Acme's private key by default); the evaluation's id, read back. */
  const evaluate = async (body: ReturnType<typeof request>, key = p.keys.private) => {
    const res = await t.request('POST', '/v1/risk/evaluate', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = (await t.db.read(async (tx) => await tx.select().from(riskEvaluations).where(eq(riskEvaluations.transactionId, body.transaction.id)).orderBy(asc(riskEvaluations.createdAt))))
      .at(-1)!;
    return row.id;
  };
  const riskList = `/console/partners/${p.id}/risk`;
  const pageOf = (evaluationId: string, partnerId = p.id) => `/console/partners/${partnerId}/risk/${evaluationId}`;
  /** A paid checkout of ticket `ticketId`: its intention (the checkout evaluated it). */
  const paidCheckout = async (ticketId: string) => {
    const intention = await base.reserve((await base.list(ticketId)).id);
    expect((await base.pay(intention)).kind).toBe('paid');
    return intention;
  };
  return { ...base, q, browsers, evaluate, riskList, pageOf, paidCheckout };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** The evaluations a list page links to, in its order. */
const evaluationIds = (html: string) => [...html.matchAll(/href="\/console\/partners\/[^/]+\/risk\/(rsk_[0-9a-z]+)"/g)].map((m) => m[1]!);

const audit = (t: Setup['t']) => t.db.read(async (tx) => await tx.select().from(auditLog).orderBy(asc(auditLog.at), asc(auditLog.id)));
const feedbackRows = (t: Setup['t']) => t.db.read(async (tx) => await tx.select().from(riskFeedback).orderBy(asc(riskFeedback.createdAt), asc(riskFeedback.id)));

/** The CSRF token `browser`'s console session gives a form posting to `action` (for a form its page does not show). */
async function csrfFor(t: Setup['t'], browser: TestBrowser, action: string): Promise<string> {
  const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
  return csrfTokenFor(row.csrfSecret, action);
}

describe('console risk: the evaluations', () => {
  it('lists the partner’s evaluations to every role, newest first, a page at a time, filtered by level, buyer and transaction', async () => {
    const { t, p, q, browsers, evaluate, riskList: list, paidCheckout } = await setup();
    const checkout = await paidCheckout('s1');
    const ids: string[] = [];
    for (let i = 0; i < 26; i++) {
      // A second apart, each of its own customer, device and card: no velocity between them.
      t.clock.advance(1_000);
      const cardData = { bin: '424242', last4Digits: String(1000 + i), firstName: 'Ana', lastName: 'García', billingAddress: { country: 'ES' } };
      ids.push(await evaluate(request(`tx-${i}`, { customer: { id: `user-${i}` }, device: { userId: `user-${i}` }, transaction: { cardData } })));
    }
    t.clock.advance(1_000);
    const high = await evaluate(request('tx-high', { customer: { id: undefined, email: { address: 'Someone@Mailinator.com', verified: true } } }));
    const elsewhere = await evaluate(request('tx-other'), q.keys.private);
    // The checkout's evaluation (oldest) and these, newest first.
    const newest = [high, ...[...ids].reverse()];

    const first = await browsers.viewer.get(list);
    expect(first.status).toBe(200);
    expect(first.text).toContain(`href="/console/partners/${p.id}/risk" aria-current="page"`);
    expect(first.text).toContain('Risk evaluations');
    expect(evaluationIds(first.text)).toEqual(newest.slice(0, 25));
    expect(first.text).not.toContain(elsewhere);
    const older = decoded(/<a href="([^"]*page=2[^"]*)">Older evaluations<\/a>/.exec(first.text)![1]!);
    const second = await browsers.viewer.get(older);
    expect(evaluationIds(second.text)).toHaveLength(3);
    expect(evaluationIds(second.text).slice(0, 2)).toEqual(newest.slice(25));
    expect(second.text).toContain('Newer evaluations');
    expect(second.text).not.toContain('Older evaluations');
    // The oldest is the checkout's, marked as one.
    expect(second.text).toContain(`<code>${checkout.id}</code><span class="muted"> · checkout</span>`);

    for (const who of [browsers.dev, browsers.admin, browsers.ops]) {
      const byLevel = await who.get(`${list}?level=high`);
      expect(evaluationIds(byLevel.text)).toEqual([high]);
      expect(byLevel.text).toContain('<option value="high" selected="">');
    }
    const checkoutEvaluation = evaluationIds(second.text).at(-1)!;
    expect(evaluationIds((await browsers.dev.get(`${list}?level=medium`)).text)).toEqual([checkoutEvaluation]);
    expect(evaluationIds((await browsers.dev.get(`${list}?transaction=${checkout.id}`)).text)).toEqual([checkoutEvaluation]);
    expect((await browsers.dev.get(`${list}?level=low&transaction=tx-high`)).text).toContain('No evaluation matches these filters.');
    expect(evaluationIds((await browsers.dev.get(`${list}?buyer=user-3`)).text)).toEqual([ids[3]]);
    // An e-mail finds the evaluations made with it, whatever its case.
    expect(evaluationIds((await browsers.dev.get(`${list}?buyer=${encodeURIComponent('SOMEONE@mailinator.com')}`)).text)).toEqual([high]);
    expect(evaluationIds((await browsers.dev.get(`${list}?transaction=tx-5`)).text)).toEqual([ids[5]]);
    expect(evaluationIds((await browsers.dev.get(`${list}?transaction=tx-5&level=high`)).text)).toEqual([]);
    // Unknown filters read as none; Spanish.
    expect(evaluationIds((await browsers.dev.get(`${list}?level=extreme&page=zero`)).text)).toHaveLength(25);
    expect((await browsers.dev.get(`${list}?lang=es`)).text).toContain('Evaluaciones de riesgo');
    // Another partner's admin, and a signed-out visitor.
    expect((await browsers.otherAdmin.get(list)).status).toBe(404);
    const out = await new TestBrowser(t.app).get(list);
    expect(out.status).toBe(303);
    expect(out.location).toMatch(/^\/console\/sign-in\?next=/);
  });

  it('shows an evaluation with its levels and every signal with what it saw, its checkout and its feedback', async () => {
    const { t, p, paidCheckout, browsers, evaluate, pageOf, riskList: list } = await setup();
    const intention = await paidCheckout('s1');
    const checkoutEvaluation = evaluationIds((await browsers.viewer.get(`${list}?transaction=${intention.id}`)).text);
    expect(checkoutEvaluation).toHaveLength(1);

    const page = await browsers.viewer.get(pageOf(checkoutEvaluation[0]!));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h2 id="evaluation">Risk evaluation</h2>`);
    expect(page.text).toContain(`<code>${checkoutEvaluation[0]}</code>`);
    for (const name of ['addressRiskLevel', 'emailDomainLevel', 'emailLevel', 'phoneLevel', 'manualReview', 'cardNameMatch', 'accountAge', 'velocity', 'amountVsHistory', 'previousFeedback']) expect(page.text).toContain(`<code class="muted">${name}</code>`);
    expect(page.text).toContain('No country in the customer’s address.');
    expect(page.text).toContain('A verified e-mail address.');
    expect(page.text).toContain('No date the account was created.');
    expect(page.text).toContain('The same customer, device or card evaluated 0 times in the hour before');
    expect(page.text).toContain(`The evaluation of checkout ${intention.id}, now paid.`);
    expect(page.text).toContain(`href="/console/partners/${p.id}/sales/${intention.id}"`);
    expect(page.text).toContain('No feedback yet.');
    // A viewer reads: no form.
    expect(page.text).toContain('your role reads it');
    expect(page.text).not.toContain('Record feedback</button>');

    // An evaluation asked for through the API: its levels, what raised them, no checkout, the feedback reported.
    const high = await evaluate(request('tx-high', { customer: { email: { address: 'x@mailinator.com', verified: false } } }));
    await t.request('POST', '/v1/risk/feedback', { key: p.keys.private, body: { transactionId: 'tx-high', userId: 'user-1', result: 'rejected' } });
    const api = await browsers.dev.get(pageOf(high));
    expect(api.status).toBe(200);
    expect(api.text).toContain('A disposable e-mail domain.');
    expect(api.text).toContain('An e-mail address not verified.');
    expect(api.text).toMatch(/<strong>high<\/strong><span class="muted"> · sets the level<\/span>/);
    expect(api.text).toContain('Transaction tx-high is no checkout of this partner');
    expect(api.text).not.toContain('/sales/');
    expect(api.text).toMatch(/<td>rejected<\/td>\s*<td>\s*<code>user-1<\/code>/);
    expect((await browsers.viewer.get(`${pageOf(high)}?lang=es`)).text).toContain('Un dominio de e-mail desechable.');

    // An evaluation made before the signals were kept: its level only.
    await t.db.transact(async (tx) => await tx.update(riskEvaluations).set({ signals: null, customerLevel: null, transactionLevel: null }).where(eq(riskEvaluations.id, high)));
    expect((await browsers.dev.get(pageOf(high))).text).toContain('made before the signals were kept');
  });

  it('answers 404 for an unknown evaluation, another partner’s (to anyone, the operator too), and sends a signed-out visitor to sign in', async () => {
    const { t, p, q, browsers, evaluate, pageOf } = await setup();
    const mine = await evaluate(request('tx-mine'));
    const theirs = await evaluate(request('tx-theirs'), q.keys.private);
    expect((await browsers.ops.get(pageOf(theirs))).status).toBe(404);
    expect((await browsers.admin.get(pageOf(theirs))).status).toBe(404);
    expect((await browsers.ops.get(pageOf(theirs, q.id))).status).toBe(200);
    expect((await browsers.admin.get(pageOf('rsk_unknown'))).status).toBe(404);
    expect((await browsers.otherAdmin.get(pageOf(mine))).status).toBe(404);
    expect((await browsers.otherAdmin.get(pageOf(theirs, q.id))).status).toBe(200);
    const out = await new TestBrowser(t.app).get(pageOf(mine));
    expect(out.status).toBe(303);
    expect(out.location).toBe(`/console/sign-in?next=${encodeURIComponent(`/console/partners/${p.id}/risk/${mine}`)}&ended=1`);
  });
});

describe('console risk: feedback', () => {
  it('lets a partner admin and an operator record feedback with the API’s schema and service, audited', async () => {
    const { t, p, browsers, evaluate, pageOf } = await setup();
    const id = await evaluate(request('tx-cb'));
    const page = pageOf(id);
    const action = `${page}/feedback`;
    const auditBefore = (await audit(t)).length;

    const saved = await submit(browsers.admin, page, action, { userId: ' user-1 ', result: 'chargeback' });
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    expect(saved.location).toBe(`${page}?saved=feedback#feedback`);
    const after = await browsers.admin.get(decoded(saved.location!));
    expect(after.text).toContain('Feedback recorded.');
    expect(after.text).toMatch(/<strong>chargeback<\/strong><\/td>\s*<td>\s*<code>user-1<\/code>/);
    expect(await feedbackRows(t)).toMatchObject([{ partnerId: p.id, transactionId: 'tx-cb', userId: 'user-1', result: 'chargeback' }]);
    const entries = (await audit(t)).slice(auditBefore);
    expect(entries).toMatchObject([
      { action: 'risk.feedback', partnerId: p.id, target: id, actorKind: 'console', actorEmail: 'admin@acme.example', role: 'partner_admin', after: { transactionId: 'tx-cb', userId: 'user-1', result: 'chargeback' } },
    ]);
    // The API's service: the chargeback marks the card, so the next evaluation of it is high.
    const next = await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body: request('tx-next', { customer: { id: 'user-2' }, device: { userId: 'user-2' } }) });
    expect(next.body.data.overall_risk).toBe('high');

    const byOperator = await submit(browsers.ops, page, action, { userId: 'ana@example.com', result: 'approved' });
    expect(byOperator.status).toBe(303);
    expect((await audit(t)).at(-1)).toMatchObject({ action: 'risk.feedback', target: id, actorEmail: OPERATOR, role: 'operator', after: { userId: 'ana@example.com', result: 'approved' } });
    expect((await feedbackRows(t)).map((f) => f.result)).toEqual(['chargeback', 'approved']);
  });

  it('answers a refused form with every error at once, each linked to its field, the typed values kept, and writes nothing', async () => {
    const { t, browsers, evaluate, pageOf } = await setup();
    const id = await evaluate(request('tx-bad'));
    const page = pageOf(id);
    const action = `${page}/feedback`;
    const auditBefore = (await audit(t)).length;

    const both = await submit(browsers.admin, page, action, { userId: '   ', result: 'maybe' });
    expect(both.status).toBe(400);
    expect(both.text).toContain('There is a problem');
    expect(both.text).toContain('href="#f-userId"');
    expect(both.text).toContain('Buyer on the partner’s platform (id or e-mail): Enter the buyer’s id or e-mail.');
    expect(both.text).toContain('href="#f-result"');
    expect(both.text).toContain('Outcome: Choose the outcome: approved, rejected, chargeback.');
    expect(both.text).toMatch(/<input type="radio" id="f-result" name="result" value="approved" aria-invalid="true"/);

    const long = 'u'.repeat(255);
    const tooLong = await submit(browsers.admin, page, action, { userId: long, result: 'rejected' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('At most 254 characters.');
    expect(tooLong.text).toContain(`value="${long}"`);
    expect(tooLong.text).toMatch(/<input type="radio" name="result" value="rejected" checked=""/);
    expect(tooLong.text).not.toContain('Choose the outcome');

    // In Spanish.
    expect((await submit(browsers.admin, `${page}?lang=es`, action, { userId: '', result: '' })).text).toContain('Elige el resultado');
    expect(await feedbackRows(t)).toEqual([]);
    expect(await audit(t)).toHaveLength(auditBefore);
  });

  it('refuses a viewer’s and a developer’s feedback with 403 before reading the form, and another partner’s or an unknown evaluation with 404; nothing written', async () => {
    const { t, q, browsers, evaluate, pageOf } = await setup();
    const id = await evaluate(request('tx-role'));
    const theirs = await evaluate(request('tx-theirs'), q.keys.private);
    const auditBefore = (await audit(t)).length;
    const good = { userId: 'user-1', result: 'chargeback' };
    for (const who of [browsers.viewer, browsers.dev]) {
      const action = `${pageOf(id)}/feedback`;
      const res = await who.post(action, { _csrf: await csrfFor(t, who, action), ...good });
      expect(res.status).toBe(403);
      expect(res.text).toContain('Your role cannot do this here');
    }
    for (const [who, evaluationId] of [
      [browsers.admin, theirs],
      [browsers.ops, theirs],
      [browsers.admin, 'rsk_unknown'],
      [browsers.otherAdmin, id],
    ] as const) {
      const action = `${pageOf(evaluationId)}/feedback`;
      expect((await who.post(action, { _csrf: await csrfFor(t, who, action), ...good })).status, `${evaluationId}`).toBe(404);
    }
    expect(await feedbackRows(t)).toEqual([]);
    expect(await audit(t)).toHaveLength(auditBefore);
  });
});
