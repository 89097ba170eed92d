import { and, asc, eq, gte, inArray, lte, ne, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { combinations, events, priceTypes, shows, ticketOptions } from './events.table.js';
import { jsonTextOrEmpty } from '../../db/dialect.js';

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

export function eventByPk(tx: Tx, eventPk: string): EventRow | undefined {
  return tx.select().from(events).where(eq(events.id, eventPk)).get();
}

/** A partner's event by the partner's id for it. */
export function eventByRef(tx: Tx, partnerId: string, externalReferenceId: string): EventRow | undefined {
  return tx.select().from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, externalReferenceId))).get();
}

export function showByPk(tx: Tx, showPk: string): ShowRow | undefined {
  return tx.select().from(shows).where(eq(shows.id, showPk)).get();
}

/** A show and its event, by the show's primary key. */
export function showWithEvent(tx: Tx, showPk: string): ShowWithEvent | undefined {
  return tx.select({ show: shows, event: events }).from(shows).innerJoin(events, eq(events.id, shows.eventPk)).where(eq(shows.id, showPk)).get();
}

/** Shows and their events for several primary keys, keyed by show primary key. */
export function showsWithEvents(tx: Tx, showPks: readonly string[]): Map<string, ShowWithEvent> {
  if (showPks.length === 0) return new Map();
  const rows = tx
    .select({ show: shows, event: events })
    .from(shows)
    .innerJoin(events, eq(events.id, shows.eventPk))
    .where(inArray(shows.id, [...new Set(showPks)]))
    .all();
  return new Map(rows.map((r) => [r.show.id, r]));
}

export function ticketOptionByPk(tx: Tx, optionPk: string): TicketOptionRow | undefined {
  return tx.select().from(ticketOptions).where(eq(ticketOptions.id, optionPk)).get();
}

export function priceTypeByPk(tx: Tx, priceTypePk: string): PriceTypeRow | undefined {
  return tx.select().from(priceTypes).where(eq(priceTypes.id, priceTypePk)).get();
}

