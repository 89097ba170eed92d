import type { Lang } from '@resale/shared/lang';
import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { withLoginTrustSigner } from '../../domain/auth/auth.urls.js';
import { SellAccessLayer, sellBannerComponent } from '../../flows/accesslayer/accesslayer.sell.js';
import { SellAccessLayerBody, SellAccessLayerResponse } from '../../flows/accesslayer/accesslayer.schemas.js';

/** The smart access layer (sell mode). */
export function accessLayerRoutes(deps: AppDeps) {
  const app = createRouter();
  const sell = new SellAccessLayer(deps);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/wrapper/accesslayer',
      operationId: 'sellAccessLayer',
      tags: ['Access layer'],
      summary: 'Sell access layer: statuses and calls to action for My tickets',
      description:
        'Send `tickets` or `orders` (not both), or only `user` with the include flags (e-mail-only mode: the seller’s sales across all events; without a flag the answer is empty). ' +
        'Render `status` and each call to action as given; an empty callToActions means no resale action. Statuses: SELLABLE (SELL), NOT_SELLABLE, FOR_SALE (EDIT, P2P), SOLD (DETAILS). ' +
        'Orders aggregate their tickets by the spec’s table (MANAGE for mixed states).',
      security: [SECURITY.private],
      middleware: [partnerKey(deps, ['private'])],
      request: { body: jsonBody(SellAccessLayerBody), query: z.object({ lang: z.enum(['en', 'es']).optional().openapi({ param: { name: 'lang', in: 'query' }, example: 'es' }) }) },
      responses: { 200: jsonResponse(envelope(SellAccessLayerResponse), 'Statuses and calls to action'), ...errorResponses(413, 415) },
    }),
    (c) => {
      const body = c.req.valid('json');
      const partner = c.get('auth').partner;
      const lang: Lang = c.req.valid('query').lang ?? partner.settings.defaultLang;
      return respondInTransaction(c, deps, 200, async (tx) => {
        const user = await deps.users.find(tx, partner.id, body.user);
        const who = { partnerId: partner.id, user: body.autologin ? body.user : null, method: 'email', path: 'user' } as const;
        return withLoginTrustSigner(deps, tx, who, 'accessLayer', async (sign) => {
          const sales = body.includeOrderSales || body.includeTicketSales ? await sell.sales(tx, partner.id, user) : null;
          const extras = {
            ...(body.includeTicketSales ? { soldTickets: sales!.soldTickets } : {}),
            ...(body.includeOrderSales ? { soldOrders: sales!.soldOrders } : {}),
          };
          const components = sellBannerComponent(deps, partner, lang, sign);
          if (body.tickets) return { user: body.user, tickets: await sell.tickets(tx, partner.id, user, body.tickets, lang, sign), components, ...extras };
          if (body.orders) return { user: body.user, orders: await sell.orders(tx, partner.id, user, body.orders, lang, sign), components, ...extras };
          return extras;
        });
      });
    },
  );

  return app;
}
