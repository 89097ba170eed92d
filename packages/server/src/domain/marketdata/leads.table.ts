import { LEAD_TYPES } from './leads.model.js';
import { sql } from 'drizzle-orm';
import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { events, shows } from '../events/events.table.js';


/** Seating of a lead's ticket, as the partner sent it. */
export interface LeadSeating {
  section?: string | undefined;
  row?: string | undefined;
  seat?: string | undefined;
  door?: string | undefined;
}

/**
 * A lead: a buyer of interest for one show, of one kind. One row per (partner, event, show,
 * buyer identity): the unique index is what makes `INSERT … ON CONFLICT DO UPDATE` an upsert
 * that can never duplicate, whatever the concurrency.
 *
 * `buyerKey` is the normalised identity (`id:<partner user id>`, else `email:<lower-cased
 * e-mail>`, else `phone:<E.164>`); the contact columns keep what was sent. The partner's
 * `ticketOptionId` and `priceTypeId` are kept as sent (checked against the show when written),
 * so the lead outlives a change of the show's options. Amounts are minor units of `currency`.
 */
export const leads = dbTable(
  'marketdata_leads',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    eventPk: text()
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    type: text({ enum: LEAD_TYPES }).notNull(),
    buyerKey: text().notNull(),
    buyerId: text(),
    buyerEmail: text(),
    buyerPhone: text(),
    buyerFirstName: text(),
    buyerLastName: text(),
    ticketOptionId: text(),
    priceTypeId: text(),
    /** When the lead happened, as the partner says (epoch ms). */
    date: integer(),
    ticketId: text(),
    priceMinor: integer(),
    currency: text(),
    seating: text({ mode: 'json' }).$type<LeadSeating>(),
    attributes: text({ mode: 'json' }).$type<string[]>().notNull(),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown>>(),
    /** WISHLIST: when the availability e-mail was put in the outbox; never reset, so it goes once. */
    notifiedAt: integer(),
    /** WISHLIST: the outbox message (`eml_…`), null when no message could be made. */
    notificationId: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('marketdata_leads_identity_uq').on(t.partnerId, t.eventPk, t.showPk, t.buyerKey),
    index('marketdata_leads_partner_idx').on(t.partnerId, t.id),
    // The wishlist job's scan: only the leads still waiting for their e-mail.
    index('marketdata_leads_wishlist_pending_idx')
      .on(t.showPk)
      .where(sql`type = 'WISHLIST' and notified_at is null and buyer_email is not null`),
  ],
);

export type LeadRow = typeof leads.$inferSelect;
