import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { createRouter, envelope, errorResponses, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { withLoginTrust } from '../../domain/auth/auth.urls.js';
import { servicePaths, serviceUrl } from '../../lib/urls.js';

const lang = z.enum(['en', 'es']).optional().openapi({ param: { name: 'lang', in: 'query' }, example: 'es', description: 'Defaults to the partner’s language.' });
const loginTrust = z
  .string()
  .min(1)
  .optional()
  .openapi({ param: { name: 'loginTrust[user]', in: 'query' }, example: 'fan@example.com', description: 'E-mail, E.164 phone or user id of the signed-in user: the URL then carries a single-use oneTimeToken (Login Trust).' });
const UrlEnvelope = envelope(z.string().openapi({ example: 'https://resale.example/sell/ptr_…/ticket/tkt-000123?lang=es&oneTimeToken=…' }));

/**
 * The URLs that take a seller into the hosted sell flow. Each is single use when it carries
 * a one-time token: request a new one for every click and never cache it.
 */
export function sellEntryRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = { tags: ['Marketplace'], security: [SECURITY.private], middleware: [partnerKey(deps, ['private'])] };
  const base = deps.config.publicBaseUrl;

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketplace/sellingflow/url/entrypoint',
      operationId: 'getSellTicketUrl',
      summary: 'Start-sell-ticket URL',
      description: 'The sell flow of one ticket: ownership is verified live with the platform, then price and conditions, then publish. A ticket the service does not know yet is synchronised on the spot.',
      request: { query: z.object({ ticketId: z.string().min(1).openapi({ param: { name: 'ticketId', in: 'query' }, example: 'tkt-000123' }), lang, 'loginTrust[user]': loginTrust }) },
      responses: { 200: jsonResponse(UrlEnvelope, 'The URL'), ...errorResponses() },
    }),
    (c) => {
      const q = c.req.valid('query');
      const partner = c.get('auth').partner;
      const url = serviceUrl(base, servicePaths.sellTicket(partner.id, q.ticketId, { lang: q.lang ?? partner.settings.defaultLang }));
      return respondInTransaction(c, deps, 200, async (tx) => withLoginTrust(deps, tx, { partnerId: partner.id, user: q['loginTrust[user]'] }, url, 'sellFlow'));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketplace/sellingflow/url/order/entrypoint',
      operationId: 'getSellOrderUrl',
      summary: 'Start-sell-order URL',
      description: 'The sell flow of an order: its sellable tickets are listed together, one pack per ticket option and price type, in one transaction.',
      request: { query: z.object({ orderId: z.string().min(1).openapi({ param: { name: 'orderId', in: 'query' }, example: 'order-5531' }), lang, 'loginTrust[user]': loginTrust }) },
      responses: { 200: jsonResponse(UrlEnvelope, 'The URL'), ...errorResponses() },
    }),
    (c) => {
      const q = c.req.valid('query');
      const partner = c.get('auth').partner;
      const url = serviceUrl(base, servicePaths.sellOrder(partner.id, q.orderId, { lang: q.lang ?? partner.settings.defaultLang }));
      return respondInTransaction(c, deps, 200, async (tx) => withLoginTrust(deps, tx, { partnerId: partner.id, user: q['loginTrust[user]'] }, url, 'sellFlow'));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketplace/sellingflow/details/url',
      operationId: 'getListingDetailsUrl',
      summary: 'Listing details and management URL',
      description: 'Where the seller checks the status, changes the price or removes the listing. With sellerEmail the URL signs the seller in (single-use token) and another seller’s listing reads as 404.',
      request: {
        query: z.object({
          ticketId: z.string().min(1).openapi({ param: { name: 'ticketId', in: 'query' }, example: 'tkt-000123' }),
          sellerEmail: z.email().optional().openapi({ param: { name: 'sellerEmail', in: 'query' }, example: 'fan@example.com' }),
          lang,
        }),
      },
      responses: { 200: jsonResponse(UrlEnvelope, 'The URL'), ...errorResponses(404) },
    }),
    (c) => {
      const q = c.req.valid('query');
      const partner = c.get('auth').partner;
      return respondInTransaction(c, deps, 200, async (tx) => {
        const listing = await deps.listings.getByTicket(tx, partner.id, q.ticketId, q.sellerEmail);
        const url = serviceUrl(base, servicePaths.sellListing(partner.id, listing.id, { lang: q.lang ?? partner.settings.defaultLang }));
        return withLoginTrust(deps, tx, { partnerId: partner.id, user: q.sellerEmail, method: 'email', path: 'sellerEmail' }, url, 'sellFlow');
      });
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketplace/smartPublish',
      operationId: 'getSmartPublishUrl',
      summary: 'Smart publish entry URL',
      description:
        'Call on every click of your one Sell button and redirect the user to the answer. The URL is single use (its token is consumed when opened). ' +
        'It routes to the publish wizard (one sellable ticket), the seller’s listings (everything listed), the ticket hub of a show, a show picker (several shows) or an empty state. An unknown user is created.',
      request: { query: z.object({ email: z.email().openapi({ param: { name: 'email', in: 'query' }, example: 'fan@example.com' }), lang }) },
      responses: { 200: jsonResponse(UrlEnvelope, 'The single-use URL'), ...errorResponses() },
    }),
    (c) => {
      const q = c.req.valid('query');
      const partner = c.get('auth').partner;
      const url = serviceUrl(base, servicePaths.sellStart(partner.id, { lang: q.lang ?? partner.settings.defaultLang }));
      return respondInTransaction(c, deps, 200, async (tx) => withLoginTrust(deps, tx, { partnerId: partner.id, user: q.email, method: 'email', path: 'email' }, url, 'smartPublish'));
    },
  );

  return app;
}
