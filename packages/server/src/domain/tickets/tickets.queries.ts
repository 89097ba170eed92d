import { and, count, eq, inArray, min, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { perConnection, prepared } from '../../db/statements.js';
import { ticketJobs, tickets } from './tickets.table.js';

/**
 * Reads of the tickets module other modules may use. Only the tickets module writes the
 * tickets and ticket job tables (`tickets.service.ts`, the aggregate; `tickets.ingest.ts`,
 * the ingestion queue).
 */
export type TicketRow = typeof tickets.$inferSelect;

/** A ticket of a partner by the partner's ticket id. */
export async function ticketByRef(tx: Tx, partnerId: string, ticketId: string): Promise<TicketRow | undefined> {
  return (await tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, ticketId))).limit(1))[0];
}

/** What a scan at the door reads of a ticket: {@link ticketForScan}. */
export type TicketScanRow = Pick<TicketRow, 'id' | 'partnerId' | 'ticketId' | 'showPk' | 'ownerPk' | 'state' | 'admittedAt' | 'section' | 'row' | 'seat'>;

/**
 * {@link TicketScanRow} of a ticket by primary key (any partner's: the caller scopes it). The
 * online check of rotating codes reads it for every scan (`AdmissionService.verify`): prepared
 * once per connection, and only these columns (the whole row parses its JSON columns).
 */
export async function ticketForScan(tx: Tx, ticketPk: string): Promise<TicketScanRow | undefined> {
  return (await ticketForScanStatement(tx).execute({ ticketPk }))[0];
}

const ticketForScanStatement = perConnection((tx) =>
  prepared(
    tx
      .select({
        id: tickets.id,
        partnerId: tickets.partnerId,
        ticketId: tickets.ticketId,
        showPk: tickets.showPk,
        ownerPk: tickets.ownerPk,
        state: tickets.state,
        admittedAt: tickets.admittedAt,
        section: tickets.section,
        row: tickets.row,
        seat: tickets.seat,
      })
      .from(tickets)
      .where(eq(tickets.id, sql.placeholder('ticketPk'))),
    'tickets_ticketForScan',
  ),
);

/** Tickets of a partner by primary key, in no particular order. */
export async function ticketsByPks(tx: Tx, partnerId: string, ticketPks: readonly string[]): Promise<TicketRow[]> {
  if (ticketPks.length === 0) return [];
  return await tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), inArray(tickets.id, [...ticketPks])));
}

/** Tickets by primary key (keys read from a row of ours, so no partner filter), in no particular order. */
export async function ticketRowsByPks(tx: Tx, ticketPks: readonly string[]): Promise<TicketRow[]> {
  if (ticketPks.length === 0) return [];
  return await tx.select().from(tickets).where(inArray(tickets.id, [...ticketPks]));
}

/** Every ticket of a show (by its `tickets_show_state_idx`): for reads of a whole show, where a list of ids would pass SQL's limit on parameters (a stadium's 60,000). */
export async function ticketRowsOfShow(tx: Tx, showPk: string): Promise<TicketRow[]> {
  return await tx.select().from(tickets).where(eq(tickets.showPk, showPk));
}

/** Where a ticket sits, as the partner sent it. */
export interface TicketSeat {
  ticketId: string;
  section: string | null;
  row: string | null;
  seat: string | null;
}

/** Primary keys per statement in bulk reads (below SQLite's limit of bound parameters). */
const IN_CHUNK = 5_000;

/**
 * The seats of tickets by primary key (keys read from rows of ours), keyed by it: only the
 * columns a market or seat map shows, in statements of {@link IN_CHUNK} keys.
 */
export async function ticketSeatsByPks(tx: Tx, ticketPks: readonly string[]): Promise<Map<string, TicketSeat>> {
  const out = new Map<string, TicketSeat>();
  const pks = [...new Set(ticketPks)];
  for (let i = 0; i < pks.length; i += IN_CHUNK) {
    const rows = await tx
      .select({ id: tickets.id, ticketId: tickets.ticketId, section: tickets.section, row: tickets.row, seat: tickets.seat })
      .from(tickets)
      .where(inArray(tickets.id, pks.slice(i, i + IN_CHUNK)));
    for (const { id, ...seat } of rows) out.set(id, seat);
  }
  return out;
}

/** The tickets of a primary-sale order of a partner in one show, in insertion order. */
export async function ticketsOfOrder(tx: Tx, partnerId: string, orderId: string, showPk: string): Promise<TicketRow[]> {
  return await tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.orderId, orderId), eq(tickets.showPk, showPk)));
}

/** The tickets of a partner with these ids that a user owns and are in one of `states` (any order). */
export async function ownedTicketsByRefs(tx: Tx, partnerId: string, ownerPk: string, ticketIds: readonly string[], states: readonly TicketRow['state'][]): Promise<TicketRow[]> {
  if (ticketIds.length === 0 || states.length === 0) return [];
  return await tx
    .select()
    .from(tickets)
    .where(and(eq(tickets.partnerId, partnerId), inArray(tickets.ticketId, [...ticketIds]), eq(tickets.ownerPk, ownerPk), inArray(tickets.state, [...states])));
}

/** A ticket by primary key (any partner's: the caller scopes it, e.g. by a signed token). */
export async function ticketByPk(tx: Tx, ticketPk: string): Promise<TicketRow | undefined> {
  return (await tx.select().from(tickets).where(eq(tickets.id, ticketPk)).limit(1))[0];
}

/**
 * The ingestion queue's backlog: jobs not yet applied (queued)
 * and when the oldest of them was accepted (clock ms; null when there is none). Two
 * aggregates over `ticket_jobs_state_idx`; read by the metrics scrape (every partner) and the
 * console's overview (one partner's with `partnerId`).
 */
export async function ticketJobBacklog(tx: Tx, partnerId?: string): Promise<{ count: number; oldestAt: number | null }> {
  const row = (await tx
    .select({ n: count(), oldest: min(ticketJobs.createdAt) })
    .from(ticketJobs)
    .where(and(eq(ticketJobs.state, 'queued'), partnerId !== undefined ? eq(ticketJobs.partnerId, partnerId) : undefined)))[0];
  return { count: Number(row?.n ?? 0), oldestAt: row?.oldest == null ? null : Number(row.oldest) };
}

/**
 * How many tickets each of `showPks` has in each state (a state with none is absent), by
 * `tickets_show_state_idx`: the console's inventory of a show.
 */
export async function ticketCountsOfShows(tx: Tx, showPks: readonly string[]): Promise<Map<string, Partial<Record<TicketRow['state'], number>>>> {
  const out = new Map<string, Partial<Record<TicketRow['state'], number>>>();
  if (showPks.length === 0) return out;
  const rows = await tx
    .select({ showPk: tickets.showPk, state: tickets.state, n: count() })
    .from(tickets)
    .where(inArray(tickets.showPk, [...new Set(showPks)]))
    .groupBy(tickets.showPk, tickets.state);
  for (const r of rows) {
    const counts = out.get(r.showPk) ?? {};
    counts[r.state] = Number(r.n);
    out.set(r.showPk, counts);
  }
  return out;
}
