import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from '../../context.js';
import { admitScan, scanTransactions, syncScans } from '../../flows/admit-scan.js';
import { admissionCodesOf } from '../../domain/events/events.model.js';
import { partnerOf } from '../../domain/partners/partners.queries.js';
import { ScannerKitSchema, scannedText, SyncBody, SyncResultSchema, VerifyResultSchema } from '../../domain/admission/admission.schemas.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { presentedKey } from '../middleware/auth.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import { syncedScans, verdictToApi } from './admission.answer.js';

/** Calls a door may make a minute: a gate scans a code a second at most; the page's kit refreshes and syncs are a few more. */
export const DOOR_RATE_PER_MINUTE = 600;

/** Why a token opens no door, as the door's page tells its staff (every one: ask for a new link). */
const CLOSED: Record<'unknown' | 'revoked' | 'expired', string> = {
  unknown: 'This door link is not valid: ask whoever runs the doors for a new one',
  revoked: 'This door link was revoked: ask whoever runs the doors for a new one',
  expired: 'This door link has expired (12 hours after the show started)',
};

/** The door token of `Authorization: Bearer door_…`: the door and its show set as `door`, and the door's rate limit taken. */
function doorToken(deps: Pick<AppDeps, 'db' | 'doors' | 'rateLimiter'>): MiddlewareHandler<AppEnv> {
  return async function doorTokenMiddleware(c, next) {
    const token = presentedKey(c);
    if (!token) throw new ApiError(401, 'unauthorized', 'Send the door’s token as Authorization: Bearer door_…');
    const opened = await deps.doors.open(deps.db, token);
    if (typeof opened === 'string') throw new ApiError(401, 'unauthorized', CLOSED[opened]);
    await deps.rateLimiter.take(`door:${opened.door.id}`, DOOR_RATE_PER_MINUTE);
    c.set('door', opened);
    await next();
  };
}

const DoorSchema = z
  .object({
    doorId: z.string().openapi({ example: 'dor_01jq…' }),
    label: z.string().openapi({ description: 'What staff call the door.', example: 'North gate 3' }),
    expiresAt: z.string().openapi({ description: 'When the door’s link stops working: 12 hours after the show starts.', example: '2027-06-02T07:00:00.000Z' }),
    show: z.object({
      externalReferenceEventId: z.string().openapi({ example: 'tour-2026' }),
      showId: z.string().openapi({ example: 'show-1' }),
      eventTitle: z.string().openapi({ example: 'The Tour' }),
      title: z.string().openapi({ example: 'Madrid' }),
      startsAt: z.string().openapi({ example: '2027-06-01T19:00:00.000Z' }),
      timeZone: z.string().openapi({ description: 'The event’s time zone (IANA), for showing times as the venue reads them.', example: 'Europe/Madrid' }),
      status: z.string().openapi({ description: 'The show’s status (`CANCELLED`: every code is refused).', example: 'ON_SALE' }),
    }),
    codes: z.object({
      rotating: z.boolean().openapi({ description: 'Whether the venue scans rotating codes for this show (ticketShield with `venueScans: rotating`); false: the fans hold the partner’s own QR, which this page does not check.' }),
      rotationSeconds: z.number().int().openapi({ example: 15 }),
    }),
    serverTime: z.string().openapi({ description: 'The service’s clock: the door corrects its own by it.', example: '2027-06-01T18:00:00.000Z' }),
  })
  .openapi('Door');

const DoorVerifyBody = z.strictObject({ text: scannedText('What the door read from the fan’s phone, as read.') }).openapi('DoorVerifyRequest');

const DoorKitQuery = z.object({
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ param: { name: 'since', in: 'query' }, description: 'The `serverTime` of the door’s last kit: only the tickets changed since (see getScannerKit).', example: '2027-06-01T19:40:00.000Z' }),
});

