import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, documentBodyAs, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { IdempotencyKeyHeaders, idempotency, respondInTransaction } from '../middleware/idempotency.js';
import { LeadBulkDocumentedSchema, LeadBulkResultSchema, LeadBulkSchema, LeadInputSchema, LeadListSchema, LeadSchema, LeadUpsertResultSchema, MAX_BULK_LEADS } from '../../domain/marketdata/leads.schemas.js';
import { LEAD_TYPES } from '../../domain/marketdata/leads.model.js';

/** Page size of GET /v1/marketdata/users. */
export const LEADS_PAGE_DEFAULT = 50;
export const LEADS_PAGE_MAX = 200;

/** POST /v1/marketdata/users, POST …/users/bulk, GET …/users and GET …/users/:leadId (mounted by marketDataRoutes). */
export function leadRoutes(deps: AppDeps) {
  const app = createRouter();
  const svc = deps.leads;
  const key = partnerKey(deps, ['private']);
  const common = { tags: ['Market data'], security: [SECURITY.private] };

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/marketdata/users',
      operationId: 'upsertLead',
      summary: 'Create or update a lead',
      description:
        'One lead, its kind selected by `type` (TICKET_HOLDER, ABANDONED_CART, VIRTUAL_QUEUE, WISHLIST). A lead with the same buyer identity, ' +
        'externalReferenceEventId and showId is updated, never duplicated (also under concurrent calls). The buyer identity is buyer.id when sent, ' +
        'else buyer.email (lower-cased), else buyer.phone. An update replaces the lead’s fields with those sent; the buyer’s contact points are merged. ' +
        'A WISHLIST lead with an e-mail is e-mailed once when resale stock first appears for its show (and ticket option). Accepts Idempotency-Key.',
      middleware: [key, idempotency(deps)],
      request: { headers: IdempotencyKeyHeaders, body: jsonBody(LeadInputSchema) },
      responses: { 200: jsonResponse(envelope(LeadUpsertResultSchema), 'The lead, and whether it was created'), ...errorResponses(404, 409, 413, 415, 422) },
    }),
    (c) => {
      const partnerId = c.get('auth').partner.id;
      const body = c.req.valid('json');
      return respondInTransaction(c, deps, 200, async (tx) => await svc.upsert(tx, partnerId, body));
    },
  );

  app.openapi(
    documentBodyAs(
      app,
      createRoute({
        ...common,
        method: 'post',
        path: '/v1/marketdata/users/bulk',
        operationId: 'upsertLeadsBulk',
        summary: 'Create or update leads in bulk',
        description:
          `\`{items: [...]}\` with 1 to ${MAX_BULK_LEADS} leads (more: 400 out_of_range on items). Each item is validated and applied on its own, as POST /v1/marketdata/users would: ` +
          'a rejected item writes nothing and the others go on. The answer lists each item’s outcome in request order. Accepts Idempotency-Key.',
        middleware: [key, idempotency(deps)],
        request: { headers: IdempotencyKeyHeaders, body: jsonBody(LeadBulkSchema) },
        responses: { 200: jsonResponse(envelope(LeadBulkResultSchema), 'Each item’s outcome'), ...errorResponses(409, 413, 415, 422) },
      }),
      LeadBulkDocumentedSchema,
    ),
    (c) => {
      const partnerId = c.get('auth').partner.id;
      const { items } = c.req.valid('json');
      return respondInTransaction(c, deps, 200, async (tx) => {
        const results = await svc.bulk(tx, partnerId, items);
        const count = (s: string) => results.filter((r) => r.status === s).length;
        return { created: count('created'), updated: count('updated'), rejected: count('rejected'), results };
      });
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketdata/users',
      operationId: 'listLeads',
      summary: 'List leads',
      description: 'The leads sent, oldest first, optionally of one event (and show) and type. Cursor pagination: pass `nextCursor` as `startingAfter`.',
      middleware: [key],
      request: {
        query: z.object({
          externalReferenceEventId: z.string().min(1).optional().openapi({ param: { name: 'externalReferenceEventId', in: 'query' }, description: 'Only leads of this event.', example: 'tour-2026' }),
          showId: z.string().min(1).optional().openapi({ param: { name: 'showId', in: 'query' }, description: 'Only leads of this show (needs externalReferenceEventId).', example: 'show-1' }),
          type: z.enum(LEAD_TYPES).optional().openapi({ param: { name: 'type', in: 'query' }, description: 'Only leads of this kind.', example: 'WISHLIST' }),
          limit: z.coerce
            .number()
            .int()
            .min(1)
            .max(LEADS_PAGE_MAX)
            .default(LEADS_PAGE_DEFAULT)
            .openapi({ param: { name: 'limit', in: 'query' }, description: `Page size, 1 to ${LEADS_PAGE_MAX}.`, example: LEADS_PAGE_DEFAULT }),
          startingAfter: z.string().min(1).optional().openapi({ param: { name: 'startingAfter', in: 'query' }, description: 'The previous page’s nextCursor.', example: 'ld_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
        }),
      },
      responses: { 200: jsonResponse(envelope(LeadListSchema), 'A page of leads'), ...errorResponses(404) },
    }),
    async (c) => c.json(ok(await deps.db.read(async (tx) => await svc.list(tx, c.get('auth').partner.id, c.req.valid('query')))), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketdata/users/{leadId}',
      operationId: 'getLead',
      description: 'One lead as stored: its kind, who it is, and the fields of its kind.',
      summary: 'Read a lead',
      middleware: [key],
      request: { params: z.object({ leadId: z.string().min(1).openapi({ param: { name: 'leadId', in: 'path' }, description: 'The lead’s id.', example: 'ld_01jd8x3k4f5g6h7j8k9m0n1p2q' }) }) },
      responses: { 200: jsonResponse(envelope(LeadSchema), 'The lead'), ...errorResponses(404) },
    }),
    async (c) => c.json(ok(await deps.db.read(async (tx) => await svc.get(tx, c.get('auth').partner.id, c.req.valid('param').leadId))), 200),
  );

  return app;
}
