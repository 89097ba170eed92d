import { z } from '@hono/zod-openapi';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';
import { showsWithEvents, ticketOptionsByPks } from '../events/events.queries.js';
import { usersByPks } from '../users/users.queries.js';
import { intentionById } from '../intentions/intentions.queries.js';
import { ticketPksOfListings } from '../listings/listings.queries.js';
import { ticketSeatsByPks } from '../tickets/tickets.queries.js';
import { toMajor } from '../../lib/money.js';
import { userToApi } from '../users/users.service.js';
import {
  ENTRY_STATES,
  HISTORY_KINDS,
  MAX_OFFER_MINUTES,
  MIN_OFFER_MINUTES,
  OFFER_STATES,
  PRICE_CAPS,
  DEFAULT_OFFER_MINUTES,
  type WaitingListEntry,
  type WaitingListHistoryItem,
  type WaitingListOffer,
  type WaitingListSettings,
} from './waitinglist.model.js';
import { HISTORY_EXPORT_COLUMNS, type HistoryExportRow } from './waitinglist.service.js';

/**
 * The waiting list's partner API shapes (http/api/waitinglist.routes.ts): request bodies and
 * queries that validate, the answers as named OpenAPI components, and the conversions from the
 * service's rows (primary keys) to the partner's ids. Validation here is of shapes only: the
 * rules that need the database or the partner's settings (the show's most tickets per buyer, an
 * option of the show, seats for `together`, a known time zone) are the service's, which names
 * every offending field at once.
 */

const ID = z.string().trim().min(1).max(200);
/** Wall time `HH:MM`, as the service checks it (documented here so a client sees the format). */
const WALL_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

const eventId = () => ID.openapi({ description: 'The partner’s event id (externalReferenceId).', example: 'tour-2026' });
const showId = () => ID.openapi({ description: 'The show of the event.', example: 'show-1' });

// ------------------------------------------------------------------ settings

/** The show a settings call is about, as query parameters (GET settings, the operator's export). */
export const ShowKeyQuery = z.object({
  externalReferenceEventId: eventId().openapi({ param: { name: 'externalReferenceEventId', in: 'query' } }),
  showId: showId().openapi({ param: { name: 'showId', in: 'query' } }),
});

const QuietHoursInputSchema = z
  .strictObject({
    start: z.string().regex(WALL_TIME, 'must be a time of day as HH:MM').openapi({ description: 'When offers stop being announced, wall time HH:MM.', example: '22:00' }),
    end: z.string().regex(WALL_TIME, 'must be a time of day as HH:MM').openapi({ description: 'When held offers are announced, wall time HH:MM (before start: the window wraps midnight).', example: '08:00' }),
    timeZone: z.string().min(1).max(64).optional().openapi({ description: 'IANA time zone of the two times; default the venue’s (the show’s location, else the event’s).', example: 'Europe/Madrid' }),
  })
  .openapi('WaitingListQuietHoursInput');

/** Body of PUT /v1/waitinglist/settings: the show, and its settings whole (absent optional fields take their defaults). */
export const WaitingListSettingsBody = z
  .strictObject({
    externalReferenceEventId: eventId(),
    showId: showId(),
    enabled: z.boolean().openapi({ description: 'Whether fans may join and offers are made. false pauses the list: every fan keeps their place.', example: true }),
    offerMinutes: z
      .number()
      .int()
      .min(MIN_OFFER_MINUTES)
      .max(MAX_OFFER_MINUTES)
      .optional()
      .openapi({ description: `How long an offer holds its tickets for the fan, in minutes (${MIN_OFFER_MINUTES} to ${MAX_OFFER_MINUTES}; default ${DEFAULT_OFFER_MINUTES}).`, example: 15 }),
    quietHours: QuietHoursInputSchema.nullable()
      .optional()
      .openapi({ description: 'Offers made in this window still hold their tickets, but the fan is told when it ends. Absent or null: none.' }),
    priceCap: z.enum(PRICE_CAPS).openapi({ description: 'FACE_VALUE caps listings published while fans wait at face value; RULES adds no cap to the resale rules.', example: 'FACE_VALUE' }),
  })
  .openapi('WaitingListSettingsInput');
