/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { ConsoleSession } from '../../../domain/console/console.service.js';
import { retryPayout } from '../../../flows/payout-retry.js';
import { ApiError } from '../../../lib/errors.js';
import { safeRedirect } from '../auth/auth.session.js';
import { renderPage } from '../layout.js';
import { barOf, consoleRefusal, otherLangHref, requireConsole, type ConsoleDeps } from './console.auth.js';
import { csvFileName, ledgerCsv, loadMoney, moneyScope, payoutFilterOf, payoutsCsv, periodOf, reconciliationCsv, retryNoticeOf, type MoneyModel, type MoneyQuery } from './console.money.load.js';
import { mm } from './console.money.messages.js';
import { MoneyPageView, MoneyView, type MoneyNotice } from './console.money.view.js';
import { partnerAction, partnerReader, renderPartnerSection } from './console.partner-frame.js';
import { consoleAuditContext } from './console.partners.js';
import { sectionHref } from './console.sections.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';
import { CONSOLE_CSP } from './console.view.js';

/** The operators' money page (every partner's, or one's). */
export const MONEY_PATH = '/console/money';

/**
 * Money in the console: a partner's Money tab (`/console/partners/:partnerId/money`, everyone
 * who reads the partner) and the operators' money page (`/console/money`, every partner or one;
 * others 403). Both show the overdue payouts, the payouts due in a period by state, the ledger
 * report of the period and (operators' page) its reconciliation with the payment provider, and
 * export each as CSV (`payouts.csv`, `ledger.csv`, `reconciliation.csv` under the page's path,
 * with the page's query). Operators retry an overdue payout now (`retryPayout`: the payout
 * job's own path, audited `payout.retry`); a partner's people who post it get 403.
 */
