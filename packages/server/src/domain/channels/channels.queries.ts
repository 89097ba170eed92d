import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { channelListings } from './channels.table.js';

/** Reads of the channels module other modules may use. Only `channels.service.ts` writes channel listings. */
export type ChannelListingRow = typeof channelListings.$inferSelect;

/**
 * The channel side of a listing, or undefined for the partner's own listings. Checkout uses
 * it to skip the live ownership check (the channel vouches for its tickets) and the purchase
 * to mark the tickets of a channel sale in the partner's `ticket.update` webhook.
 */
export async function channelListingOf(tx: Tx, listingId: string): Promise<ChannelListingRow | undefined> {
  return (await tx.select().from(channelListings).where(eq(channelListings.listingId, listingId)).limit(1))[0];
}
