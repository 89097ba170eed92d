import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { RiskFeedbackSchema, RiskRequestSchema, RiskResponseSchema } from '../../domain/risk/risk.schemas.js';

/** POST /v1/risk/evaluate and POST /v1/risk/feedback. */
export function riskRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = { tags: ['Risk'], security: [SECURITY.private], middleware: [partnerKey(deps, ['private'])] };
  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/risk/evaluate',
      operationId: 'evaluateRisk',
      summary: 'Evaluate the risk of a purchase',
      description:
        'Explainable rules (see the signals). Required: transaction.id, amount, currency, and customer.id or customer.email; send as much else as you have. ' +
        'transaction.action: purchase, resale_purchase, listing, payout. Decide by overall_risk (for example accept only low, or refuse only high).',
      request: { body: jsonBody(RiskRequestSchema) },
      responses: { 200: jsonResponse(envelope(RiskResponseSchema), 'The evaluation'), ...errorResponses(413, 415) },
    }),
    (c) => {
      const body = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => await deps.risk.evaluate(tx, partnerId, body));
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/risk/feedback',
      operationId: 'riskFeedback',
      summary: 'Report the outcome of a payment',
      description: 'approved, rejected or chargeback. A chargeback makes later evaluations of the same customer, card or device high; a rejection medium.',
      request: { body: jsonBody(RiskFeedbackSchema) },
      responses: { 200: jsonResponse(envelope(z.object({ recorded: z.literal(true), matchedEvaluation: z.boolean() }).openapi('RiskFeedbackResult')), 'Recorded'), ...errorResponses(413, 415) },
    }),
    (c) => {
      const body = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => await deps.risk.feedback(tx, partnerId, body));
    },
  );
  return app;
}
