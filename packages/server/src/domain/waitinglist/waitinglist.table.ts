import { sql } from 'drizzle-orm';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { events, shows, ticketOptions } from '../events/events.table.js';
import { buyIntentions } from '../intentions/intentions.table.js';
import { users } from '../users/users.table.js';
import { ENTRY_SOURCES, ENTRY_STATES, HISTORY_KINDS, OFFER_STATES, PRICE_CAPS, type QuietHours } from './waitinglist.model.js';

/**
 * A show's waiting-list settings and its counters, one row per show that ever had them (no row:
 * the list is off). Its own table, not a rule nor the show's `configuration`: rules are per ticket
 * option while the line is per show and crosses options, and `configuration` is replaced whole by
 * every partner sync (PUT /v1/events, feeds, manual loads), which would drop an organiser's setting.
 *
 * `nextSeq` is the show's sequence, advanced under the show's lock (`serializeOn`): it numbers
 * both the entries (join order) and the history rows (the order of everything that happened to
 * the line), so an entry's `seq` is the `seq` of its `joined` row. `waiting` counts the live
 * entries, kept under the same lock, so "N fans waiting" and the price cap read one row.
 */
export const waitinglistSettings = dbTable('waitinglist_settings', {
  showPk: text()
    .primaryKey()
    .references(() => shows.id, { onDelete: 'cascade' }),
  partnerId: partnerColumn(),
  enabled: integer({ mode: 'boolean' }).notNull(),
  offerMinutes: integer().notNull(),
  quietHours: text({ mode: 'json' }).$type<QuietHours>(),
  priceCap: text({ enum: PRICE_CAPS }).notNull(),
  /** The last number handed out (0: none yet). */
  nextSeq: integer().notNull(),
  /** Live entries (WAITING or OFFERED). */
  waiting: integer().notNull(),
  ...timestamps,
});

/**
 * A fan's place in a show's line. At most one live entry (WAITING or OFFERED) per fan and show:
 * the unique partial index holds it whatever the concurrency, beside the service's own check.
 * `ticketOptionPk` null is any option of the show. A final entry is kept (the history names it).
 */
export const waitinglistEntries = dbTable(
  'waitinglist_entries',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    eventPk: text()
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    userPk: text()
      .notNull()
      .references(() => users.id),
    ticketOptionPk: text().references(() => ticketOptions.id, { onDelete: 'cascade' }),
    quantity: integer().notNull(),
    together: integer({ mode: 'boolean' }).notNull(),
    /** Join order within the show (the show's sequence, see `waitinglist_settings.next_seq`). */
    seq: integer().notNull(),
    state: text({ enum: ENTRY_STATES }).notNull(),
    source: text({ enum: ENTRY_SOURCES }).notNull(),
    joinedAt: integer().notNull(),
    endedAt: integer(),
    endReason: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('waitinglist_entries_show_seq_uq').on(t.showPk, t.seq),
    // One live entry per fan per show, on both engines.
    uniqueIndex('waitinglist_entries_live_uq').on(t.showPk, t.userPk).where(sql`state in ('WAITING', 'OFFERED')`),
    // A position is a count of the live entries before one: a range of this index.
    index('waitinglist_entries_live_seq_idx').on(t.showPk, t.seq).where(sql`state in ('WAITING', 'OFFERED')`),
    // The matcher's seek: the earliest WAITING entry of a class (quantity, together).
    index('waitinglist_entries_match_idx').on(t.showPk, t.state, t.quantity, t.together, t.seq),
    index('waitinglist_entries_user_idx').on(t.partnerId, t.userPk),
  ],
);

/**
 * An offer: listings held for one entry's fan by a buy intention (which holds them RESERVED,
 * so the never-double-sell statement and the checkout are the ordinary ones) until `expiresAt`.
 * At most one LIVE offer per entry (a unique partial index), so a fan never holds two offers of
 * one show. `notifyAt` is when the fan is told (after quiet hours; else when it is made).
 */
export const waitinglistOffers = dbTable(
  'waitinglist_offers',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    entryId: text()
      .notNull()
      .references(() => waitinglistEntries.id, { onDelete: 'cascade' }),
    intentionId: text()
      .notNull()
      .references(() => buyIntentions.id),
    listingIds: text({ mode: 'json' }).$type<string[]>().notNull(),
    quantity: integer().notNull(),
    state: text({ enum: OFFER_STATES }).notNull(),
    notifyAt: integer().notNull(),
    expiresAt: integer().notNull(),
    /** The offer's e-mail or SMS in the outbox, once queued. */
    messageId: text(),
    endedAt: integer(),
    endReason: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('waitinglist_offers_intention_uq').on(t.intentionId),
    uniqueIndex('waitinglist_offers_live_uq').on(t.entryId).where(sql`state = 'LIVE'`),
    index('waitinglist_offers_entry_idx').on(t.entryId, t.createdAt),
    index('waitinglist_offers_show_idx').on(t.showPk, t.state),
  ],
);

/**
 * Everything that happened to a show's line, in the show's sequence: append-only (the migrations
 * add triggers that refuse UPDATE and DELETE on both engines), so an operator's export shows that
 * nobody jumped the line. Its ids are plain text, not references: the record outlives what it names.
 */
export const waitinglistHistory = dbTable(
  'waitinglist_history',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text().notNull(),
    entryId: text().notNull(),
    offerId: text(),
    seq: integer().notNull(),
    kind: text({ enum: HISTORY_KINDS }).notNull(),
    at: integer().notNull(),
    /** What the row needs to be read alone: position, quantity, listing ids, reason … */
    data: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [uniqueIndex('waitinglist_history_show_seq_uq').on(t.showPk, t.seq), index('waitinglist_history_entry_idx').on(t.entryId, t.seq)],
);

/** A settings row as stored (others take it from waitinglist.queries.ts). */
export type WaitinglistSettingsRow = typeof waitinglistSettings.$inferSelect;
/** An entry as stored. */
export type WaitinglistEntryRow = typeof waitinglistEntries.$inferSelect;
/** An offer as stored (others take it from waitinglist.queries.ts). */
export type WaitinglistOfferRow = typeof waitinglistOffers.$inferSelect;
/** A history row as stored. */
export type WaitinglistHistoryRow = typeof waitinglistHistory.$inferSelect;
