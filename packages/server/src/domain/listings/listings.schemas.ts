import { z } from '@hono/zod-openapi';
import { LISTING_STATES } from './listings.table.js';

export const ListingSchema = z
  .object({
    id: z.string().openapi({ example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    ticketIds: z.array(z.string()).openapi({ description: "The partner's ids of the tickets (several for an order sold as a pack).", example: ['tkt-000123'] }),
    orderId: z.string().nullable().openapi({ description: 'The order when the listing is a pack of its tickets, sold whole.' }),
    externalReferenceEventId: z.string(),
    showId: z.string(),
    ticketOptionId: z.string(),
    priceTypeId: z.string().nullable(),
    seller: z.object({ id: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() }),
    quantity: z.number().int(),
    state: z.enum(LISTING_STATES).openapi({
      description:
        'ACTIVE (on the market), RESERVED (held by one buyer’s checkout; cannot be removed), SOLD, TERMINATED (by the seller or because a ticket stopped being sellable; see endReason), DELISTED (by the organiser).',
    }),
    currency: z.string().openapi({ example: 'EUR' }),
    price: z.number().openapi({ description: 'Per ticket, before the buyer fee.', example: 52.5 }),
    buyerFee: z.number().openapi({ description: 'Per ticket.', example: 5.25 }),
    buyerTotal: z.number().openapi({ description: 'What the buyer pays per ticket.', example: 57.75 }),
    sellerFee: z.number().openapi({ description: 'Per ticket.', example: 2.63 }),
    payout: z.number().openapi({ description: 'What the seller receives per ticket.', example: 49.87 }),
    shareUrl: z.string().openapi({ description: 'Public link to the listing on the market (P2P).' }),
    endReason: z.string().nullable().openapi({ example: 'seller', description: 'seller, organiser, or ticket_<deleted|admitted|cancelled|owner_changed|moved>.' }),
    createdAt: z.string(),
    updatedAt: z.string(),
    soldAt: z.string().nullable(),
    endedAt: z.string().nullable(),
  })
  .openapi('Listing');

export const DelistSchema = z
  .strictObject({
    externalReferenceEventId: z.string().min(1).openapi({ example: 'tour-2026' }),
    showId: z.string().min(1).openapi({ example: 'show-1' }),
    ticketOptionId: z.string().min(1).optional().openapi({ example: 'opt-field' }),
    priceTypeId: z.string().min(1).optional().openapi({ example: 'pt-early', description: 'Only with ticketOptionId: the exact combination.' }),
  })
  .openapi('Delist');
