import { z } from '@hono/zod-openapi';

/**
 * Request and response schemas of the Channels group (`/v1/channels/…`), where an external
 * resale platform (a channel) pushes its resale listings into the partner's market.
 *
 * - Money: `price` is per ticket, in major units of `currency`, before the buyer fee (a number
 *   or a numeric string); `currency` must be the ticket option's.
 * - Ids: `id` is the service's listing id (`lst_…`), the one the other endpoints take in the
 *   path; `externalListingId` is the channel's, unique per partner and `channelId`.
 * - States: see {@link CHANNEL_LISTING_STATES}.
 */

/** Tickets one channel listing may hold (they are sold together). Same bound as one checkout. */
export const MAX_CHANNEL_QUANTITY = 20;
export const CHANNEL_PAGE_DEFAULT = 50;
export const CHANNEL_PAGE_MAX = 200;
/** The channel name used when a platform sends none (one platform per channels key). */
export const DEFAULT_CHANNEL_ID = 'default';

/**
 * States of a channel listing as the channel sees them:
 * - ACTIVE: on the partner's market;
 * - RESERVED: held by a buyer's checkout (cannot be repriced or withdrawn: 409);
 * - SOLD: paid for; deliver the tickets (see the partner's `ticket.update` webhook);
 * - WITHDRAWN: withdrawn by the channel;
 * - ENDED: ended by the market: the show was cancelled or has started, the partner delisted
 *   it or removed its tickets (`endReason` says which).
 */
export const CHANNEL_LISTING_STATES = ['ACTIVE', 'RESERVED', 'SOLD', 'WITHDRAWN', 'ENDED'] as const;
export type ChannelListingState = (typeof CHANNEL_LISTING_STATES)[number];

/** Why a channel listing is WITHDRAWN or ENDED. */
export const CHANNEL_END_REASONS = ['withdrawn', 'show_cancelled', 'show_started', 'delisted', 'removed'] as const;
export type ChannelEndReason = (typeof CHANNEL_END_REASONS)[number];

const id = (max = 128) => z.string().trim().min(1).max(max);

const channelIdSchema = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit')
    .openapi({
      description: `Which platform pushes the listing, as it names itself. Optional: a partner has one channels key; platforms that share it tell themselves apart with this. Default \`${DEFAULT_CHANNEL_ID}\`.`,
      example: 'resellr',
    });

