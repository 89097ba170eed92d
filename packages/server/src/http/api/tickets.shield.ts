import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse } from '../openapi.js';
import { operatorAuditContext, operatorRoute } from '../middleware/auth.js';
import { PartnerIdParam } from '../../domain/partners/partners.schemas.js';
import { setTicketShield } from '../../flows/operator-changes.js';

const ShieldBody = z
  .strictObject({
    eventId: z.string().min(1).openapi({ example: 'tour-2026', description: "The partner's event id." }),
    showId: z.string().min(1).optional().openapi({ example: 'show-1', description: 'Without it, every show of the event.' }),
    status: z.boolean().openapi({ description: 'true activates ticketShield, false deactivates it.' }),
  })
  .openapi('TicketShieldSwitch');

/**
 * PUT /admin/v1/partners/:partnerId/ticketShield: ticketShield is switched per event or show by
 * the operator (the spec rejects it as a rule); the switch is `setTicketShield` of
 * flows/operator-changes.ts (the flags, the `ticketShield.updated` webhooks, the audit entry).
 */
export function ticketShieldRoutes(deps: AppDeps) {
  const app = createRouter();
  app.openapi(
    createRoute({
      method: 'put',
      path: '/admin/v1/partners/{partnerId}/ticketShield',
      operationId: 'setTicketShield',
      ...operatorRoute(deps),
      summary: 'Switch ticketShield for an event or a show',
      description: 'Each show whose flag changes emits a ticketShield.updated webhook ({status, eventId, showId}); a switch that changes nothing emits none. Audited as `partner.ticket_shield.set` with each show whose flag changed. Operator token.',
      request: {
        params: PartnerIdParam,
        body: jsonBody(ShieldBody),
      },
      responses: {
        200: jsonResponse(envelope(z.array(z.object({ showId: z.string(), status: z.boolean(), changed: z.boolean() })).openapi('TicketShieldState')), 'The shows and whether each changed'),
        ...errorResponses(404),
      },
    }),
    async (c) => c.json(ok(await setTicketShield(deps, operatorAuditContext(c), c.req.valid('param').partnerId, c.req.valid('json'))), 200),
  );
  return app;
}
