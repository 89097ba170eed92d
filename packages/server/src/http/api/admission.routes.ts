import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { toIso } from '../../lib/clock.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { admitScan } from '../../flows/admit-scan.js';
import { VerifyBody, VerifyResultSchema } from '../../domain/admission/admission.schemas.js';

/** Admission by the rotating code: a scanner's online check (domain/admission). */
export function admissionRoutes(deps: AppDeps) {
  const app = createRouter();
  const key = partnerKey(deps, ['private']);

  app.openapi(
    createRoute({
      tags: ['Tickets'],
      security: [SECURITY.private],
      method: 'post',
      path: '/v1/tickets/admission/verify',
      operationId: 'verifyAdmissionCode',
      summary: 'Check a scanned rotating code and admit its ticket',
      description:
        'For shows with ticketShield’s rotating codes: checks the text a scanner read from the holder’s phone and, when it is a current code of a ticket its holder may use, records the admission, once. ' +
        'Scanning the same code again answers `admitted` with `repeat: true` (a retry is never refused); any other scan of an admitted ticket answers `already_admitted`, also when two gates scan one ticket at the same moment. ' +
        'A refusal is an answer (200, `valid: false`, its `reason`), not an error. The spec’s eventAdmission endpoints keep working for partner QR codes.',
      middleware: [key],
      request: { body: jsonBody(VerifyBody) },
      responses: { 200: jsonResponse(envelope(VerifyResultSchema), 'The verdict'), ...errorResponses(400, 404) },
    }),
    (c) => {
      const body = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => {
        const door = body.showId === undefined || body.externalReferenceEventId === undefined ? undefined : await deps.events.findShow(tx, partnerId, body.externalReferenceEventId, body.showId);
        const r = await admitScan(deps, tx, partnerId, body.text, { showPk: door?.show.id });
        return { valid: r.valid, reason: r.reason, repeat: r.repeat, ticket: r.ticket, admittedAt: r.admittedAt === null ? null : toIso(r.admittedAt) };
      });
    },
  );

  return app;
}
