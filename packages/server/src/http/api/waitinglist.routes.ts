import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError, type ErrorEntry } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { operatorRoute, partnerKey } from '../middleware/auth.js';
import { IdempotencyKeyHeaders, idempotency, respondInTransaction } from '../middleware/idempotency.js';
import { waitingListHistoryCsv } from '../pages/console/console.waitinglist.csv.js';
import { PartnerIdParam } from '../../domain/partners/partners.schemas.js';
import { HISTORY_EXPORT_COLUMNS } from '../../domain/waitinglist/waitinglist.service.js';
import {
  entriesToApi,
  EXPORT_PAGE_DEFAULT,
  entryWithHistoryToApi,
  settingsToApi,
  ShowKeyQuery,
  WaitingListEntriesQuery,
  WaitingListEntryParam,
  WaitingListEntrySchema,
  WaitingListEntryWithHistorySchema,
  WaitingListExportQuery,
  WaitingListExportRowSchema,
  WaitingListJoinBody,
  WaitingListSettingsBody,
  WaitingListSettingsSchema,
} from '../../domain/waitinglist/waitinglist.schemas.js';
import { joinWaitingList, leaveWaitingList } from '../../flows/waiting-list-join.js';

const TAG = 'Waiting list';

/**
 * The waiting list's partner API (tag "Waiting list"): a show's settings, fans joining, reading
 * and leaving their entries, with the private key only (a browser never holds a fan's place:
 * the partner's server does, for its own users), and the operator's export of a show's history.
 * Offers, their e-mails and webhooks are made by the offers flow, not here.
 */