const priceInput = () =>
  z
    .union([z.number().positive('must be more than 0').max(1_000_000_000), z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal amount such as 19.99')])
    .openapi({ description: "Per ticket, major units of `currency`, before the buyer fee. The partner's price rules (minimum, maximum, fixed price) apply.", example: 52.5 });

const currencyInput = () =>
  z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 currency code')
    .transform((c) => c.toUpperCase())
    .openapi({ description: "ISO 4217 code; must be the ticket option's currency.", example: 'EUR' });

const label = () => z.string().trim().min(1).max(50);

export const ChannelSeatSchema = z
  .strictObject({
    section: label().optional().openapi({ description: 'Section.', example: 'A' }),
    row: label().optional().openapi({ description: 'Row.', example: '12' }),
    seat: label().optional().openapi({ description: 'Seat.', example: '7' }),
  })
  .refine((s) => s.section !== undefined || s.row !== undefined || s.seat !== undefined, 'needs a section, a row or a seat')
  .openapi('ChannelSeat', { description: 'Where one ticket of the listing is.' });

export const ChannelListingCreateSchema = z
  .strictObject({
    channelId: channelIdSchema().optional(),
    externalListingId: id().openapi({ description: 'The channel’s id of this listing; unique per partner and channelId (a second create with it answers 409).', example: 'rs-884120' }),
    externalReferenceEventId: id(255).openapi({ description: "The partner's event id.", example: 'tour-2026' }),
    showId: id(255).openapi({ description: "The partner's show id.", example: 'show-1' }),
    ticketOptionId: id(255).openapi({ description: "The partner's ticket option id.", example: 'opt-field' }),
    priceTypeId: id(255).optional().openapi({ description: "The partner's price type id; the option and price type must form a combination.", example: 'pt-standard' }),
    quantity: z
      .number()
      .int()
      .min(1)
      .max(MAX_CHANNEL_QUANTITY)
      .openapi({ description: `Tickets in the listing, sold together (1 to ${MAX_CHANNEL_QUANTITY}).`, example: 2 }),
    price: priceInput(),
    currency: currencyInput(),
    seats: z
      .array(ChannelSeatSchema)
      .min(1)
      .max(MAX_CHANNEL_QUANTITY)
      .optional()
      .openapi({ description: 'Where each ticket is, one entry per ticket (as many as quantity). Omit for unnumbered tickets.', example: [{ section: 'A', row: '12', seat: '7' }, { section: 'A', row: '12', seat: '8' }] }),
    sellerReference: id().optional().openapi({ description: 'The channel’s opaque reference of its seller, echoed back (and in the partner’s ticket.update webhook). Not a person’s e-mail or name.', example: 'seller-5521' }),
  })
  .openapi('ChannelListingCreate');

export const ChannelListingUpdateSchema = z
  .strictObject({
    price: priceInput(),
    currency: currencyInput().optional(),
  })
  .openapi('ChannelListingUpdate', { description: 'A new price per ticket for an ACTIVE listing.' });

export const ChannelListingIdParam = z.object({
  listingId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'listingId', in: 'path' }, description: 'The service’s listing id, as the create answered it.', example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
});

export const ChannelListingQuerySchema = z.object({
  channelId: channelIdSchema().optional().openapi({ param: { name: 'channelId', in: 'query' }, description: 'Only listings of this channel.', example: 'resellr' }),
  externalListingId: id().optional().openapi({ param: { name: 'externalListingId', in: 'query' }, description: 'Only the listing with this channel id (find a listing by your own id).', example: 'rs-884120' }),
  externalReferenceEventId: id(255).optional().openapi({ param: { name: 'externalReferenceEventId', in: 'query' }, description: 'Only listings of this event.', example: 'tour-2026' }),
  showId: id(255).optional().openapi({ param: { name: 'showId', in: 'query' }, description: 'Only listings of this show (needs externalReferenceEventId).', example: 'show-1' }),
  state: z.enum(CHANNEL_LISTING_STATES).optional().openapi({ param: { name: 'state', in: 'query' }, description: 'Only listings in this state.', example: 'SOLD' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(CHANNEL_PAGE_MAX)
    .default(CHANNEL_PAGE_DEFAULT)
    .openapi({ param: { name: 'limit', in: 'query' }, description: `Page size, 1 to ${CHANNEL_PAGE_MAX}.`, example: CHANNEL_PAGE_DEFAULT }),
  startingAfter: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ param: { name: 'startingAfter', in: 'query' }, description: 'The previous page’s nextCursor.', example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
});
export type ChannelListingQuery = z.infer<typeof ChannelListingQuerySchema>;

export const ChannelListingSchema = z
  .object({
    id: z.string().openapi({ description: 'The service’s listing id (the one buyers’ checkouts and the partner’s webhooks name).', example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    channelId: z.string().openapi({ example: 'resellr' }),
    externalListingId: z.string().openapi({ example: 'rs-884120' }),
    sellerReference: z.string().nullable().openapi({ example: 'seller-5521' }),
    externalReferenceEventId: z.string().openapi({ example: 'tour-2026' }),
    showId: z.string().openapi({ example: 'show-1' }),
    ticketOptionId: z.string().openapi({ example: 'opt-field' }),
    priceTypeId: z.string().nullable().openapi({ example: 'pt-standard' }),
    quantity: z.number().int().openapi({ example: 2 }),
    tickets: z
      .array(
        z.object({
          ticketId: z.string().openapi({ description: 'The id the service gave the ticket (`<listing id>-<n>`); the partner’s ticket.update webhook names it.', example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q-1' }),
          section: z.string().nullable().openapi({ example: 'A' }),
          row: z.string().nullable().openapi({ example: '12' }),
          seat: z.string().nullable().openapi({ example: '7' }),
        }),
      )
      .openapi({ description: 'One entry per ticket, in the order of seats.' }),
    state: z.enum(CHANNEL_LISTING_STATES).openapi({
      description:
        'ACTIVE (on the market), RESERVED (in a buyer’s checkout: cannot be repriced or withdrawn), SOLD (deliver the tickets), WITHDRAWN (by the channel), ENDED (show cancelled or started, delisted by the organiser, or its tickets removed by the partner; see endReason).',
      example: 'ACTIVE',
    }),
    endReason: z.enum(CHANNEL_END_REASONS).nullable().openapi({ description: 'Set when WITHDRAWN or ENDED.', example: null }),
    currency: z.string().openapi({ example: 'EUR' }),
    price: z.number().openapi({ description: 'Per ticket, before the buyer fee.', example: 52.5 }),
    buyerFee: z.number().openapi({ description: 'Per ticket, added for the buyer.', example: 5.25 }),
    buyerTotal: z.number().openapi({ description: 'What a buyer pays per ticket.', example: 57.75 }),
    sellerFee: z.number().openapi({ description: 'Per ticket, kept from the price.', example: 2.63 }),
    payout: z.number().openapi({ description: 'What the channel is settled per ticket when it sells.', example: 49.87 }),
    shareUrl: z.string().openapi({ description: 'The listing on the partner’s market.', example: 'https://resale.example/market/ptr_01jd…/tour-2026?showId=show-1&listingId=lst_01jd…' }),
    createdAt: z.string().openapi({ example: '2026-03-01T12:00:00.000Z' }),
    updatedAt: z.string().openapi({ example: '2026-03-01T12:00:00.000Z' }),
    soldAt: z.string().nullable().openapi({ example: null }),
    endedAt: z.string().nullable().openapi({ example: null }),
  })
  .openapi('ChannelListing');

export const ChannelListingPageSchema = z
  .object({
    items: z.array(ChannelListingSchema),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as startingAfter for the next page; null on the last page.', example: null }),
  })
  .openapi('ChannelListingPage');

export type ChannelListingCreate = z.infer<typeof ChannelListingCreateSchema>;
export type ChannelListingApi = z.infer<typeof ChannelListingSchema>;
