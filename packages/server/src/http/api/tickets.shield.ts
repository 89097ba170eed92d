import { createRoute, z } from '@hono/zod-openapi';
import { ROTATION_MAX, ROTATION_MIN, VENUE_SCANS } from '@resale/shared/admission-code';
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
    admissionCodes: z
      .strictObject({
        venueScans: z.enum(VENUE_SCANS).openapi({ description: "Which code the venue scans: the partner's own QR (`partner`) or the rotating, holder-bound code (`rotating`, shown only while ticketShield is on)." }),
        rotationSeconds: z.number().int().min(ROTATION_MIN).max(ROTATION_MAX).optional().openapi({ description: `Seconds per rotating code (${ROTATION_MIN}–${ROTATION_MAX}); without it, the partner's.` }),
      })
      .nullable()
      .optional()
      .openapi({ description: "The shows' own admission codes, overriding the partner's `admissionCodes` setting; null returns them to the partner's; left out, they stay as they are.", example: { venueScans: 'rotating', rotationSeconds: 15 } }),
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
      description: 'With `admissionCodes`, also sets which code the venue scans at these shows (the rotating code is shown in the secure view only while ticketShield is on). Each show whose flag changes emits a ticketShield.updated webhook ({status, eventId, showId}); a switch that changes nothing emits none. Audited as `partner.ticket_shield.set` with each show whose flag changed. Operator token.',
      request: {
        params: PartnerIdParam,
        body: jsonBody(ShieldBody),
      },
      responses: {
        200: jsonResponse(
          envelope(
            z
              .array(
                z.object({
                  showId: z.string(),
                  status: z.boolean(),
                  changed: z.boolean(),
                  admissionCodes: z
                    .object({ venueScans: z.enum(VENUE_SCANS), rotationSeconds: z.number().int(), rotating: z.boolean().openapi({ description: "The holder's view shows the rotating code (ticketShield on and the venue scans rotating codes)." }) })
                    .openapi({ description: 'The admission codes in force at the show (its override, else the partner’s).' }),
                }),
              )
              .openapi('TicketShieldState'),
          ),
          'The shows, whether each changed, and their admission codes',
        ),
        ...errorResponses(404),
      },
    }),
    async (c) => c.json(ok(await setTicketShield(deps, operatorAuditContext(c), c.req.valid('param').partnerId, c.req.valid('json'))), 200),
  );
  return app;
}
