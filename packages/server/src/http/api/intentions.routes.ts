import { inOrder } from '../../lib/in-order.js';
import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { toMajor } from '../../lib/money.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { IdempotencyKeyHeaders, idempotency, respondInTransaction } from '../middleware/idempotency.js';
import { withLoginTrust, RETURN_TO_TAG_PARAM, returnToTag, signUrl } from '../../domain/auth/auth.urls.js';
import { refuseTaken, reserveListings } from '../../flows/reserve-listings.js';
import { marketEvent, offers } from '../../flows/market.queries.js';
import { MAX_INTENTION_ITEMS } from '../../domain/intentions/intentions.service.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';

const listingIds = z.array(z.string().min(1)).min(1).max(MAX_INTENTION_ITEMS);

const IntentionSchema = z
  .object({
    id: z.string().openapi({ example: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    state: z.enum(['PENDING', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED']).openapi({
      description:
        'PENDING holds the listings until expiresAt, then: PAID (payment succeeded), FAILED (five payments declined, or a high risk score; a single declined card keeps the hold so the buyer can try another card), EXPIRED (time ran out), CANCELLED (by the buyer, or a listing or its show stopped being sellable). Every state but PENDING is final; the listings are released at once.',
    }),
    expiresAt: z.string(),
    currency: z.string(),
    total: z.number().openapi({ description: 'What the buyer pays in all, fees included.' }),
    items: z.array(z.object({ listingId: z.string(), ticketIds: z.array(z.string()), quantity: z.number().int(), price: z.number(), buyerFee: z.number(), subtotal: z.number() })),
    buyer: z.object({ id: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() }).nullable(),
    paymentUrl: z.string().nullable().openapi({ description: 'The hosted checkout while PENDING (signed for the buyer when one was named).' }),
    endReason: z.string().nullable(),
    createdAt: z.string(),
    paidAt: z.string().nullable(),
  })
  .openapi('BuyIntention');

const ListedTicketSchema = z
  .object({
    listingId: z.string(),
    showId: z.string(),
    ticketOptionId: z.string(),
    ticketOptionTitle: z.string(),
    area: z.string().nullable(),
    quantity: z.number().int().openapi({ description: 'Tickets in the listing, sold together.' }),
    currency: z.string(),
    price: z.number().openapi({ description: 'Per ticket, before the buyer fee.' }),
    buyerTotal: z.number().openapi({ description: 'What the buyer pays per ticket.' }),
    tickets: z.array(z.object({ ticketId: z.string(), section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() })),
  })
  .openapi('ListedTicket');

/** The buying flow: entry URL, listed tickets, buy intentions and checkout URLs. */
export function intentionRoutes(deps: AppDeps) {
  const app = createRouter();
  const svc = deps.intentions;
  const common = { tags: ['Marketplace'], security: [SECURITY.private] };
  const key = partnerKey(deps, ['private']);
  const lang = z.enum(['en', 'es']).optional().openapi({ param: { name: 'lang', in: 'query' }, example: 'es' });

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/marketplace/buyingflow/buyIntention',
      operationId: 'createBuyIntention',
      summary: 'Create a buy intention',
      description: `Reserves exactly these listings (at most ${MAX_INTENTION_ITEMS}, one show and ticket option) for the partner’s buyIntentionTtlSeconds and answers the payment URL. 409 when one is no longer available: nothing is reserved then. 429 rate_limited (with Retry-After) when the buyer already holds as many live checkouts, or tickets of the show, as the partner’s holdLimits allow. Accepts Idempotency-Key.`,
      middleware: [key, idempotency(deps)],
      request: {
        headers: IdempotencyKeyHeaders,
        body: jsonBody(
          z.strictObject({ items: listingIds.openapi({ description: 'Listing ids (from listedTickets).' }), user: z.string().min(1).max(254).openapi({ description: 'The buyer: e-mail, E.164 phone or the partner’s user id.', example: 'buyer@example.com' }) }).openapi('BuyIntentionRequest'),
        ),
        query: z.object({ lang }),
      },
      responses: { 200: jsonResponse(envelope(IntentionSchema), 'The intention, PENDING, with its payment URL'), ...errorResponses(404, 409, 422) },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const partner = c.get('auth').partner;
      const l = c.req.valid('query').lang ?? partner.settings.defaultLang;
      // A pick already taken is refused from a read, without waiting for the writer (the write stays the guard).
      await refuseTaken(deps, partner.id, body.items);
      // Written with the other buy attempts of the moment: one durable commit per group.
      return respondInTransaction(c, { db: deps.db, transact: deps.reservations.transact }, 200, async (tx) => {
        // The partner from the key, the buyer resolved once: the payment URL signs them in (Login Trust).
        const buyer = await deps.auth.resolveUser(tx, partner.id, body.user, { path: 'user', in: 'body' });
        const row = await reserveListings(deps, tx, { partner, listingIds: body.items, buyerPk: buyer.id });
        const token = await deps.auth.mintOneTimeToken(tx, partner.id, buyer.id, 'checkout', { ttlSeconds: partner.settings.oneTimeTokenTtlSeconds });
        return await svc.toApi(tx, row, signUrl(svc.checkoutUrl(row, l), token));
      });
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/marketplace/checkout/url',
      operationId: 'createCheckoutUrl',
      summary: 'Checkout URL for listings',
      description: 'Reserves the listings like a buy intention without naming the buyer (who signs in at checkout) and answers the checkout URL. Accepts Idempotency-Key.',
      middleware: [key, idempotency(deps)],
      request: { headers: IdempotencyKeyHeaders, body: jsonBody(z.strictObject({ listingIds }).openapi('CheckoutUrlRequest')), query: z.object({ lang }) },
      responses: { 200: jsonResponse(envelope(z.string().openapi({ example: 'https://resale.example/checkout/ptr_…/bi_…?lang=es' })), 'The checkout URL'), ...errorResponses(404, 409, 422) },
    }),
    async (c) => {
      const { listingIds: ids } = c.req.valid('json');
      const partner = c.get('auth').partner;
      const l = c.req.valid('query').lang ?? partner.settings.defaultLang;
      await refuseTaken(deps, partner.id, ids);
      return respondInTransaction(c, { db: deps.db, transact: deps.reservations.transact }, 200, async (tx) => svc.checkoutUrl(await reserveListings(deps, tx, { partner, listingIds: ids, buyerPk: null }), l));
    },
  );

  const IdParam = z.object({ intentionId: z.string().openapi({ param: { name: 'intentionId', in: 'path' }, example: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q' }) });

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketplace/buyingflow/buyIntention/{intentionId}',
      operationId: 'getBuyIntention',
      description: 'A buy intention (a checkout of listings): its state, the listings it holds, its total and its payment URL while it is PENDING.',
      summary: 'Read a buy intention',
      middleware: [key],
      request: { params: IdParam },
      responses: { 200: jsonResponse(envelope(IntentionSchema), 'The intention'), ...errorResponses(404) },
    }),
    (c) => {
      const partner = c.get('auth').partner;
      return respondInTransaction(c, deps, 200, async (tx) => {
        const row = await svc.get(tx, partner.id, c.req.valid('param').intentionId);
        return await svc.toApi(tx, row, svc.checkoutUrl(row, partner.settings.defaultLang));
      });
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'delete',
      path: '/v1/marketplace/buyingflow/buyIntention/{intentionId}',
      operationId: 'cancelBuyIntention',
      summary: 'Cancel a buy intention',
      description: 'Releases its listings at once. Only a PENDING intention can be cancelled (409 otherwise).',
      middleware: [key],
      request: { params: IdParam },
      responses: { 200: jsonResponse(envelope(IntentionSchema), 'The intention, CANCELLED'), ...errorResponses(404, 409) },
    }),
    (c) => {
      const partner = c.get('auth').partner;
      return respondInTransaction(c, deps, 200, async (tx) => await svc.toApi(tx, await svc.cancel(tx, partner.id, c.req.valid('param').intentionId), null));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketplace/items/events/{eventId}/listedTickets',
      operationId: 'getListedTickets',
      summary: 'Listed tickets of an event',
      description: 'Every ACTIVE listing of the event (or of one show), cheapest first by what the buyer pays, with prices, seats and the category’s presentation.',
      middleware: [key],
      request: {
        params: z.object({ eventId: z.string().min(1).openapi({ param: { name: 'eventId', in: 'path' }, example: 'tour-2026' }) }),
        query: z.object({ showId: z.string().min(1).optional().openapi({ param: { name: 'showId', in: 'query' }, example: 'show-1' }) }),
      },
      responses: { 200: jsonResponse(envelope(z.array(ListedTicketSchema)), 'The listed tickets'), ...errorResponses(404) },
    }),
    async (c) => {
      const partner = c.get('auth').partner;
      const { eventId } = c.req.valid('param');
      const { showId } = c.req.valid('query');
      const { found, offered } = await deps.db.read(async (tx) => {
        const found = await marketEvent(tx, partner.id, eventId);
        return { found, offered: found ? new Map(await inOrder(found.shows, async (s) => [s.id, await offers(tx, s.id)] as const)) : new Map<string, Awaited<ReturnType<typeof offers>>>() };
      });
      if (!found) throw ApiError.notFound('event', eventId);
      const chosen = showId === undefined ? found.shows : found.shows.filter((s) => s.showId === showId);
      if (showId !== undefined && chosen.length === 0) throw ApiError.notFound('show', showId);
      const data = chosen.flatMap((s) =>
        offered.get(s.id)!.map((o) => ({
          listingId: o.listingId,
          showId: s.showId,
          ticketOptionId: o.ticketOptionId,
          ticketOptionTitle: o.optionTitle,
          area: o.area,
          quantity: o.quantity,
          currency: o.currency,
          price: toMajor(o.priceMinor, o.currency),
          buyerTotal: toMajor(o.buyerTotalMinor, o.currency),
          tickets: o.seats,
        })),
      );
      return c.json(ok(data), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/marketplace/buyingflow/url/entrypoint',
      operationId: 'getBuyingFlowUrl',
      summary: 'Buying-flow entry URL',
      description: 'The market page of the event and show (optionally filtered to a ticket option), with a way back to returnTo (the URL carries our returnToTag, so any https address the partner’s server chooses is shown; a returnTo added by anyone else must be on the partner’s allowedOrigins). loginTrust[user] signs the URL with a single-use token.',
      middleware: [key],
      request: {
        query: z.object({
          externalReferenceEventId: z.string().min(1).openapi({ param: { name: 'externalReferenceEventId', in: 'query' }, example: 'tour-2026' }),
          showId: z.string().min(1).openapi({ param: { name: 'showId', in: 'query' }, example: 'show-1' }),
          returnTo: z.url({ protocol: /^https?$/ }).openapi({ param: { name: 'returnTo', in: 'query' }, example: 'https://partner.example/events/tour-2026' }),
          lang,
          ticketOptionId: z.string().min(1).optional().openapi({ param: { name: 'ticketOptionId', in: 'query' }, example: 'opt-field' }),
          'loginTrust[user]': z.string().min(1).optional().openapi({ param: { name: 'loginTrust[user]', in: 'query' }, example: 'buyer@example.com' }),
        }),
      },
      responses: { 200: jsonResponse(envelope(z.string()), 'The URL'), ...errorResponses(404) },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const partner = c.get('auth').partner;
      await deps.db.read(async (tx) => await deps.events.findShow(tx, partner.id, q.externalReferenceEventId, q.showId));
      // The tag tells the market page that the partner's server chose this returnTo (see partnerReturnTo).
      const params = new URLSearchParams({
        showId: q.showId,
        lang: q.lang ?? partner.settings.defaultLang,
        returnTo: q.returnTo,
        [RETURN_TO_TAG_PARAM]: returnToTag(deps.box, partner.id, q.returnTo),
        ...(q.ticketOptionId ? { ticketOptionId: q.ticketOptionId } : {}),
      });
      const url = serviceUrl(deps.config.publicBaseUrl, servicePaths.market(partner.id, q.externalReferenceEventId, params));
      return respondInTransaction(c, deps, 200, async (tx) => withLoginTrust(deps, tx, { partnerId: partner.id, user: q['loginTrust[user]'] }, url, 'buyFlow'));
    },
  );

  return app;
}
