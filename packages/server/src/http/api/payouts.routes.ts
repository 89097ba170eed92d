import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonResponse } from '../openapi.js';
import { operatorRoute } from '../middleware/auth.js';
import { listPayoutsWithSellers } from '../../domain/payouts/payouts.queries.js';
import { PayoutListQuerySchema, PayoutListSchema, payoutToApi } from '../../domain/payouts/payouts.schemas.js';

/** The operator's view of sellers' payouts, under /admin/v1. */
export function payoutRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = operatorRoute(deps);
  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/payouts',
      operationId: 'listPayouts',
      summary: 'List sellers’ payouts',
      description:
        'Sellers’ payouts in the order they were scheduled, optionally of one partner and state. With `overdue=true`, the ones past their date and not delivered, each with `lastError`: ' +
        'a seller who has not finished the payout provider’s onboarding, or a transfer the provider refused. The payout job tries them again on each run. Cursor pagination: pass `nextCursor` as `startingAfter`. Operator token.',
      request: { query: PayoutListQuerySchema },
      responses: { 200: jsonResponse(envelope(PayoutListSchema), 'A page of payouts'), ...errorResponses(404) },
    }),
    async (c) => {
      const query = c.req.valid('query');
      if (query.partnerId) await deps.partners.get(query.partnerId);
      const page = await deps.db.read(async (tx) => await listPayoutsWithSellers(tx, query, deps.clock.now()));
      return c.json(ok({ items: page.items.map((p) => payoutToApi(p, p.sellerId)), nextCursor: page.nextCursor }), 200);
    },
  );
  return app;
}