export function waitingListRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = { tags: [TAG], security: [SECURITY.private] };
  const key = partnerKey(deps, ['private']);
  const urlOptions = (lang: string) => ({ publicBaseUrl: deps.config.publicBaseUrl, lang });

  app.openapi(
    createRoute({
      ...common,
      method: 'put',
      path: '/v1/waitinglist/settings',
      operationId: 'putWaitingListSettings',
      summary: 'Set a show’s waiting list',
      description:
        'Sets the waiting list of one show whole, as a PUT does: an absent offerMinutes is 15 again, absent quietHours none. ' +
        'enabled false pauses the list (no joins, no offers) and keeps every fan’s place. Quiet hours without a timeZone take the venue’s (the show’s location, else the event’s); ' +
        'without one there, timeZone is required. Every invalid field is named at once (400), nothing is written. Repeating the same PUT changes nothing, so it takes no Idempotency-Key.',
      middleware: [key],
      request: { body: jsonBody(WaitingListSettingsBody) },
      responses: { 200: jsonResponse(envelope(WaitingListSettingsSchema), 'The settings as stored'), ...errorResponses(404, 413, 415) },
    }),
    (c) => {
      const { externalReferenceEventId, showId, ...settings } = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) =>
        settingsToApi(await deps.waitingList.putSettings(tx, partnerId, { externalReferenceEventId, showId }, settings), { externalReferenceEventId, showId }),
      );
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/waitinglist/settings',
      operationId: 'getWaitingListSettings',
      summary: 'Read a show’s waiting list settings',
      description: 'The show’s settings and how many fans wait; the defaults (off, 15 minutes, no quiet hours, RULES, updatedAt null) for a show never set.',
      middleware: [key],
      request: { query: ShowKeyQuery },
      responses: { 200: jsonResponse(envelope(WaitingListSettingsSchema), 'The settings'), ...errorResponses(404) },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      const settings = await deps.db.read(async (tx) => await deps.waitingList.getSettings(tx, partnerId, q));
      return c.json(ok(settingsToApi(settings, q)), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/waitinglist/entries',
      operationId: 'joinWaitingList',
      summary: 'Put a fan on a show’s waiting list',
      description:
        'The fan joins at the back of the show’s line and is told their position. Join time decides the order, and nothing changes it but leaving. ' +
        'One live entry per fan and show: a second join answers 409 naming the live entry (path user). ' +
        'quantity is 1 to the partner’s holdLimits.ticketsPerBuyerPerShow; together asks for seats side by side and needs a seated event. ' +
        '409 (path showId) when the show’s list is not enabled, resale of the show is closed or it has started. The entry is also a WISHLIST lead of the show (tag waitinglist). ' +
        'A fan known only by your user id, without an e-mail or phone, is refused (400 on user). Accepts Idempotency-Key.',
      middleware: [key, idempotency(deps)],
      request: { headers: IdempotencyKeyHeaders, body: jsonBody(WaitingListJoinBody) },
      responses: { 201: jsonResponse(envelope(WaitingListEntrySchema, 201), 'The entry, WAITING, with its position'), ...errorResponses(404, 409, 413, 415, 422) },
    }),
    (c) => {
      const body = c.req.valid('json');
      const partner = c.get('auth').partner;
      return respondInTransaction(c, deps, 201, async (tx) => {
        const entry = await joinWaitingList(deps, tx, partner, body);
        return (await entriesToApi(tx, [entry], urlOptions(partner.settings.defaultLang)))[0]!;
      });
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/waitinglist/entries',
      operationId: 'listWaitingListEntries',
      summary: 'A fan’s waiting-list entries',
      description:
        'Every entry of the fan, newest first, the live ones with their position and live offer; of one show with externalReferenceEventId and showId (both, or neither). ' +
        'A fan who never joined (or is not your user) has none.',
      middleware: [key],
      request: { query: WaitingListEntriesQuery },
      responses: { 200: jsonResponse(envelope(z.array(WaitingListEntrySchema)), 'The entries, newest first'), ...errorResponses(404) },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const partner = c.get('auth').partner;
      const missing: ErrorEntry[] = [];
      if (q.showId !== undefined && q.externalReferenceEventId === undefined) missing.push({ code: 'missing_field', message: 'externalReferenceEventId is required with showId', path: 'externalReferenceEventId', in: 'query' });
      if (q.externalReferenceEventId !== undefined && q.showId === undefined) missing.push({ code: 'missing_field', message: 'showId is required with externalReferenceEventId', path: 'showId', in: 'query' });
      if (missing.length > 0) throw ApiError.invalid(missing);
      const show = q.externalReferenceEventId === undefined ? undefined : { externalReferenceEventId: q.externalReferenceEventId, showId: q.showId };
      const data = await deps.db.read(async (tx) => {
        // Found, never made: reading a fan's entries must not create a user (resolveUser would).
        const user = await deps.users.find(tx, partner.id, q.user);
        // The show is checked even for a fan unknown here: an unknown show is a 404 whoever asks.
        if (show) await deps.events.findShow(tx, partner.id, show.externalReferenceEventId, show.showId);
        if (!user) return [];
        return await entriesToApi(tx, await deps.waitingList.entriesOf(tx, partner.id, user.id, { show }), urlOptions(partner.settings.defaultLang));
      });
      return c.json(ok(data), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/waitinglist/entries/{entryId}',
      operationId: 'getWaitingListEntry',
      summary: 'Read a waiting-list entry',
      description: 'One entry with its position (while live), its live offer and its history, oldest first: joined, offered, expired, declined, bought, left, withdrawn, closed. Another partner’s entry reads as unknown (404).',
      middleware: [key],
      request: { params: WaitingListEntryParam },
      responses: { 200: jsonResponse(envelope(WaitingListEntryWithHistorySchema), 'The entry and its history'), ...errorResponses(404) },
    }),
    async (c) => {
      const partner = c.get('auth').partner;
      const { entryId } = c.req.valid('param');
      const data = await deps.db.read(async (tx) => await entryWithHistoryToApi(tx, await deps.waitingList.get(tx, partner.id, entryId), urlOptions(partner.settings.defaultLang)));
      return c.json(ok(data), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'delete',
      path: '/v1/waitinglist/entries/{entryId}',
      operationId: 'leaveWaitingList',
      summary: 'Take a fan off a show’s waiting list',
      description:
        'The entry becomes LEFT and the fans behind move up. When it held an offer, the offer is declined and its checkout cancelled at once, so the tickets go to the next fan. ' +
        '409 (path entryId) when the entry has already ended; another partner’s entry reads as unknown (404).',
      middleware: [key],
      request: { params: WaitingListEntryParam },
      responses: { 200: jsonResponse(envelope(WaitingListEntrySchema), 'The entry, LEFT'), ...errorResponses(404, 409) },
    }),
    (c) => {
      const partner = c.get('auth').partner;
      const { entryId } = c.req.valid('param');
      return respondInTransaction(c, deps, 200, async (tx) => (await entriesToApi(tx, [await leaveWaitingList(deps, tx, partner.id, entryId)], urlOptions(partner.settings.defaultLang)))[0]!);
    },
  );

  const operator = operatorRoute(deps);
  app.openapi(
    createRoute({
      ...operator,
      method: 'get',
      path: '/admin/v1/partners/{partnerId}/waitinglist',
      operationId: 'exportWaitingList',
      summary: 'Export a show’s waiting-list history',
      description:
        'Everything that happened to the show’s line, in the order it happened (seq): each join, offer, expiry, decline, purchase, leave, withdrawal and closing, with the fan and what they asked for. ' +
        `JSON answers a page (cursor pagination: pass \`nextCursor\` as \`startingAfter\`); format=csv answers the whole history as a CSV file (UTF-8 with a byte order mark, columns ${HISTORY_EXPORT_COLUMNS.join(', ')}; a cell a spreadsheet would read as a formula starts with '). Operator token.`,
      request: { params: PartnerIdParam, query: WaitingListExportQuery },
      responses: {
        200: {
          description: 'The history, oldest first (JSON), or the CSV file',
          content: {
            'application/json': { schema: envelope(z.object({ items: z.array(WaitingListExportRowSchema), nextCursor: z.number().int().nullable().openapi({ description: 'Pass as startingAfter for the next page; null on the last.', example: 1000 }) }).openapi('WaitingListExportPage')) },
            'text/csv': { schema: z.string().openapi({ example: `${HISTORY_EXPORT_COLUMNS.join(',')}\r\n1,2026-03-01T12:00:00.000Z,joined,wle_…,1,,fan@example.com,fan@example.com,,,2,false,,\r\n` }) },
          },
        },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { partnerId } = c.req.valid('param');
      const { format, startingAfter, limit, ...show } = c.req.valid('query');
      const partner = await deps.partners.get(partnerId);
      if (format === 'csv') {
        // The file is the whole history: a spreadsheet has no pages.
        const rows = await deps.db.read(async (tx) => await deps.waitingList.exportHistory(tx, partner.id, show));
        const csv = waitingListHistoryCsv(partner.id, show, rows);
        return c.body(csv.body, 200, csv.headers);
      }
      const page = await deps.db.read(async (tx) => await deps.waitingList.exportHistoryPage(tx, partner.id, show, { startingAfter, limit: limit ?? EXPORT_PAGE_DEFAULT }));
      return c.json(ok(page), 200);
    },
  );

  return app;
}
