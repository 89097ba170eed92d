import { and, asc, count, desc, eq, gte, inArray, lte, min, ne, or, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { combinations, events, priceTypes, shows, ticketOptions } from './events.table.js';
import { jsonTextOrEmpty } from '../../db/dialect.js';
import { perConnection, prepared } from '../../db/statements.js';

/**
 * Reads of the events module that other modules may use (events, shows, ticket options,
 * price types, combinations). Only the events module writes these tables (events.service.ts);
 * everyone else reads them here, by the service's primary keys, so that no other module
 * imports `events.table.ts`.
 */
export type EventRow = typeof events.$inferSelect;
export type ShowRow = typeof shows.$inferSelect;
export type TicketOptionRow = typeof ticketOptions.$inferSelect;
export type PriceTypeRow = typeof priceTypes.$inferSelect;
export type CombinationRow = typeof combinations.$inferSelect;

/** A show with its event. */
export interface ShowWithEvent {
  show: ShowRow;
  event: EventRow;
}

export async function eventByPk(tx: Tx, eventPk: string): Promise<EventRow | undefined> {
  return (await tx.select().from(events).where(eq(events.id, eventPk)).limit(1))[0];
}

/** A partner's event by the partner's id for it. */
export async function eventByRef(tx: Tx, partnerId: string, externalReferenceId: string): Promise<EventRow | undefined> {
  return (await tx.select().from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, externalReferenceId))).limit(1))[0];
}

export async function showByPk(tx: Tx, showPk: string): Promise<ShowRow | undefined> {
  return (await tx.select().from(shows).where(eq(shows.id, showPk)).limit(1))[0];
}

/** A show and its event, by the show's primary key. */
export async function showWithEvent(tx: Tx, showPk: string): Promise<ShowWithEvent | undefined> {
  return (await tx.select({ show: shows, event: events }).from(shows).innerJoin(events, eq(events.id, shows.eventPk)).where(eq(shows.id, showPk)).limit(1))[0];
}

/** What a scan at the door reads of its ticket's show: its status, and the partner's ids of it and of its event. */
export interface ShowScanRef {
  status: ShowRow['status'];
  showId: string;
  externalReferenceEventId: string;
}

/**
 * {@link ShowScanRef} of a show by primary key (undefined: no such show). The online check of
 * rotating codes reads it for every scan (`AdmissionService.verify`): prepared once per
 * connection, and three columns, where {@link showWithEvent} builds its SQL each time and maps
 * both whole rows (the event's seating chart parsed from JSON).
 */
export async function showScanRef(tx: Tx, showPk: string): Promise<ShowScanRef | undefined> {
  return (await showScanRefStatement(tx).execute({ showPk }))[0];
}

const showScanRefStatement = perConnection((tx) =>
  prepared(
    tx
      .select({ status: shows.status, showId: shows.showId, externalReferenceEventId: events.externalReferenceId })
      .from(shows)
      .innerJoin(events, eq(events.id, shows.eventPk))
      .where(eq(shows.id, sql.placeholder('showPk'))),
    'events_showScanRef',
  ),
);

/** Shows and their events for several primary keys, keyed by show primary key. */
export async function showsWithEvents(tx: Tx, showPks: readonly string[]): Promise<Map<string, ShowWithEvent>> {
  if (showPks.length === 0) return new Map();
  const rows = await tx
    .select({ show: shows, event: events })
    .from(shows)
    .innerJoin(events, eq(events.id, shows.eventPk))
    .where(inArray(shows.id, [...new Set(showPks)]));
  return new Map(rows.map((r) => [r.show.id, r]));
}

export async function ticketOptionByPk(tx: Tx, optionPk: string): Promise<TicketOptionRow | undefined> {
  return (await tx.select().from(ticketOptions).where(eq(ticketOptions.id, optionPk)).limit(1))[0];
}

export async function priceTypeByPk(tx: Tx, priceTypePk: string): Promise<PriceTypeRow | undefined> {
  return (await tx.select().from(priceTypes).where(eq(priceTypes.id, priceTypePk)).limit(1))[0];
}

/** The combination of a ticket option and a price type, when both are known. */
export async function combinationOf(tx: Tx, optionPk: string, priceTypePk: string | null): Promise<CombinationRow | undefined> {
  if (!priceTypePk) return undefined;
  return (await tx.select().from(combinations).where(and(eq(combinations.ticketOptionPk, optionPk), eq(combinations.priceTypePk, priceTypePk))).limit(1))[0];
}

/**
 * The partner's ids of a show, its event and a ticket option (and price type), by primary
 * keys: what every answer and webhook about a listing or ticket names.
 */
export interface ExternalRefs {
  eventRef: string;
  showId: string;
  ticketOptionId: string;
  priceTypeId: string | null;
}

