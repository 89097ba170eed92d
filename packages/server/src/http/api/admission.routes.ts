import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { scanTransactions, syncScans } from '../../flows/admit-scan.js';
import { syncedScans, verdictToApi, verifyAnswer } from './admission.answer.js';
import { ScannerKitDeltaQuery, ScannerKitQuery, ScannerKitSchema, ShowIdParam, SyncBody, SyncResultSchema, VerifyBody, VerifyResultSchema } from '../../domain/admission/admission.schemas.js';
import { ok } from '../../lib/envelope.js';
import { addFastPath } from '../node-listener.js';
import { verifyFastPath } from './admission.verify.fast.js';

/**
 * Admission by the rotating code: a scanner's online check (domain/admission), with its fast
 * path (admission.verify.fast.ts), which the app it is mounted on carries (`carryFastPaths`).
 */
export function admissionRoutes(deps: AppDeps) {
  const app = createRouter();
  addFastPath(app, verifyFastPath(deps));
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
      // Grouped with the other scans that arrive meanwhile, on SQLite (flows/admit-scan.ts).
      return respondInTransaction(c, { db: deps.db, transact: scanTransactions(deps.db) }, 200, (tx) => verifyAnswer(deps, tx, partnerId, body));
    },
  );

  app.openapi(
    createRoute({
      tags: ['Tickets'],
      security: [SECURITY.private],
      method: 'get',
      path: '/v1/shows/{showId}/scanner-kit',
      operationId: 'getScannerKit',
      summary: 'Get a show’s scanner kit (offline checks of rotating codes)',
      description:
        'Everything a door needs to check the show’s rotating codes without the service: the issuer’s public keys and, per ticket with a code, its serial, ticket id, seat, lowest valid epoch and state. ' +
        'No secret and no personal data: a leaked kit forges nothing. Fetch it again often while online (every 30 s), with `since` the last kit’s `serverTime` to receive only what changed: a resale, a new phone or an admission elsewhere reaches an offline scanner only with the next kit.',
      middleware: [key],
      request: { params: ShowIdParam, query: ScannerKitDeltaQuery },
      responses: { 200: jsonResponse(envelope(ScannerKitSchema), 'The kit'), ...errorResponses(404) },
    }),
    async (c) => {
      const { showId } = c.req.valid('param');
      const { externalReferenceEventId, since } = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      const opts = { since: since === undefined ? undefined : Date.parse(since) };
      const kit = await deps.db.read(async (tx) => await deps.admission.kit(tx, (await deps.events.findShow(tx, partnerId, externalReferenceEventId, showId)).show.id, opts), { snapshot: true });
      return c.json(ok(kit), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: ['Tickets'],
      security: [SECURITY.private],
      method: 'post',
      path: '/v1/shows/{showId}/admissions/sync',
      operationId: 'syncAdmissions',
      summary: 'Sync a door’s offline scans of rotating codes',
      description:
        'A door that checked codes offline with the scanner kit sends what it scanned, with when, once it is back online (again and again is harmless: a scan already synced answers as it did, `repeat`). ' +
        'Each scan is checked as the door checked it, at its `scannedAt` (the code’s step against that moment; the ticket’s holder, phone and state as they are now), earliest first: the earliest scan of a ticket admits it, dated `scannedAt`, with the `ticket.admitted` webhook (`source: sync`); any other scan of it answers `already_admitted` (one ticket, two entries: for the venue to follow up). A ticket admitted earlier, online or by another door’s sync, stays as first recorded. ' +
        '`scannedAt` must be within the last 24 hours and at most 5 minutes ahead of the service’s clock; every wrong scan is named at once and nothing is recorded.',
      middleware: [key],
      request: { params: ShowIdParam, query: ScannerKitQuery, body: jsonBody(SyncBody) },
      responses: { 200: jsonResponse(envelope(SyncResultSchema), 'One verdict per scan, in the order sent'), ...errorResponses(400, 404) },
    }),
    (c) => {
      const { showId } = c.req.valid('param');
      const { externalReferenceEventId } = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      const scans = syncedScans(c.req.valid('json').scans, deps.clock.now());
      return respondInTransaction(c, deps, 200, async (tx) => {
        const door = await deps.events.findShow(tx, partnerId, externalReferenceEventId, showId);
        const answers = await syncScans(deps, tx, partnerId, door.show.id, scans);
        return { results: answers.map(verdictToApi) };
      });
    },
  );

  return app;
}
