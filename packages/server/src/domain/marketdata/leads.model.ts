/**
 * The four kinds of lead (the spec's table; the names are ours, the spec shows none):
 * - TICKET_HOLDER: bought in the primary sale and owns a valid ticket (a potential seller);
 * - ABANDONED_CART: started a primary purchase and did not complete it;
 * - VIRTUAL_QUEUE: was in the virtual queue and left without buying;
 * - WISHLIST: subscribed to availability notifications (e-mailed once when resale stock appears).
 */
export const LEAD_TYPES = ['TICKET_HOLDER', 'ABANDONED_CART', 'VIRTUAL_QUEUE', 'WISHLIST'] as const;
export type LeadType = (typeof LEAD_TYPES)[number];
