import { sql } from 'drizzle-orm';
import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { events, priceTypes, shows, ticketOptions } from '../events/events.table.js';
import { users } from '../users/users.table.js';

/** Lifecycle states of a ticket (see tickets.schemas.ts for the transitions). */
export const TICKET_STATES = ['VALID', 'LISTED', 'SOLD', 'ADMITTED', 'DELETED', 'CANCELLED'] as const;
export type TicketState = (typeof TICKET_STATES)[number];

/** How the holder gets in: a URL to the QR, an API-delivered credential, or a plain code. */
export interface TicketAccess {
  type: 'URL' | 'API' | 'OTHER';
  locator: string;
  status?: string | undefined;
}

/** A ticket owned by a user; the partner's `ticketId` is unique within the partner. */
export const tickets = dbTable(
  'tickets',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    ticketId: text().notNull(),
    eventPk: text()
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    ticketOptionPk: text()
      .notNull()
      .references(() => ticketOptions.id, { onDelete: 'cascade' }),
    priceTypePk: text().references(() => priceTypes.id, { onDelete: 'cascade' }),
    ownerPk: text()
      .notNull()
      .references(() => users.id),
    state: text({ enum: TICKET_STATES }).notNull(),
    /** Final price paid by the user, minor units; null when not sent. */
    priceMinor: integer(),
    currency: text(),
    ticketAccess: text({ mode: 'json' }).$type<TicketAccess>().notNull(),
    buyerEmailExternal: text(),
    primarySaleBuyerData: text({ mode: 'json' }).$type<Record<string, unknown>>(),
    nominalTicket: text({ mode: 'json' }).$type<Record<string, unknown>>(),
    props: text({ mode: 'json' }).$type<Record<string, unknown>>(),
    primarySalesFee: text({ mode: 'json' }).$type<Record<string, unknown>>(),
    flags: text({ mode: 'json' }).$type<Record<string, unknown>>(),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    section: text(),
    row: text(),
    seat: text(),
    /** The primary-sale order the ticket belongs to (sell-order flow, will-call). */
    orderId: text(),
    admittedAt: integer(),
    /** When the owner was told the QR unlocked (e-mail with the PDF); null until then. */
    unlockNotifiedAt: integer(),
    deletedAt: integer(),
    cancelledAt: integer(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('tickets_partner_ticket_uq').on(t.partnerId, t.ticketId),
    index('tickets_show_state_idx').on(t.showPk, t.state),
    index('tickets_owner_idx').on(t.ownerPk),
    // Partial: most tickets have no order id, and PostgreSQL's planner, before a table's first
    // ANALYZE, took a full (partner_id, order_id) index for lookups by ticket id (831 against
    // 11,254 tickets/s ingested into fresh tables, bench/tickets-ingest.ts).
    index('tickets_order_idx').on(t.partnerId, t.orderId).where(sql`${t.orderId} is not null`),
  ],
);

/** Per-item outcome of an ingestion job. */
export interface TicketJobResult {
  index: number;
  ticketId: string | null;
  status: 'created' | 'updated' | 'rejected';
  errors?: { code: string; message: string; path?: string }[];
}

/**
 * The durable queue of POST /v1/tickets: the accepted items are stored with the job in the
 * transaction that answers the request; a worker applies every item and marks the job done
 * in one transaction (several jobs per transaction, `TicketsIngest.drain`, tickets.ingest.ts), so a
 * job is either queued or done: a crash rolls its transaction back, and the job is applied
 * whole, once, by the next drain. No worker holds a job across transactions (no lease).
 */
export const ticketJobs = dbTable(
  'ticket_jobs',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    state: text({ enum: ['queued', 'done'] }).notNull(),
    total: integer().notNull(),
    items: text({ mode: 'json' }).$type<unknown[]>().notNull(),
    results: text({ mode: 'json' }).$type<TicketJobResult[]>().notNull(),
    created: integer().notNull(),
    updated: integer().notNull(),
    rejected: integer().notNull(),
    attempts: integer().notNull(),
    createdAt: integer().notNull(),
    startedAt: integer(),
    finishedAt: integer(),
  },
  (t) => [index('ticket_jobs_state_idx').on(t.state, t.createdAt), index('ticket_jobs_partner_idx').on(t.partnerId, t.createdAt)],
);