export type WaitingListSettingsBody = z.output<typeof WaitingListSettingsBody>;

export const WaitingListSettingsSchema = z
  .object({
    externalReferenceEventId: z.string().openapi({ example: 'tour-2026' }),
    showId: z.string().openapi({ example: 'show-1' }),
    enabled: z.boolean().openapi({ description: 'Whether fans may join and offers are made.', example: true }),
    offerMinutes: z.number().int().openapi({ description: 'How long an offer holds its tickets, in minutes.', example: 15 }),
    quietHours: z
      .object({ start: z.string().openapi({ example: '22:00' }), end: z.string().openapi({ example: '08:00' }), timeZone: z.string().openapi({ example: 'Europe/Madrid' }) })
      .nullable()
      .openapi({ description: 'The quiet window with its time zone, or null.' }),
    priceCap: z.enum(PRICE_CAPS).openapi({ example: 'FACE_VALUE' }),
    waiting: z.number().int().openapi({ description: 'Fans in the line now (waiting, or holding an offer).', example: 132 }),
    updatedAt: z.string().nullable().openapi({ description: 'When the organiser last set them; null: never set (these are the defaults: off).', example: '2026-03-01T12:00:00.000Z' }),
  })
  .openapi('WaitingListSettings');

/** The settings as the API answers them, with the show named by the partner's ids. */
export function settingsToApi(s: WaitingListSettings, key: { externalReferenceEventId: string; showId: string }): z.output<typeof WaitingListSettingsSchema> {
  return {
    externalReferenceEventId: key.externalReferenceEventId,
    showId: key.showId,
    enabled: s.enabled,
    offerMinutes: s.offerMinutes,
    quietHours: s.quietHours,
    priceCap: s.priceCap,
    waiting: s.waiting,
    updatedAt: s.updatedAt === null ? null : toIso(s.updatedAt),
  };
}

// ------------------------------------------------------------------ entries

/** Body of POST /v1/waitinglist/entries. `quantity`'s upper bound is the partner's hold limit, checked by the service. */
export const WaitingListJoinBody = z
  .strictObject({
    externalReferenceEventId: eventId(),
    showId: showId(),
    ticketOptionId: ID.optional().openapi({ description: 'Only tickets of this ticket option; absent: any option of the show.', example: 'opt-field' }),
    quantity: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .openapi({ description: 'Tickets wanted, offered all at once: 1 to the show’s most tickets per buyer (the partner’s holdLimits.ticketsPerBuyerPerShow, default 10).', example: 2 }),
    together: z.boolean().openapi({ description: 'Seats side by side (only for an event with a seating chart).', example: true }),
    user: z.string().min(1).max(254).openapi({ description: 'The fan: e-mail, E.164 phone or the partner’s user id, resolved as the buy intention’s user (your own users only).', example: 'fan@example.com' }),
  })
  .openapi('WaitingListJoinInput');
export type WaitingListJoinBody = z.output<typeof WaitingListJoinBody>;

/** Query of GET /v1/waitinglist/entries: the fan, and optionally one show (both ids, or neither). */
export const WaitingListEntriesQuery = z.object({
  user: z.string().min(1).max(254).openapi({ param: { name: 'user', in: 'query' }, description: 'The fan: e-mail, E.164 phone or the partner’s user id.', example: 'fan@example.com' }),
  externalReferenceEventId: ID.optional().openapi({ param: { name: 'externalReferenceEventId', in: 'query' }, description: 'With showId: only that show’s entries.', example: 'tour-2026' }),
  showId: ID.optional().openapi({ param: { name: 'showId', in: 'query' }, description: 'With externalReferenceEventId: only that show’s entries.', example: 'show-1' }),
});

