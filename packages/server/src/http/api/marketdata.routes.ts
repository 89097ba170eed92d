import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { leadRoutes } from './leads.routes.js';
import { MarketDataService } from '../../domain/marketdata/marketdata.service.js';

const counts = {
  capacity: z.number().int().nonnegative().optional().openapi({ example: 20000 }),
  releasedTickets: z.number().int().nonnegative().optional().openapi({ example: 18000 }),
  reservedSpace: z.number().int().nonnegative().optional().openapi({ example: 500 }),
  soldOut: z.boolean().optional(),
  soldPercentage: z.number().min(0).max(100).optional().openapi({ example: 92.5 }),
};
const InventorySchema = z.strictObject(counts).openapi('InventoryUpdate');
const ItemSchema = z.strictObject({ ticketOptionId: z.string().min(1), priceTypeId: z.string().min(1).optional(), ...counts }).openapi('InventoryItem');
const DetailsSchema = z.strictObject({ items: z.array(ItemSchema).max(1000) }).openapi('InventoryDetailsUpdate');
const InventoryOut = z
  .object({
    showId: z.string(),
    capacity: z.number().nullable(),
    releasedTickets: z.number().nullable(),
    reservedSpace: z.number().nullable(),
    soldOut: z.boolean().nullable(),
    soldPercentage: z.number().nullable(),
    items: z.array(ItemSchema),
    updatedAt: z.string(),
  })
  .openapi('Inventory');

/** PUT/GET /v1/marketdata/events/:externalReferenceId/inventory[/details], and the leads (/v1/marketdata/users, leads.routes.ts). */
export function marketDataRoutes(deps: AppDeps) {
  const app = createRouter();
  const svc = new MarketDataService(deps);
  const common = { tags: ['Market data'], security: [SECURITY.private], middleware: [partnerKey(deps, ['private'])] };
  const params = z.object({ externalReferenceId: z.string().min(1).openapi({ param: { name: 'externalReferenceId', in: 'path' }, example: 'tour-2026' }) });
  const query = z.object({ showId: z.string().min(1).optional().openapi({ param: { name: 'showId', in: 'query' }, example: 'show-1', description: 'Required when the event has several shows.' }) });
  const ok = { 200: jsonResponse(envelope(InventoryOut), 'The show’s inventory'), ...errorResponses(404, 413, 415) };

  app.openapi(
    createRoute({ ...common, method: 'put', path: '/v1/marketdata/events/{externalReferenceId}/inventory', operationId: 'putInventory', summary: 'Update the inventory of a show', description: 'Fields sent replace the stored ones; others are kept.', request: { params, query, body: jsonBody(InventorySchema) }, responses: ok }),
    (c) => respondInTransaction(c, deps, 200, async (tx) => await svc.setInventory(tx, c.get('auth').partner.id, c.req.valid('param').externalReferenceId, c.req.valid('query').showId, c.req.valid('json'))),
  );
  app.openapi(
    createRoute({
      ...common,
      method: 'put',
      path: '/v1/marketdata/events/{externalReferenceId}/inventory/details',
      operationId: 'putInventoryDetails',
      summary: 'Update the inventory details of a show',
      description: 'items: the inventory per ticket option (and price type) of the show; replaces the stored items. Every id must belong to the show.',
      request: { params, query, body: jsonBody(DetailsSchema) },
      responses: ok,
    }),
    (c) => respondInTransaction(c, deps, 200, async (tx) => await svc.setDetails(tx, c.get('auth').partner.id, c.req.valid('param').externalReferenceId, c.req.valid('query').showId, c.req.valid('json').items)),
  );
  app.openapi(
    createRoute({ ...common, method: 'get', path: '/v1/marketdata/events/{externalReferenceId}/inventory', operationId: 'getInventory', description: 'The primary-sale inventory of a show of the event, as the partner last reported it.', summary: 'Read the inventory of a show', request: { params, query }, responses: ok }),
    (c) => respondInTransaction(c, deps, 200, async (tx) => await svc.get(tx, c.get('auth').partner.id, c.req.valid('param').externalReferenceId, c.req.valid('query').showId)),
  );
  app.route('/', leadRoutes(deps));
  return app;
}
