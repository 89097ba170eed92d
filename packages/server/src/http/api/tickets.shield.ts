import { inOrder } from '../../lib/in-order.js';
import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse } from '../openapi.js';
import { operatorRoute } from '../middleware/auth.js';
import { eventByRef, showOfEvent, showsOfEventByShowId } from '../../domain/events/events.queries.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import type { Tx } from '../../db/client.js';
import { PartnerIdParam } from '../../domain/partners/partners.schemas.js';
import { partnerById } from '../../domain/partners/partners.queries.js';

/**
 * ticketShield is switched per event or show by the operator (the spec rejects it as a
 * rule). Every switch that changes a show emits the spec's `ticketShield.updated` webhook,
 * in the same transaction, so the partner flips between the secure view and its own.
 */
export async function setTicketShield(deps: AppDeps, tx: Tx, partnerId: string, input: { eventId: string; showId?: string | undefined; status: boolean }) {
  if (!(await partnerById(tx, partnerId))) throw ApiError.notFound('partner', partnerId);
  const event = await eventByRef(tx, partnerId, input.eventId);
  if (!event) throw ApiError.notFound('event', input.eventId);
  const one = input.showId === undefined ? undefined : await showOfEvent(tx, event.id, input.showId);
  const targets = input.showId === undefined ? await showsOfEventByShowId(tx, event.id) : one ? [one] : [];
  if (targets.length === 0) throw ApiError.notFound('show', input.showId);
  return await inOrder(targets, async (show) => {
    // The events module writes the flag; the webhook is the switch's own, in the same transaction.
    const changed = await deps.events.setTicketShield(tx, show.id, input.status);
    if (changed) {
      await deps.webhooks.enqueue(tx, partnerId, {
        action: 'ticketShield.updated',
        resourceKey: `show:${input.eventId}/${show.showId}`,
        data: { status: input.status, eventId: input.eventId, showId: show.showId },
      });
    }
    return { showId: show.showId, status: input.status, changed };
  });
}

const ShieldBody = z
  .strictObject({
    eventId: z.string().min(1).openapi({ example: 'tour-2026', description: "The partner's event id." }),
    showId: z.string().min(1).optional().openapi({ example: 'show-1', description: 'Without it, every show of the event.' }),
    status: z.boolean().openapi({ description: 'true activates ticketShield, false deactivates it.' }),
  })
  .openapi('TicketShieldSwitch');

/** PUT /admin/v1/partners/:partnerId/ticketShield. */
export function ticketShieldRoutes(deps: AppDeps) {
  const app = createRouter();
  app.openapi(
    createRoute({
      method: 'put',
      path: '/admin/v1/partners/{partnerId}/ticketShield',
      operationId: 'setTicketShield',
      ...operatorRoute(deps),
      summary: 'Switch ticketShield for an event or a show',
      description: 'Each show whose flag changes emits a ticketShield.updated webhook ({status, eventId, showId}); a switch that changes nothing emits none.',
      request: {
        params: PartnerIdParam,
        body: jsonBody(ShieldBody),
      },
      responses: {
        200: jsonResponse(envelope(z.array(z.object({ showId: z.string(), status: z.boolean(), changed: z.boolean() })).openapi('TicketShieldState')), 'The shows and whether each changed'),
        ...errorResponses(404),
      },
    }),
    (c) => {
      const { partnerId } = c.req.valid('param');
      const body = c.req.valid('json');
      return respondInTransaction(c, deps, 200, async (tx) => await setTicketShield(deps, tx, partnerId, body));
    },
  );
  return app;
}