/** Path parameters of one entry. */
export const WaitingListEntryParam = z.object({
  entryId: z.string().min(1).max(200).openapi({ param: { name: 'entryId', in: 'path' }, example: 'wle_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
});

const OfferSchema = z
  .object({
    id: z.string().openapi({ example: 'wlo_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    state: z.enum(OFFER_STATES).openapi({ example: 'LIVE' }),
    intentionId: z.string().openapi({ description: 'The buy intention holding the offered tickets for the fan (GET /v1/marketplace/buyingflow/buyIntention/{intentionId}).', example: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    listingIds: z.array(z.string()).openapi({ example: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'] }),
    quantity: z.number().int().openapi({ example: 2 }),
    ticketIds: z.array(z.string()).openapi({ description: 'Your ids of the held tickets, in the listings’ order.', example: ['tk-1042', 'tk-1043'] }),
    seats: z
      .array(z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() }))
      .openapi({ description: 'Their seats, in the same order (nulls for general admission).', example: [{ section: 'B', row: '4', seat: '11' }, { section: 'B', row: '4', seat: '12' }] }),
    currency: z.string().openapi({ example: 'EUR' }),
    total: z.number().openapi({ description: 'What the fan pays for them, fees included, in major units of `currency`.', example: 96.8 }),
    notifyAt: z.string().openapi({ description: 'When the fan is told (the end of the quiet hours, or when the offer was made).', example: '2026-03-01T12:00:00.000Z' }),
    expiresAt: z.string().openapi({ description: 'When the hold ends and the tickets go to the next fan.', example: '2026-03-01T12:15:00.000Z' }),
    checkoutUrl: z.string().openapi({ description: 'The hosted checkout of the held tickets (the fan signs in there; add Login Trust to sign them in).', example: 'https://resale.example/checkout/ptr_…/bi_…?lang=es' }),
  })
  .openapi('WaitingListOffer');

const HistoryItemSchema = z
  .object({
    seq: z.number().int().openapi({ description: 'The show’s sequence: the order in which things happened to its line.', example: 7 }),
    kind: z.enum(HISTORY_KINDS).openapi({ example: 'joined' }),
    at: z.string().openapi({ example: '2026-03-01T12:00:00.000Z' }),
    offerId: z.string().nullable().openapi({ example: null }),
    listingIds: z.array(z.string()).openapi({ description: 'The listings of the offer this row is about.', example: [] }),
    reason: z.string().nullable().openapi({ description: 'Why an offer or the entry ended (timeout, declined, left, …).', example: null }),
  })
  .openapi('WaitingListHistoryItem');

const entryShape = {
  id: z.string().openapi({ example: 'wle_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
  externalReferenceEventId: z.string().openapi({ example: 'tour-2026' }),
  showId: z.string().openapi({ example: 'show-1' }),
  ticketOptionId: z.string().nullable().openapi({ description: 'null: any ticket option of the show.', example: 'opt-field' }),
  quantity: z.number().int().openapi({ example: 2 }),
  together: z.boolean().openapi({ example: true }),
  user: z
    .object({ id: z.string().nullable().openapi({ example: 'user-881' }), email: z.string().nullable().openapi({ example: 'fan@example.com' }), phone: z.string().nullable().openapi({ example: null }) })
    .openapi({ description: 'The fan, as the partner knows them.' }),
  state: z.enum(ENTRY_STATES).openapi({
    description:
      'WAITING, OFFERED (tickets held for the fan: see offer) are live; CONVERTED (bought), EXPIRED (the offer ran out), DECLINED, LEFT and CLOSED (the show’s list ended) are final. A final entry never comes back: joining again puts the fan at the back.',
    example: 'WAITING',
  }),
  position: z.number().int().nullable().openapi({
    description: '1 + the live entries that joined before this one; null once final. An order, not a promise: a returned listing goes to the earliest entry it satisfies (quantity, option, seats together).',
    example: 12,
  }),
  joinedAt: z.string().openapi({ example: '2026-03-01T12:00:00.000Z' }),
  offer: OfferSchema.nullable().openapi({ description: 'The live offer of an OFFERED entry; null otherwise.' }),
  endedAt: z.string().nullable().openapi({ example: null }),
  endReason: z.string().nullable().openapi({ example: null }),
};

export const WaitingListEntrySchema = z.object(entryShape).openapi('WaitingListEntry');
export const WaitingListEntryWithHistorySchema = z
  .object({ ...entryShape, history: z.array(HistoryItemSchema).openapi({ description: 'What happened to the entry, oldest first (append-only).' }) })
  .openapi('WaitingListEntryWithHistory');

export type WaitingListEntryApi = z.output<typeof WaitingListEntrySchema>;
type HistoryItemApi = z.output<typeof HistoryItemSchema>;

/** One history row as the API shows it: no internal keys, the listings and the reason read out of its data. */
function historyItemToApi(h: WaitingListHistoryItem): HistoryItemApi {
  const listingIds = Array.isArray(h.data.listingIds) ? h.data.listingIds.filter((id): id is string => typeof id === 'string') : [];
  return { seq: h.seq, kind: h.kind, at: toIso(h.at), offerId: h.offerId, listingIds, reason: typeof h.data.reason === 'string' ? h.data.reason : null };
}

/**
 * Entries as the API answers them: the service's primary keys read back as the partner's event,
 * show and option ids and the fan's identifiers, in a few batched reads whatever the count.
 */
export async function entriesToApi(tx: Tx, rows: readonly WaitingListEntry[], opts: { publicBaseUrl: string; lang: string }): Promise<WaitingListEntryApi[]> {
  if (rows.length === 0) return [];
  const shows = await showsWithEvents(tx, [...new Set(rows.map((r) => r.showPk))]);
  const options = await ticketOptionsByPks(tx, [...new Set(rows.flatMap((r) => (r.ticketOptionPk === null ? [] : [r.ticketOptionPk])))]);
  const users = await usersByPks(tx, [...new Set(rows.map((r) => r.userPk))]);
  const held = await offersHeld(tx, rows.flatMap((r) => (r.offer ? [r.offer] : [])));
  return rows.map((r) => {
    const found = shows.get(r.showPk);
    const user = users.get(r.userPk);
    // Rows of the partner's own shows and users (the service scoped them): a miss is a broken foreign key.
    if (!found || !user) throw new Error(`waitinglist: entry ${r.id} names a show or user that does not exist`);
    const offer = r.offer;
    return {
      id: r.id,
      externalReferenceEventId: found.event.externalReferenceId,
      showId: found.show.showId,
      ticketOptionId: r.ticketOptionPk === null ? null : (options.get(r.ticketOptionPk)?.ticketId ?? null),
      quantity: r.quantity,
      together: r.together,
      user: userToApi(user),
      state: r.state,
      position: r.position,
      joinedAt: toIso(r.joinedAt),
      offer: offer
        ? {
            id: offer.id,
            state: offer.state,
            intentionId: offer.intentionId,
            listingIds: offer.listingIds,
            quantity: offer.quantity,
            ...held.get(offer.id)!,
            notifyAt: toIso(offer.notifyAt),
            expiresAt: toIso(offer.expiresAt),
            checkoutUrl: serviceUrl(opts.publicBaseUrl, servicePaths.checkout(r.partnerId, offer.intentionId, { lang: opts.lang })),
          }
        : null,
      endedAt: r.endedAt === null ? null : toIso(r.endedAt),
      endReason: r.endReason,
    };
  });
}

/** What a live offer holds, as the API's offer says it. */
type OfferHeld = Pick<z.output<typeof OfferSchema>, 'ticketIds' | 'seats' | 'currency' | 'total'>;

/**
 * What live offers hold, as the API says it: the tickets (ids and seats, in the listings' order)
 * and what the fan pays (the intention's total). A fan has few live offers: read per offer.
 */
async function offersHeld(tx: Tx, offers: readonly WaitingListOffer[]): Promise<Map<string, OfferHeld>> {
  const out = new Map<string, OfferHeld>();
  for (const offer of offers) {
    const intention = await intentionById(tx, offer.intentionId);
    if (!intention) throw new Error(`waitinglist: offer ${offer.id} names intention ${offer.intentionId}, which does not exist`);
    const pairs = await ticketPksOfListings(tx, offer.listingIds);
    const order = new Map(offer.listingIds.map((id, i) => [id, i]));
    pairs.sort((a, b) => order.get(a.listingId)! - order.get(b.listingId)!);
    const seats = await ticketSeatsByPks(tx, pairs.map((p) => p.ticketPk));
    const tickets = pairs.map((p) => seats.get(p.ticketPk)).filter((t) => t !== undefined);
    out.set(offer.id, {
      ticketIds: tickets.map((t) => t.ticketId),
      seats: tickets.map((t) => ({ section: t.section, row: t.row, seat: t.seat })),
      currency: intention.currency,
      total: toMajor(intention.totalMinor, intention.currency),
    });
  }
  return out;
}

/** One entry with its history, as GET /v1/waitinglist/entries/{entryId} answers it. */
export async function entryWithHistoryToApi(tx: Tx, entry: WaitingListEntry & { history: WaitingListHistoryItem[] }, opts: { publicBaseUrl: string; lang: string }) {
  const [api] = await entriesToApi(tx, [entry], opts);
  return { ...api!, history: entry.history.map(historyItemToApi) };
}

// ------------------------------------------------------------------ the operator's export

/** Rows per page of the JSON export: the default and the most. */
export const EXPORT_PAGE_DEFAULT = 1_000;
export const EXPORT_PAGE_MAX = 5_000;

/** Query of the operator's export: the show, and the format. */
export const WaitingListExportQuery = ShowKeyQuery.extend({
  format: z.enum(['json', 'csv']).optional().openapi({ param: { name: 'format', in: 'query' }, description: 'json (default): a page in the envelope; csv: the whole history as a file, one row per history row.', example: 'csv' }),
  startingAfter: z.coerce.number().int().min(0).optional().openapi({ param: { name: 'startingAfter', in: 'query' }, description: 'JSON only: the previous page’s nextCursor (a `seq`).', example: 1000 }),
  limit: z.coerce.number().int().min(1).max(EXPORT_PAGE_MAX).optional().openapi({ param: { name: 'limit', in: 'query' }, description: `JSON only: rows per page, 1 to ${EXPORT_PAGE_MAX} (default ${EXPORT_PAGE_DEFAULT}).`, example: 500 }),
});


export const WaitingListExportRowSchema = z
  .object({
    seq: z.number().int().openapi({ description: 'The show’s sequence: the order things happened in.', example: 7 }),
    at: z.string().openapi({ example: '2026-03-01T12:00:00.000Z' }),
    kind: z.enum(HISTORY_KINDS).openapi({ example: 'joined' }),
    entryId: z.string().openapi({ example: 'wle_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    entrySeq: z.number().int().openapi({ description: 'The entry’s place in the line (its join number).', example: 3 }),
    offerId: z.string().nullable().openapi({ example: null }),
    userId: z.string().openapi({ description: 'How the partner knows the fan: its user id, else the e-mail, else the phone.', example: 'user-881' }),
    email: z.string().nullable().openapi({ example: 'fan@example.com' }),
    phone: z.string().nullable().openapi({ example: null }),
    ticketOptionId: z.string().nullable().openapi({ example: null }),
    quantity: z.number().int().openapi({ example: 2 }),
    together: z.boolean().openapi({ example: false }),
    listingIds: z.string().openapi({ description: 'The offered listings, space-separated.', example: '' }),
    reason: z.string().nullable().openapi({ example: null }),
  })
  .openapi('WaitingListHistoryExportRow');

/** The export's rows as CSV cells in {@link HISTORY_EXPORT_COLUMNS} order (booleans as `true`/`false`). */
export function exportRowCells(row: HistoryExportRow): (string | number | null)[] {
  return HISTORY_EXPORT_COLUMNS.map((column) => {
    const value = row[column];
    return typeof value === 'boolean' ? String(value) : value;
  });
}
