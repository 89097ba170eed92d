import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonResponse, SECURITY } from '../../lib/openapi.js';
import { operatorToken } from '../../middleware/auth.js';
import { ledgerTotals } from './ledger.queries.js';
import { LedgerQuerySchema, LedgerReportSchema, ledgerReportToApi } from './ledger.schemas.js';

/** The operator's view of the ledger, under /admin/v1. */
export function ledgerRoutes(deps: AppDeps) {
  const app = createRouter();
  app.openapi(
    createRoute({
      tags: ['Operator'],
      security: [SECURITY.operator],
      middleware: operatorToken(deps),
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
  return app;
}