export async function externalRefs(tx: Tx, ids: { showPk: string; ticketOptionPk: string; priceTypePk: string | null }): Promise<ExternalRefs> {
  const r = (await tx
    .select({ eventRef: events.externalReferenceId, showId: shows.showId, ticketOptionId: ticketOptions.ticketId })
    .from(shows)
    .innerJoin(events, eq(events.id, shows.eventPk))
    .innerJoin(ticketOptions, eq(ticketOptions.id, ids.ticketOptionPk))
    .where(eq(shows.id, ids.showPk)).limit(1))[0];
  if (!r) throw new Error(`No show ${ids.showPk} with ticket option ${ids.ticketOptionPk}`);
  const priceTypeId = ids.priceTypePk ? ((await priceTypeByPk(tx, ids.priceTypePk))?.priceTypeId ?? null) : null;
  return { ...r, priceTypeId };
}

/** The ticket options of a show (any order; `position` is the order sent at event creation). */
export async function ticketOptionsOfShow(tx: Tx, showPk: string): Promise<TicketOptionRow[]> {
  return await tx.select().from(ticketOptions).where(eq(ticketOptions.showPk, showPk));
}

/** The price types of a show (any order; `position` is the order sent at event creation). */
export async function priceTypesOfShow(tx: Tx, showPk: string): Promise<PriceTypeRow[]> {
  return await tx.select().from(priceTypes).where(eq(priceTypes.showPk, showPk));
}

/** The combinations of a show. */
export async function combinationsOfShow(tx: Tx, showPk: string): Promise<CombinationRow[]> {
  return await tx.select().from(combinations).where(eq(combinations.showPk, showPk));
}

/** A show of an event by the partner's show id. */
export async function showOfEvent(tx: Tx, eventPk: string, showId: string): Promise<ShowRow | undefined> {
  return (await tx.select().from(shows).where(and(eq(shows.eventPk, eventPk), eq(shows.showId, showId))).limit(1))[0];
}

/** The shows of an event, earliest first. */
export async function showsOfEvent(tx: Tx, eventPk: string): Promise<ShowRow[]> {
  return await tx.select().from(shows).where(eq(shows.eventPk, eventPk)).orderBy(asc(shows.startsAt));
}

/** A ticket option of a show by the partner's id for it (`ticketId`). */
export async function ticketOptionOfShow(tx: Tx, showPk: string, ticketId: string): Promise<TicketOptionRow | undefined> {
  return (await tx.select().from(ticketOptions).where(and(eq(ticketOptions.showPk, showPk), eq(ticketOptions.ticketId, ticketId))).limit(1))[0];
}

/** A price type of a show by the partner's id for it. */
export async function priceTypeOfShow(tx: Tx, showPk: string, priceTypeId: string): Promise<PriceTypeRow | undefined> {
  return (await tx.select().from(priceTypes).where(and(eq(priceTypes.showPk, showPk), eq(priceTypes.priceTypeId, priceTypeId))).limit(1))[0];
}

/** The ticket options of several shows, each show's in its order (`position`, then primary key). */
export async function ticketOptionsOfShows(tx: Tx, showPks: readonly string[]): Promise<TicketOptionRow[]> {
  if (showPks.length === 0) return [];
  return await tx
    .select()
    .from(ticketOptions)
    .where(inArray(ticketOptions.showPk, [...new Set(showPks)]))
    .orderBy(asc(ticketOptions.showPk), asc(ticketOptions.position), asc(ticketOptions.id));
}

/** Ticket options by primary key, keyed by it. */
export async function ticketOptionsByPks(tx: Tx, optionPks: readonly string[]): Promise<Map<string, TicketOptionRow>> {
  if (optionPks.length === 0) return new Map();
  return new Map((await tx.select().from(ticketOptions).where(inArray(ticketOptions.id, [...new Set(optionPks)]))).map((o) => [o.id, o]));
}

/** Price types by primary key, keyed by it (nulls are skipped). */
export async function priceTypesByPks(tx: Tx, priceTypePks: readonly (string | null)[]): Promise<Map<string, PriceTypeRow>> {
  const pks = [...new Set(priceTypePks.filter((pk): pk is string => pk !== null))];
  if (pks.length === 0) return new Map();
  return new Map((await tx.select().from(priceTypes).where(inArray(priceTypes.id, pks))).map((p) => [p.id, p]));
}

/**
 * Prepared reads of an event, its show and the show's ticket options, for a hot path (the buy
 * access layer's snapshots, accesslayer.buy.cache.ts): prepared once per connection (`perConnection`), they build no SQL
 * per call and run on the connection of the handle they are asked with. `hasSeating` (1 when the event has
 * a seating chart, `svgCode` or `image`) is computed in SQL, so a large SVG is never parsed
 * into JavaScript.
 *
 * @example const e = await showSnapshotReads(tx).eventByRef(partnerId, 'tour-2026');
 */
