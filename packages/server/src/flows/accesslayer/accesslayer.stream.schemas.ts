import { z } from '@hono/zod-openapi';
import { BuyQuery } from './accesslayer.buy.schemas.js';

/** The live stock stream's wire (GET /v1/wrapper/accesslayer/stream): its query and the stock each event carries. */

/** The longest `lastEventId` read: ours are `<12 hex>-<seq>`, far shorter; anything longer is no id of ours. */
const EVENT_ID_MAX = 100;

export const StockStreamQuery = BuyQuery.pick({ type: true, eventId: true, showId: true, lang: true }).extend({
  lastEventId: z
    .string()
    .max(EVENT_ID_MAX)
    .optional()
    .openapi({
      param: { name: 'lastEventId', in: 'query' },
      example: '3f9a0c41d2e7-42',
      description:
        'The `id` of the last event the client received, for a client that reconnects by hand (a browser’s EventSource sends the `Last-Event-ID` header itself, which wins over this). ' +
        'When the show’s stock has not changed since, no `snapshot` is sent again; otherwise (or for an id of another process or an earlier start of this one) a `snapshot` comes first.',
    }),
});

const Reserved = z
  .object({
    tickets: z.number().int().openapi({ example: 2 }),
    backAt: z.string().openapi({ example: '2026-06-01T18:42:00.000Z', description: 'When the first of these holds ends unless paid: the tickets may be back on sale then.' }),
    whose: z.literal('any').openapi({ description: 'Always `any`: the stream is the same for every viewer and cannot tell whose.' }),
  })
  .openapi('StockReserved', { description: 'Tickets of the scope held in checkouts waiting for payment, as the buy access layer’s unsigned `reserved`; absent when none.' });

export const StockCategorySchema = z
  .object({
    ticketOptionId: z.string().openapi({ example: 'opt-field' }),
    quantityForSale: z.number().int().openapi({ example: 4 }),
    floorPrice: z.number().openapi({ example: 44, description: 'Lowest price per ticket with the buyer fee, in major units of `currency`; 0 when nothing is for sale.' }),
    currency: z.string().openapi({ example: 'EUR' }),
    enabled: z.boolean().openapi({ description: 'The category’s call to action: resale open and tickets of it for sale.' }),
    reserved: Reserved.optional(),
  })
  .openapi('StockCategory');

export const StockAreaSchema = z
  .object({
    area: z.string().openapi({ example: 'Field' }),
    quantityForSale: z.number().int().openapi({ example: 4 }),
    floorPrice: z.number().openapi({ example: 44, description: 'The lowest floor of the area’s options (0 when nothing is for sale).' }),
  })
  .openapi('StockArea');

export const ShowStockSchema = z
  .object({
    eventId: z.string().openapi({ example: 'tour-2026' }),
    showId: z.string().openapi({ example: 'show-1' }),
    enabled: z.boolean().openapi({ description: 'The show’s call to action (buy button, banner, modal): resale open and something for sale.' }),
    totalCount: z.number().int().openapi({ example: 6, description: 'Tickets for sale in the categories below.' }),
    reserved: Reserved.optional(),
    waitingFans: z
      .number()
      .int()
      .optional()
      .openapi({ example: 12, description: 'Fans in the show’s waiting list (waiting, or holding an offer), while the organiser has it on and resale is open; absent otherwise. The call to action’s `waitingList.fans`.' }),
    categories: z.array(StockCategorySchema).openapi({ description: 'One per ticket option of the show the operator has not disabled, in the show’s order (as `categoriesList`).' }),
    areas: z.array(StockAreaSchema).openapi({ description: 'Per area of the options that have one, in the order they first appear (as the seat map’s `results`); empty when none has.' }),
  })
  .openapi('ShowStock', { description: 'The live stock of one show: the numbers of the buy access layer’s components, without texts or URLs.' });
