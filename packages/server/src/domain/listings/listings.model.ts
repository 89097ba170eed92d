/**
 * Listing states (other modules import them from here, never from the table file):
 * - ACTIVE: on the market;
 * - RESERVED: held by one live buy intention (cannot be pulled by the seller: 409);
 * - SOLD: paid for; the tickets moved to the buyer;
 * - TERMINATED: ended by its seller, or because a ticket of it stopped being sellable
 *   (deleted, admitted, show cancelled, owner changed): see `endReason`;
 * - DELISTED: removed by the organiser (POST /v1/delist); the seller was e-mailed.
 */
export const LISTING_STATES = ['ACTIVE', 'RESERVED', 'SOLD', 'TERMINATED', 'DELISTED'] as const;
export type ListingState = (typeof LISTING_STATES)[number];
