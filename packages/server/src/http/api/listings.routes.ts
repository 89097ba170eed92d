import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { DelistSchema, ListingSchema } from '../../domain/listings/listings.schemas.js';

const TicketParam = z.object({ ticketId: z.string().min(1).openapi({ param: { name: 'ticketId', in: 'path' }, example: 'tkt-000123' }) });

/** Listings read and ended through the API (they are created in the hosted sell flow). */
export function listingRoutes(deps: AppDeps) {
  const app = createRouter();
  const svc = deps.listings;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/marketplace/listings/ticket/{ticketId}',
      operationId: 'getListingByTicket',
      tags: ['Marketplace'],
      summary: 'Get the listing of a ticket',
      description: 'The ticket’s live listing (ACTIVE or RESERVED), else its latest one. sellerEmail filters by seller: another seller reads as 404.',
      security: [SECURITY.private],
      middleware: [partnerKey(deps, ['private'])],
      request: { params: TicketParam, query: z.object({ sellerEmail: z.email().optional().openapi({ param: { name: 'sellerEmail', in: 'query' }, example: 'fan@example.com' }) }) },
      responses: { 200: jsonResponse(envelope(ListingSchema), 'The listing'), ...errorResponses(404) },
    }),
    async (c) => {
      const partnerId = c.get('auth').partner.id;
      const { ticketId } = c.req.valid('param');
      const { sellerEmail } = c.req.valid('query');
      return c.json(ok(await deps.db.read(async (tx) => await svc.toApi(tx, await svc.getByTicket(tx, partnerId, ticketId, sellerEmail)))), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/marketplace/items/ticket/{ticketId}',
      operationId: 'terminateListing',
      tags: ['Marketplace'],
      summary: 'Terminate a listing',
      description: 'Removes the ticket’s active listing from the market; the ticket reverts to unlisted. A listing in a buyer’s checkout (RESERVED) cannot be removed: 409.',
      security: [SECURITY.private],
      middleware: [partnerKey(deps, ['private'])],
      request: { params: TicketParam },
      responses: { 200: jsonResponse(envelope(ListingSchema), 'The listing, now TERMINATED'), ...errorResponses(404, 409) },
    }),
    (c) => {
      const partnerId = c.get('auth').partner.id;
      const { ticketId } = c.req.valid('param');
      return respondInTransaction(c, deps, 200, async (tx) => await svc.toApi(tx, await svc.terminateByTicket(tx, partnerId, ticketId)));
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/delist',
      operationId: 'delist',
      tags: ['Marketplace'],
      summary: 'Bulk delist listings',
      description:
        'Scope from the ids sent: showId alone = the whole show; + ticketOptionId = that ticket option; + priceTypeId = that combination. ' +
        'Ends every live listing in scope and e-mails each seller. A listing in a buyer’s checkout is delisted too: that checkout ends at once (the buyer is told at checkout, nothing is charged). ' +
        'Delisting does not stop new listings; set the show’s resaleEnabled to false for that.',
      security: [SECURITY.public, SECURITY.private],
      middleware: [partnerKey(deps, ['public', 'private'])],
      request: { body: jsonBody(DelistSchema) },
      responses: {
        200: jsonResponse(envelope(z.object({ delisted: z.number().int(), listingIds: z.array(z.string()) }).openapi('DelistResult')), 'What was delisted'),
        ...errorResponses(404, 409),
      },
    }),
    (c) => {
      const partnerId = c.get('auth').partner.id;
      const body = c.req.valid('json');
      return respondInTransaction(c, deps, 200, async (tx) => await svc.delist(tx, partnerId, body));
    },
  );

  return app;
}
