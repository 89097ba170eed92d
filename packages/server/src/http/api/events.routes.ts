import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { IdempotencyKeyHeaders, idempotency, respondInTransaction } from '../middleware/idempotency.js';
import { rulesMoved } from './rules.routes.js';
import { apiSchemas, EventOut } from '../../domain/events/events.schemas.js';
import { eventToApi } from '../../domain/events/events.serialize.js';

const RefParam = z.object({
  externalReferenceId: z.string().min(1).openapi({ param: { name: 'externalReferenceId', in: 'path' }, example: 'tour-2026' }),
});
const EventEnvelope = envelope(EventOut);

/** POST/PUT /v1/events, GET /v1/events/:externalReferenceId, POST …/cancellation. */
export function eventRoutes(deps: AppDeps) {
  const app = createRouter();
  const events = deps.events;
  const common = { tags: ['Events'], security: [SECURITY.private] };

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/events',
      operationId: 'createEvent',
      summary: 'Create an event',
      description:
        'Creates an event with its shows, ticket options and (price detail model) price types and combinations. ' +
        '`shows` may be an array or a single show object. Answers 409 when the externalReferenceId exists already. Accepts Idempotency-Key.',
      middleware: [partnerKey(deps, ['private']), idempotency(deps)],
      request: { headers: IdempotencyKeyHeaders, body: jsonBody(apiSchemas.eventCreate) },
      responses: { 200: jsonResponse(EventEnvelope, 'The created event, with defaults filled in'), ...errorResponses(409, 413, 415, 422) },
    }),
    (c) => {
      const body = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => eventToApi(await events.create(tx, partnerId, body)));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'put',
      path: '/v1/events',
      operationId: 'updateEvent',
      summary: 'Update an event',
      description:
        'Only externalReferenceId is required. Top-level fields sent replace the stored ones whole; fields omitted keep their values. ' +
        'Shows merge by showId, ticket options by ticketId, price types by priceTypeId, combinations by their pair; nothing is removed by omission. ' +
        'A new show or ticket option needs the fields a create needs. Setting a show’s status to CANCELLED cancels it; a cancelled show cannot become LIVE again (409).',
      middleware: [partnerKey(deps, ['private'])],
      request: { body: jsonBody(apiSchemas.eventUpdate) },
      responses: { 200: jsonResponse(EventEnvelope, 'The updated event'), ...errorResponses(404, 409, 413, 415) },
    }),
    (c) => {
      const body = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => eventToApi(await events.update(tx, partnerId, body)));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/events/{externalReferenceId}',
      operationId: 'getEvent',
      description:
        'The event as stored, with its shows, ticket options, price types and combinations. Another partner’s event reads as unknown (404). ' +
        '`rules`, when no event of yours has that id, answers 410 endpoint_moved: GET /v1/events/rules was the earlier path of GET /v1/rules.',
      summary: 'Read an event',
      middleware: [partnerKey(deps, ['private'])],
      request: { params: RefParam },
      responses: { 200: jsonResponse(EventEnvelope, 'The event'), ...errorResponses(404, 410) },
    }),
    async (c) => {
      const ref = c.req.valid('param').externalReferenceId;
      const partnerId = c.get('auth').partner.id;
      try {
        return c.json(ok(eventToApi(await deps.db.read(async (tx) => await events.get(tx, partnerId, ref)))), 200);
      } catch (err) {
        // The retired rules path reads as this route; an event really called "rules" still wins.
        if (ref === 'rules' && err instanceof ApiError && err.code === 'not_found') throw rulesMoved('GET');
        throw err;
      }
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/events/{externalReferenceId}/cancellation',
      operationId: 'cancelEvent',
      summary: 'Cancel an event or one show',
      description:
        'Without showId every show of the event is cancelled; with showId only that show. Cancelled shows are closed to sale and resale; ' +
        'their tickets become invalid, resale buyers are refunded and seller payouts not yet distributed are stopped. Cancelling twice is harmless. No body.',
      middleware: [partnerKey(deps, ['private'])],
      request: {
        params: RefParam,
        query: z.object({ showId: z.string().min(1).optional().openapi({ param: { name: 'showId', in: 'query' }, example: 'show-2026-05-01' }) }),
      },
      responses: { 200: jsonResponse(EventEnvelope, 'The event after cancellation'), ...errorResponses(404) },
    }),
    (c) => {
      const { externalReferenceId } = c.req.valid('param');
      const { showId } = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => eventToApi(await events.cancel(tx, partnerId, externalReferenceId, showId)));
    },
  );

  return app;
}
