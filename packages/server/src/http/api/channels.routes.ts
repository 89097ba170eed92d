import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { IdempotencyKeyHeaders, idempotency, respondInTransaction } from '../middleware/idempotency.js';
import { publishChannelListing } from '../../flows/publish-channel-listing.js';
import {
  ChannelListingCreateSchema,
  ChannelListingIdParam,
  ChannelListingPageSchema,
  ChannelListingQuerySchema,
  ChannelListingSchema,
  ChannelListingUpdateSchema,
} from '../../domain/channels/channels.schemas.js';

/**
 * The Channels group: an external resale platform pushes, reprices, withdraws and reads its
 * resale listings in the partner's market.
 *
 * Authentication: the partner's channels key (`sk_ch_…`) in the `Authorization` header, bare
 * (`Authorization: sk_ch_…`) or as `Authorization: Bearer sk_ch_…`, like every key. The
 * private and public keys answer 403 `forbidden_key_kind` here, and the channels key answers
 * the same on every other group. Everything is scoped to the key's partner: another partner's
 * events and listings read as unknown (404).
 *
 * @example
 * app.route('/', channelRoutes(deps));
 */
export function channelRoutes(deps: AppDeps) {
  const app = createRouter();
  const svc = deps.channels;
  const common = { tags: ['Channels'], security: [SECURITY.channels] };
  const key = partnerKey(deps, ['channels']);

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/channels/listings',
      operationId: 'createChannelListing',
      summary: 'Push a listing into the market',
      description:
        'Puts the channel’s listing of `quantity` tickets (sold together) on the partner’s market for this event, show and ticket option, at `price` per ticket. ' +
        'The partner’s rules apply: resale open and show not started (409), the ticket option’s currency, the price rules and fees (400 naming price). ' +
        '`externalListingId` is unique per partner and channelId: a second create with it answers 409 (use Idempotency-Key to retry safely). ' +
        'The listing then appears in the market, the listed tickets and the access layer beside the partner’s own, and is sold through the same checkout.',
      middleware: [key, idempotency(deps)],
      request: { headers: IdempotencyKeyHeaders, body: jsonBody(ChannelListingCreateSchema) },
      responses: { 200: jsonResponse(envelope(ChannelListingSchema), 'The listing, ACTIVE'), ...errorResponses(404, 409, 413, 415, 422) },
    }),
    (c) => {
      const partnerId = c.get('auth').partner.id;
      const body = c.req.valid('json');
      return respondInTransaction(c, deps, 200, async (tx) => await svc.get(tx, partnerId, (await publishChannelListing(deps, tx, partnerId, body)).id));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/channels/listings',
      operationId: 'listChannelListings',
      summary: 'List the channel listings',
      description: 'The listings pushed with this key, oldest first, filtered by channel, own id, event, show or state. Cursor pagination: pass `nextCursor` as `startingAfter`. Poll with state=SOLD to learn of sales.',
      middleware: [key],
      request: { query: ChannelListingQuerySchema },
      responses: { 200: jsonResponse(envelope(ChannelListingPageSchema), 'A page of listings'), ...errorResponses(404) },
    }),
    async (c) => c.json(ok(await deps.db.read(async (tx) => await svc.list(tx, c.get('auth').partner.id, c.req.valid('query')))), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/channels/listings/{listingId}',
      operationId: 'getChannelListing',
      description: 'One listing this channel brought in, with its state on the market.',
      summary: 'Read a channel listing',
      middleware: [key],
      request: { params: ChannelListingIdParam },
      responses: { 200: jsonResponse(envelope(ChannelListingSchema), 'The listing'), ...errorResponses(404) },
    }),
    async (c) => c.json(ok(await deps.db.read(async (tx) => await svc.get(tx, c.get('auth').partner.id, c.req.valid('param').listingId))), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'patch',
      path: '/v1/channels/listings/{listingId}',
      operationId: 'updateChannelListing',
      summary: 'Change the price of a channel listing',
      description: 'Reprices an ACTIVE listing within the partner’s rules. A listing in a buyer’s checkout (RESERVED), sold, withdrawn or ended answers 409.',
      middleware: [key],
      request: { params: ChannelListingIdParam, body: jsonBody(ChannelListingUpdateSchema) },
      responses: { 200: jsonResponse(envelope(ChannelListingSchema), 'The listing with its new price'), ...errorResponses(404, 409, 413, 415) },
    }),
    (c) => {
      const partnerId = c.get('auth').partner.id;
      const { listingId } = c.req.valid('param');
      const body = c.req.valid('json');
      return respondInTransaction(c, deps, 200, async (tx) => await svc.get(tx, partnerId, (await svc.updatePrice(tx, partnerId, listingId, body)).id));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'delete',
      path: '/v1/channels/listings/{listingId}',
      operationId: 'withdrawChannelListing',
      summary: 'Withdraw a channel listing',
      description:
        'Takes an ACTIVE or RESERVED listing off the market (WITHDRAWN); its tickets are gone. A buyer’s checkout holding it ends at once (the buyer is told, nothing is charged). ' +
        'Withdrawing a WITHDRAWN listing answers it again (safe to retry); sold or ended: 409.',
      middleware: [key],
      request: { params: ChannelListingIdParam },
      responses: { 200: jsonResponse(envelope(ChannelListingSchema), 'The listing, WITHDRAWN'), ...errorResponses(404, 409) },
    }),
    (c) => {
      const partnerId = c.get('auth').partner.id;
      const { listingId } = c.req.valid('param');
      return respondInTransaction(c, deps, 200, async (tx) => await svc.get(tx, partnerId, (await svc.withdraw(tx, partnerId, listingId)).id));
    },
  );

  return app;
}