export function consoleMoneyRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();
  const tabBase = (partnerId: string) => `${sectionHref(partnerId, { path: '' })}/money`;

  const queryOf = (c: ConsoleContext): MoneyQuery => ({ from: c.req.query('from'), to: c.req.query('to'), state: c.req.query('state'), startingAfter: c.req.query('startingAfter'), reconcile: c.req.query('reconcile') });
  const noticeOf = (c: ConsoleContext) => retryNoticeOf(c.get('consoleLang'), { retried: c.req.query('retried'), payout: c.req.query('payout'), code: c.req.query('code') });
  /** The CSRF token of each Retry form the page shows. */
  const retryTokens = (c: ConsoleContext, model: MoneyModel, base: string): Record<string, string> =>
    model.mayRetry && model.report ? Object.fromEntries(model.report.overdue.items.filter((p) => p.retryable).map((p) => [p.id, consoleCsrfToken(c, deps, `${base}/payouts/${encodeURIComponent(p.id)}/retry`)])) : {};
  const labels = (c: ConsoleContext) => ({ from: mm(c.get('consoleLang'), 'from'), to: mm(c.get('consoleLang'), 'to') });

  /** A partner's Money tab; 400 with the errors for a refused period. */
  const tabPage = async (c: ConsoleContext, session: ConsoleSession, partnerId: string, notice?: MoneyNotice, status = 200) => {
    const lang = c.get('consoleLang');
    const loaded = await loadMoney(deps, session, { partnerId, operatorPage: false }, queryOf(c), lang);
    if (!loaded) return consoleRefusal(c, 404);
    const base = tabBase(partnerId);
    const refused = Object.keys(loaded.errors).length > 0;
    const body = <MoneyView lang={lang} model={loaded.model} base={base} errors={loaded.errors} retry={retryTokens(c, loaded.model, base)} notice={notice ?? noticeOf(c)} />;
    return renderPartnerSection(c, deps, session, partnerId, 'money', body, { status: refused ? 400 : status, errors: loaded.errors, labels: labels(c) });
  };

  /** The operators' money page; 400 with the errors for a refused period, 404 for an unknown partner. */
  const operatorsPage = async (c: ConsoleContext, session: ConsoleSession, notice?: MoneyNotice, status = 200) => {
    const lang = c.get('consoleLang');
    const partnerId = (c.req.query('partnerId') ?? '').trim().slice(0, 100) || null;
    const loaded = await loadMoney(deps, session, { partnerId, operatorPage: true }, queryOf(c), lang);
    if (!loaded) return consoleRefusal(c, 404);
    const refused = Object.keys(loaded.errors).length > 0;
    return renderPage(
      c,
      <MoneyPageView lang={lang} bar={barOf(c, deps, session)} model={loaded.model} base={MONEY_PATH} errors={loaded.errors} retry={retryTokens(c, loaded.model, MONEY_PATH)} notice={notice ?? noticeOf(c)} otherLangHref={otherLangHref(c)} />,
      { status: refused ? 400 : status, csp: CONSOLE_CSP },
    );
  };

  /** The operator signed in, or the answer (sign-in, 403 for anyone else). */
  const operator = async (c: ConsoleContext): Promise<ConsoleSession | Response> => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    return session.user.operator ? session : await consoleRefusal(c, 403);
  };

  /** A CSV download. */
  const csv = (c: ConsoleContext, name: string, text: string) =>
    c.body(text, 200, { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' });

  /** A CSV of `what` for the partner (or every partner: null), or the page's 400 for a refused period. */
  const exportCsv = async (c: ConsoleContext, what: 'payouts' | 'ledger' | 'reconciliation', partnerId: string | null, page: () => Promise<Response>) => {
    const period = periodOf({ from: c.req.query('from'), to: c.req.query('to') }, deps.clock.now(), c.get('consoleLang'));
    if (!period.ok) return page();
    const name = csvFileName(what, partnerId, period.period);
    if (what === 'payouts') return csv(c, name, await payoutsCsv(deps, partnerId, period.period, payoutFilterOf(c.req.query('state'))));
    if (what === 'ledger') return csv(c, name, await ledgerCsv(deps, partnerId, period.period));
    try {
      return csv(c, name, await reconciliationCsv(deps, period.period));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 503) throw err;
      return c.text(mm(c.get('consoleLang'), 'reconUnavailable'), 503, { 'Retry-After': '60', 'Cache-Control': 'no-store' });
    }
  };

  /** Retries an overdue payout (of the partner, or any: null), then back to the page with its outcome; 409 with the page when it is not overdue. */
  const retry = async (c: ConsoleContext, session: ConsoleSession, partnerId: string | null, page: (notice: MoneyNotice) => Promise<Response>) => {
    const payoutId = (c.req.param('payoutId') ?? '').slice(0, 100);
    const base = partnerId === null ? MONEY_PATH : tabBase(partnerId);
    let attempt;
    try {
      attempt = await retryPayout(deps, consoleAuditContext(c, session, partnerId), payoutId, partnerId ?? undefined);
    } catch (err) {
      // An unknown payout, or another partner's: the same answer.
      if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
      throw err;
    }
    if (attempt.outcome === 'not_overdue') return page({ kind: 'error', text: mm(c.get('consoleLang'), 'retried_not_overdue', { id: payoutId }) });
    const params = new URLSearchParams({ retried: attempt.outcome, payout: payoutId });
    if (attempt.outcome === 'refused') params.set('code', attempt.code);
    return safeRedirect(c, `${base}?${params.toString()}#overdue`, 303);
  };

  // A partner's Money tab.
  app.get('/console/partners/:partnerId/money', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    return tabPage(c, got.session, got.partnerId);
  });

  for (const what of ['payouts', 'ledger'] as const) {
    app.get(`/console/partners/:partnerId/money/${what}.csv`, async (c) => {
      const got = await partnerReader(c);
      if (got instanceof Response) return got;
      if (!(await moneyScope(deps, got.session, got.partnerId))) return consoleRefusal(c, 404);
      return exportCsv(c, what, got.partnerId, () => tabPage(c, got.session, got.partnerId));
    });
  }

  app.post('/console/partners/:partnerId/money/payouts/:payoutId/retry', async (c) => {
    const got = await partnerAction(c, 'read');
    if (got instanceof Response) return got;
    // Money moves: operators only, whatever the role at the partner.
    if (!got.session.user.operator) return consoleRefusal(c, 403);
    return retry(c, got.session, got.partnerId, (notice) => tabPage(c, got.session, got.partnerId, notice, 409));
  });

  // The operators' money page.
  app.get(MONEY_PATH, async (c) => {
    const session = await operator(c);
    if (session instanceof Response) return session;
    return operatorsPage(c, session);
  });

  for (const what of ['payouts', 'ledger', 'reconciliation'] as const) {
    app.get(`${MONEY_PATH}/${what}.csv`, async (c) => {
      const session = await operator(c);
      if (session instanceof Response) return session;
      const partnerId = what === 'reconciliation' ? null : (c.req.query('partnerId') ?? '').trim().slice(0, 100) || null;
      if (!(await moneyScope(deps, session, partnerId))) return consoleRefusal(c, 404);
      return exportCsv(c, what, partnerId, () => operatorsPage(c, session));
    });
  }

  app.post(`${MONEY_PATH}/payouts/:payoutId/retry`, async (c) => {
    const session = await operator(c);
    if (session instanceof Response) return session;
    return retry(c, session, null, (notice) => operatorsPage(c, session, notice, 409));
  });

  return app;
}