/** The combination of a ticket option and a price type, when both are known. */
export function combinationOf(tx: Tx, optionPk: string, priceTypePk: string | null): CombinationRow | undefined {
  if (!priceTypePk) return undefined;
  return tx.select().from(combinations).where(and(eq(combinations.ticketOptionPk, optionPk), eq(combinations.priceTypePk, priceTypePk))).get();
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

export function externalRefs(tx: Tx, ids: { showPk: string; ticketOptionPk: string; priceTypePk: string | null }): ExternalRefs {
  const r = tx
    .select({ eventRef: events.externalReferenceId, showId: shows.showId, ticketOptionId: ticketOptions.ticketId })
    .from(shows)
    .innerJoin(events, eq(events.id, shows.eventPk))
    .innerJoin(ticketOptions, eq(ticketOptions.id, ids.ticketOptionPk))
    .where(eq(shows.id, ids.showPk))
    .get();
  if (!r) throw new Error(`No show ${ids.showPk} with ticket option ${ids.ticketOptionPk}`);
  const priceTypeId = ids.priceTypePk ? (priceTypeByPk(tx, ids.priceTypePk)?.priceTypeId ?? null) : null;
  return { ...r, priceTypeId };
}

/** The ticket options of a show (any order; `position` is the order sent at event creation). */
export function ticketOptionsOfShow(tx: Tx, showPk: string): TicketOptionRow[] {
  return tx.select().from(ticketOptions).where(eq(ticketOptions.showPk, showPk)).all();
}

/** The price types of a show (any order; `position` is the order sent at event creation). */
export function priceTypesOfShow(tx: Tx, showPk: string): PriceTypeRow[] {
  return tx.select().from(priceTypes).where(eq(priceTypes.showPk, showPk)).all();
}

/** The combinations of a show. */
export function combinationsOfShow(tx: Tx, showPk: string): CombinationRow[] {
  return tx.select().from(combinations).where(eq(combinations.showPk, showPk)).all();
}

/** A show of an event by the partner's show id. */
export function showOfEvent(tx: Tx, eventPk: string, showId: string): ShowRow | undefined {
  return tx.select().from(shows).where(and(eq(shows.eventPk, eventPk), eq(shows.showId, showId))).get();
}

/** The shows of an event, earliest first. */
export function showsOfEvent(tx: Tx, eventPk: string): ShowRow[] {
  return tx.select().from(shows).where(eq(shows.eventPk, eventPk)).orderBy(asc(shows.startsAt)).all();
}

/** A ticket option of a show by the partner's id for it (`ticketId`). */
export function ticketOptionOfShow(tx: Tx, showPk: string, ticketId: string): TicketOptionRow | undefined {
  return tx.select().from(ticketOptions).where(and(eq(ticketOptions.showPk, showPk), eq(ticketOptions.ticketId, ticketId))).get();
}

/** A price type of a show by the partner's id for it. */
export function priceTypeOfShow(tx: Tx, showPk: string, priceTypeId: string): PriceTypeRow | undefined {
  return tx.select().from(priceTypes).where(and(eq(priceTypes.showPk, showPk), eq(priceTypes.priceTypeId, priceTypeId))).get();
}

/** The ticket options of several shows, each show's in its order (`position`, then primary key). */
export function ticketOptionsOfShows(tx: Tx, showPks: readonly string[]): TicketOptionRow[] {
  if (showPks.length === 0) return [];
  return tx
    .select()
    .from(ticketOptions)
    .where(inArray(ticketOptions.showPk, [...new Set(showPks)]))
    .orderBy(asc(ticketOptions.showPk), asc(ticketOptions.position), asc(ticketOptions.id))
    .all();
}

/** Ticket options by primary key, keyed by it. */
export function ticketOptionsByPks(tx: Tx, optionPks: readonly string[]): Map<string, TicketOptionRow> {
  if (optionPks.length === 0) return new Map();
  return new Map(tx.select().from(ticketOptions).where(inArray(ticketOptions.id, [...new Set(optionPks)])).all().map((o) => [o.id, o]));
}

/** Price types by primary key, keyed by it (nulls are skipped). */
export function priceTypesByPks(tx: Tx, priceTypePks: readonly (string | null)[]): Map<string, PriceTypeRow> {
  const pks = [...new Set(priceTypePks.filter((pk): pk is string => pk !== null))];
  if (pks.length === 0) return new Map();
  return new Map(tx.select().from(priceTypes).where(inArray(priceTypes.id, pks)).all().map((p) => [p.id, p]));
}

/**
 * Prepared reads of an event, its show and the show's ticket options, for a hot path (the buy
 * access layer's snapshots, accesslayer.buy.cache.ts): prepared once on `db`, they build no SQL
 * per call, and may be called inside a transaction of `db`. `hasSeating` (1 when the event has
 * a seating chart, `svgCode` or `image`) is computed in SQL, so a large SVG is never parsed
 * into JavaScript.
 *
 * @example const reads = showSnapshotReads(db); const e = reads.eventByRef(partnerId, 'tour-2026');
 */
export function showSnapshotReads(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  const hasSeating = sql<number>`(${jsonTextOrEmpty(events.seating, 'svgCode')} <> '' or ${jsonTextOrEmpty(events.seating, 'image')} <> '')`.mapWith(Number);
  const event = db
    .select({ id: events.id, hasSeating })
    .from(events)
    .where(and(eq(events.partnerId, p('partnerId')), eq(events.externalReferenceId, p('eventId'))))
    .prepare();
  const eventByPk = db.select({ hasSeating }).from(events).where(eq(events.id, p('eventPk'))).prepare();
  const show = db
    .select({ id: shows.id, status: shows.status, resaleEnabled: shows.resaleEnabled, startsAt: shows.startsAt })
    .from(shows)
    .where(and(eq(shows.eventPk, p('eventPk')), eq(shows.showId, p('showId'))))
    .prepare();
  const showByPk = db.select({ status: shows.status, resaleEnabled: shows.resaleEnabled, startsAt: shows.startsAt }).from(shows).where(eq(shows.id, p('showPk'))).prepare();
  const options = db
    .select({ pk: ticketOptions.id, ticketOptionId: ticketOptions.ticketId, title: ticketOptions.title, currency: ticketOptions.currency, area: ticketOptions.area, webVisibility: ticketOptions.webVisibility })
    .from(ticketOptions)
    .where(eq(ticketOptions.showPk, p('showPk')))
    .orderBy(asc(ticketOptions.position), asc(ticketOptions.id))
    .prepare();
  return {
    /** The partner's event by its id: its primary key and seating flag. */
    eventByRef: (partnerId: string, eventId: string) => event.get({ partnerId, eventId }),
    /** The seating flag of an event by primary key. */
    eventSeating: (eventPk: string) => eventByPk.get({ eventPk }),
    /** A show of an event by the partner's show id. */
    showOfEvent: (eventPk: string, showId: string) => show.get({ eventPk, showId }),
    /** The status, resale flag and start of a show by primary key. */
    showState: (showPk: string) => showByPk.get({ showPk }),
    /** The ticket options of a show, in the show's order. */
    optionsOfShow: (showPk: string) => options.all({ showPk }),
  };
}

/** The shows of an event by the partner's show id (the order of its unique index). */
export function showsOfEventByShowId(tx: Tx, eventPk: string): ShowRow[] {
  return tx.select().from(shows).where(eq(shows.eventPk, eventPk)).orderBy(asc(shows.showId)).all();
}

/**
 * The ticketShield shows, not cancelled, that start between `from` and `to` (inclusive), with
 * their events: the shows whose QR unlock may be due (tickets.unlock.ts).
 */
export function shieldedShowsStartingBetween(tx: Tx, from: number, to: number): ShowWithEvent[] {
  return tx
    .select({ show: shows, event: events })
    .from(shows)
    .innerJoin(events, eq(events.id, shows.eventPk))
    .where(and(eq(shows.ticketShield, true), ne(shows.status, 'CANCELLED'), gte(shows.startsAt, from), lte(shows.startsAt, to)))
    .all();
}