/**
 * The door API (`/v1/door…`): what the venue's scanner page (`/door`, http/pages/door) calls
 * with a door's token. The same checks as the partner's scan endpoints (admission.routes.ts),
 * bound to the door's show: a ticket of another show answers `other_show`. A door can do
 * nothing else: no other show, no other endpoint of the partner's.
 */
export function doorRoutes(deps: AppDeps) {
  const app = createRouter();
  const door = doorToken(deps);
  const common = { tags: ['Doors'], security: [SECURITY.door], middleware: [door] };

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/door',
      operationId: 'getDoor',
      summary: 'The door a token opens, and its show',
      description: 'What the scanner page shows first: the door’s name, its show, whether the venue scans rotating codes, until when the link works, and the service’s clock. 401 for a token that is unknown, revoked or expired.',
      responses: { 200: jsonResponse(envelope(DoorSchema), 'The door'), ...errorResponses(401) },
    }),
    async (c) => {
      const { door: row, show, event, expiresAt } = c.get('door');
      const settings = (await deps.db.read(async (tx) => await partnerOf(tx, row.partnerId))).settings;
      const codes = admissionCodesOf(show, settings);
      return c.json(
        ok({
          doorId: row.id,
          label: row.label,
          expiresAt: toIso(expiresAt),
          show: { externalReferenceEventId: event.externalReferenceId, showId: show.showId, eventTitle: event.title, title: show.title, startsAt: toIso(show.startsAt), timeZone: event.location.timeZone ?? 'UTC', status: show.status },
          codes: { rotating: codes.rotating, rotationSeconds: codes.rotationSeconds },
          serverTime: toIso(deps.clock.now()),
        }),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/door/scanner-kit',
      operationId: 'getDoorScannerKit',
      summary: 'The door’s show’s scanner kit',
      description: 'The scanner kit of the door’s show, as getScannerKit answers it (whole, or a delta with `since`): for checking codes while the door is offline.',
      request: { query: DoorKitQuery },
      responses: { 200: jsonResponse(envelope(ScannerKitSchema), 'The kit'), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const { since } = c.req.valid('query');
      const showPk = c.get('door').show.id;
      const kit = await deps.db.read(async (tx) => await deps.admission.kit(tx, showPk, { since: since === undefined ? undefined : Date.parse(since) }), { snapshot: true });
      c.header('Cache-Control', 'no-store');
      return c.json(ok(kit), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/door/verify',
      operationId: 'verifyAtDoor',
      summary: 'Check a scanned code at the door and admit its ticket',
      description: 'As verifyAdmissionCode, for the door’s show: a ticket of another show answers `other_show`. A refusal is an answer (200, `valid: false`), not an error.',
      request: { body: jsonBody(DoorVerifyBody) },
      responses: { 200: jsonResponse(envelope(VerifyResultSchema), 'The verdict'), ...errorResponses(400, 401) },
    }),
    (c) => {
      const { door: row, show } = c.get('door');
      const { text } = c.req.valid('json');
      // Grouped with the other scans that arrive meanwhile, on SQLite (flows/admit-scan.ts).
      return respondInTransaction(c, { db: deps.db, transact: scanTransactions(deps.db) }, 200, async (tx) => verdictToApi(await admitScan(deps, tx, row.partnerId, text, { showPk: show.id, door: row })));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/door/sync',
      operationId: 'syncDoorScans',
      summary: 'Sync the door’s offline scans',
      description: 'As syncAdmissions, for the door’s show: each scan checked at its `scannedAt`, earliest first; sending the same scans again is harmless (`repeat`).',
      request: { body: jsonBody(SyncBody) },
      responses: { 200: jsonResponse(envelope(SyncResultSchema), 'One verdict per scan, in the order sent'), ...errorResponses(400, 401) },
    }),
    (c) => {
      const { door: row, show } = c.get('door');
      const scans = syncedScans(c.req.valid('json').scans, deps.clock.now());
      return respondInTransaction(c, deps, 200, async (tx) => ({ results: (await syncScans(deps, tx, row.partnerId, show.id, scans, row)).map(verdictToApi) }));
    },
  );

  return app;
}
