/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import type { ConsoleSession } from '../../../domain/console/console.service.js';
import { refundSale } from '../../../flows/console-sales.js';
import { ApiError } from '../../../lib/errors.js';
import { safeRedirect } from '../auth/auth.session.js';
import { consoleRefusal, requireStepUp, type ConsoleDeps } from './console.auth.js';
import { partnerAction, partnerReader, renderPartnerSection } from './console.partner-frame.js';
import { consoleAuditContext } from './console.partners.js';
import { loadOrderPage, loadSalesPage, salesQueryOf } from './console.sales.load.js';
import { slm } from './console.sales.messages.js';
import { OrderView, orderHref, SalesView } from './console.sales.view.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';

/** The CSRF token of a form posting to `action` (a path whose segments are URL-encoded), as the CSRF check will see its path. */
function csrfFor(c: ConsoleContext, deps: ConsoleDeps, action: string): string {
  return consoleCsrfToken(c, deps, getPath(new Request(new URL(action, 'http://console.invalid'))));
}

/**
 * The console's sales section of a partner: its resales, holds and listings (search, pages),
 * and an order's page with its timeline. Everyone who reads the partner reads it; operators
 * refund a paid resale there, after a fresh code, through flows/console-sales.ts (the payments
 * module's refund, the payouts stopped, the ledger's `refund_due`, audited `sale.refund`). An
 * order that is not the partner's answers 404; a partner's people posting a refund, 403.
 */
export function consoleSalesRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();

  app.get('/console/partners/:partnerId/sales', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const query = salesQueryOf({ kind: c.req.query('kind'), q: c.req.query('q'), page: c.req.query('page') });
    const model = await loadSalesPage(deps, partnerId, query);
    return renderPartnerSection(c, deps, session, partnerId, 'sales', <SalesView lang={c.get('consoleLang')} partnerId={partnerId} model={model} />);
  });

  /** An order's page, with a notice or a refused refund's error; 404 when the order is not the partner's. */
  const orderPage = async (c: ConsoleContext, session: ConsoleSession, partnerId: string, intentionId: string, state: { notice?: string | undefined; refusal?: string | undefined; status?: number } = {}) => {
    const model = await loadOrderPage(deps, session, partnerId, intentionId);
    if (!model) return consoleRefusal(c, 404);
    const action = `${orderHref(partnerId, model.order.id)}/refund`;
    const body = <OrderView lang={c.get('consoleLang')} partnerId={partnerId} model={model} refund={{ action, csrf: csrfFor(c, deps, action) }} refusal={state.refusal} />;
    return renderPartnerSection(c, deps, session, partnerId, 'sales', body, { status: state.status ?? 200, notice: state.notice });
  };

  app.get('/console/partners/:partnerId/sales/:intentionId', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const notice = c.req.query('saved') === 'refund' ? slm(c.get('consoleLang'), 'refundAsked') : undefined;
    return orderPage(c, got.session, got.partnerId, c.req.param('intentionId'), { notice });
  });

  app.post('/console/partners/:partnerId/sales/:intentionId/refund', async (c) => {
    const got = await partnerAction(c, 'read');
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    // Money goes back: operators only, whatever the role at the partner.
    if (!session.user.operator) return consoleRefusal(c, 403);
    const intentionId = c.req.param('intentionId').slice(0, 100);
    const stepUp = requireStepUp(c, deps, session, `${orderHref(partnerId, intentionId)}#refund`);
    if (stepUp) return stepUp;
    try {
      const outcome = await refundSale(deps, consoleAuditContext(c, session, partnerId), partnerId, intentionId);
      if (!outcome.ok) return orderPage(c, session, partnerId, intentionId, { refusal: slm(c.get('consoleLang'), `refusal_${outcome.reason}`), status: 409 });
    } catch (err) {
      // An unknown order, or another partner's: the same answer.
      if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
      throw err;
    }
    return safeRedirect(c, `${orderHref(partnerId, intentionId)}?saved=refund#refund`, 303);
  });

  return app;
}