export const showSnapshotReads = perConnection((db: Tx) => {
  const p = (name: string) => sql.placeholder(name);
  const hasSeating = sql<number>`(${jsonTextOrEmpty(events.seating, 'svgCode')} <> '' or ${jsonTextOrEmpty(events.seating, 'image')} <> '')`.mapWith(Number);
  const event = prepared(db
    .select({ id: events.id, hasSeating })
    .from(events)
    .where(and(eq(events.partnerId, p('partnerId')), eq(events.externalReferenceId, p('eventId')))), 'events_event');
  const eventByPk = prepared(db.select({ hasSeating }).from(events).where(eq(events.id, p('eventPk'))), 'events_eventByPk');
  const show = prepared(db
    .select({ id: shows.id, status: shows.status, resaleEnabled: shows.resaleEnabled, startsAt: shows.startsAt })
    .from(shows)
    .where(and(eq(shows.eventPk, p('eventPk')), eq(shows.showId, p('showId')))), 'events_show');
  const showByPk = prepared(db.select({ status: shows.status, resaleEnabled: shows.resaleEnabled, startsAt: shows.startsAt }).from(shows).where(eq(shows.id, p('showPk'))), 'events_showByPk');
  const options = prepared(db
    .select({ pk: ticketOptions.id, ticketOptionId: ticketOptions.ticketId, title: ticketOptions.title, currency: ticketOptions.currency, area: ticketOptions.area, webVisibility: ticketOptions.webVisibility })
    .from(ticketOptions)
    .where(eq(ticketOptions.showPk, p('showPk')))
    .orderBy(asc(ticketOptions.position), asc(ticketOptions.id)), 'events_options');
  return {
    /** The partner's event by its id: its primary key and seating flag. */
    eventByRef: async (partnerId: string, eventId: string) => (await event.execute({ partnerId, eventId }))[0],
    /** The seating flag of an event by primary key. */
    eventSeating: async (eventPk: string) => (await eventByPk.execute({ eventPk }))[0],
    /** A show of an event by the partner's show id. */
    showOfEvent: async (eventPk: string, showId: string) => (await show.execute({ eventPk, showId }))[0],
    /** The status, resale flag and start of a show by primary key. */
    showState: async (showPk: string) => (await showByPk.execute({ showPk }))[0],
    /** The ticket options of a show, in the show's order. */
    optionsOfShow: async (showPk: string) => await options.execute({ showPk }),
  };
});

/** The shows of an event by the partner's show id (the order of its unique index). */
export async function showsOfEventByShowId(tx: Tx, eventPk: string): Promise<ShowRow[]> {
  return await tx.select().from(shows).where(eq(shows.eventPk, eventPk)).orderBy(asc(shows.showId));
}

/**
 * The ticketShield shows, not cancelled, that start between `from` and `to` (inclusive), with
 * their events: the shows whose QR unlock may be due (tickets.unlock.ts).
 */
export async function shieldedShowsStartingBetween(tx: Tx, from: number, to: number): Promise<ShowWithEvent[]> {
  return await tx
    .select({ show: shows, event: events })
    .from(shows)
    .innerJoin(events, eq(events.id, shows.eventPk))
    .where(and(eq(shows.ticketShield, true), ne(shows.status, 'CANCELLED'), gte(shows.startsAt, from), lte(shows.startsAt, to)));
}

/** An event in a partner's list: its ids and title, how many shows it has and when the first starts. */
export interface EventListItem {
  eventPk: string;
  externalReferenceId: string;
  title: string;
  source: EventRow['source'];
  createdAt: number;
  shows: number;
  /** The start of its earliest show (epoch ms); null when it has none. */
  firstShowAt: number | null;
}

/**
 * A page of a partner's events whose title or id contains `term`, ignoring case (every event
 * when `term` is empty; `%`, `_` and `\` match themselves), newest first: at most `limit`,
 * after skipping `offset`.
 */
export async function searchEvents(tx: Tx, partnerId: string, term: string, page: { limit: number; offset: number }): Promise<EventListItem[]> {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  // lower() on both sides and an explicit ESCAPE: the same matching on SQLite and PostgreSQL (see searchPartners).
  const contains = (column: typeof events.title | typeof events.externalReferenceId) => sql`lower(${column}) like ${pattern} escape '\\'`;
  const rows = await tx
    .select({
      eventPk: events.id,
      externalReferenceId: events.externalReferenceId,
      title: events.title,
      source: events.source,
      createdAt: events.createdAt,
      shows: count(shows.id),
      firstShowAt: min(shows.startsAt),
    })
    .from(events)
    .leftJoin(shows, eq(shows.eventPk, events.id))
    .where(and(eq(events.partnerId, partnerId), term ? or(contains(events.title), contains(events.externalReferenceId)) : undefined))
    .groupBy(events.id)
    .orderBy(desc(events.createdAt), desc(events.id))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map((r) => ({ ...r, shows: Number(r.shows), firstShowAt: r.firstShowAt === null ? null : Number(r.firstShowAt) }));
}
