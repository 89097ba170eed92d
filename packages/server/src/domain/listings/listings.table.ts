import { dbTable, index, integer, primaryKey, text } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { events, priceTypes, shows, ticketOptions } from '../events/events.table.js';
import { tickets } from '../tickets/tickets.table.js';
import { users } from '../users/users.table.js';

import { LISTING_STATES, type ListingState } from './listings.model.js';

export { LISTING_STATES, type ListingState };

/**
 * A ticket, or the tickets of one order sold as a unit, offered for a price per ticket set
 * within the rules of their show, ticket option and combination. Amounts are per ticket,
 * in minor units of `currency`, fixed when the listing is priced.
 */
export const listings = dbTable(
  'listings',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
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
    sellerPk: text()
      .notNull()
      .references(() => users.id),
    /** The primary-sale order when the listing sells an order's tickets as one pack. */
    orderId: text(),
    quantity: integer().notNull(),
    state: text({ enum: LISTING_STATES }).notNull(),
    currency: text().notNull(),
    /** What the buyer pays for the ticket before the buyer fee. */
    priceMinor: integer().notNull(),
    buyerFeeMinor: integer().notNull(),
    sellerFeeMinor: integer().notNull(),
    /** What the seller receives per ticket: price minus seller fee. */
    payoutMinor: integer().notNull(),
    /** The buy intention holding the listing while RESERVED. */
    intentionId: text(),
    endReason: text(),
    soldAt: integer(),
    endedAt: integer(),
    ...timestamps,
  },
  (t) => [
    index('listings_show_state_idx').on(t.showPk, t.state, t.priceMinor),
    index('listings_seller_idx').on(t.sellerPk, t.state),
    index('listings_partner_idx').on(t.partnerId, t.createdAt),
  ],
);

/** The tickets of a listing. A ticket's current listing is the one not ended. */
export const listingTickets = dbTable(
  'listing_tickets',
  {
    listingId: text()
      .notNull()
      .references(() => listings.id, { onDelete: 'cascade' }),
    ticketPk: text()
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.listingId, t.ticketPk] }), index('listing_tickets_ticket_idx').on(t.ticketPk)],
);
