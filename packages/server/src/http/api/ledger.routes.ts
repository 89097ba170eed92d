import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonResponse } from '../openapi.js';
import { operatorRoute } from '../middleware/auth.js';
import { ledgerTotals } from '../../domain/ledger/ledger.queries.js';
import { reconcilePeriod } from '../../flows/ledger-reconciliation.js';
import { LedgerQuerySchema, LedgerReportSchema, ledgerReportToApi, ReconciliationQuerySchema, ReconciliationSchema } from '../../domain/ledger/ledger.schemas.js';

/** The operator's view of the ledger, under /admin/v1. */
export function ledgerRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = operatorRoute(deps);
  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/ledger',
      operationId: 'getLedgerReport',
      summary: 'Report a period of the ledger',
      description:
        'Every account’s net movement over the period, per currency, with how many money movements of each kind (sales, refunds decided and paid, late payments, payouts, provider fees): what was charged, what sellers are owed and were paid, what the fees earned. Every currency balances to zero. Operator token.',
      request: { query: LedgerQuerySchema },
      responses: { 200: jsonResponse(envelope(LedgerReportSchema), 'The period’s totals'), ...errorResponses(404) },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const period = { from: Date.parse(q.from), to: Date.parse(q.to), partnerId: q.partnerId };
      if (period.to <= period.from) throw ApiError.field('invalid_value', 'to', 'must be after from', 'query');
      if (q.partnerId) await deps.partners.get(q.partnerId);
      return c.json(ok(ledgerReportToApi(period, await deps.db.read(async (tx) => await ledgerTotals(tx, period)))), 200);
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/ledger/reconciliation',
      operationId: 'getLedgerReconciliation',
      summary: 'Reconcile a period of the ledger with the payment provider’s balance',
      description:
        'Every charge, refund and transfer of the provider’s balance created in the period (Stripe’s balance transactions) compared with the journal that names it, and every journal of the period naming a provider movement compared with the provider’s: what does not match, and why. ' +
        'Compare a period that ended a while ago (an hour or more): events still on their way show as missing. Operator token; 503 when the provider does not answer.',
      request: { query: ReconciliationQuerySchema },
      responses: { 200: jsonResponse(envelope(ReconciliationSchema), 'The reconciliation'), ...errorResponses(503) },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const period = { from: Date.parse(q.from), to: Date.parse(q.to) };
      if (period.to <= period.from) throw ApiError.field('invalid_value', 'to', 'must be after from', 'query');
      return c.json(ok(await reconcilePeriod(deps, period)), 200);
    },
  );
  return app;
}
