import { dbTable, index, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { listings } from '../listings/listings.table.js';

/**
 * The channel side of a listing pushed by an external resale platform (a "channel").
 *
 * Why a side table keyed by listing id rather than new columns on `listings`: a channel
 * listing IS a `listings` row (with its tickets in `listing_tickets`), so the market, the
 * access layer, buy intentions (the one conditional `ACTIVE → RESERVED` update) and checkout
 * see it and sell it exactly like the partner's own listings, and it can never be sold twice.
 * What only channels need (who pushed it, under which id) lives here, and the listings
 * module stays unchanged.
 *
 * `externalListingId` is the channel's own id of the listing, unique per partner and
 * `channelId` forever: a second create with it answers 409 (see channels.service.ts).
 */
export const channelListings = dbTable(
  'channel_listings',
  {
    listingId: text()
      .primaryKey()
      .references(() => listings.id, { onDelete: 'cascade' }),
    partnerId: partnerColumn(),
    /** The platform that pushed it, as it names itself (`default` when it sent none). */
    channelId: text().notNull(),
    externalListingId: text().notNull(),
    /** The channel's opaque reference of its seller (never a person's data we act on). */
    sellerReference: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('channel_listings_external_uq').on(t.partnerId, t.channelId, t.externalListingId),
    index('channel_listings_partner_idx').on(t.partnerId, t.listingId),
  ],
);
