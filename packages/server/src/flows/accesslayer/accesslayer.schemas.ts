import { z } from '@hono/zod-openapi';

const id = () => z.string().trim().min(1).max(200);

export const CtaSchema = z
  .object({
    key: z.enum(['SELL', 'EDIT', 'DETAILS', 'P2P', 'PENDING_PAYOUT_INFO', 'MANAGE']),
    text: z.string().openapi({ example: 'Sell' }),
    url: z.string().openapi({ example: 'https://resale.example/sell/ticket/tkt-000123?lang=en' }),
    enabled: z.boolean(),
    colors: z.object({ background: z.string(), text: z.string() }).optional(),
  })
  .openapi('CallToAction');

export const SellAccessLayerBody = z
  .strictObject({
    user: z.email().openapi({ description: 'The seller’s e-mail.', example: 'fan@example.com' }),
    tickets: z
      .array(z.strictObject({ eventId: id(), showId: id(), ticketId: id(), ticketOptionId: id(), priceTypeId: id().optional() }))
      .min(1)
      .max(500)
      .optional(),
    orders: z
      .array(
        z.strictObject({
          orderId: id(),
          eventId: id(),
          showId: id(),
          combinations: z.array(z.strictObject({ ticketOptionId: id(), priceTypeId: id().optional() })).max(100),
        }),
      )
      .min(1)
      .max(200)
      .optional(),
    autologin: z.boolean().optional().openapi({ description: 'Every URL of the answer carries a fresh single-use oneTimeToken for `user`, so the seller arrives signed in (Login Trust).' }),
    includeOrderSales: z.boolean().optional().openapi({ description: 'Adds `soldOrders`: the seller’s sales grouped by order, across all events.' }),
    includeTicketSales: z.boolean().optional().openapi({ description: 'Adds `soldTickets`: the seller’s sales, one per ticket, across all events.' }),
  })
  .refine((b) => !(b.tickets && b.orders), { message: 'send either tickets or orders, not both', path: ['orders'] })
  .openapi('SellAccessLayerRequest');

const SoldTicket = z
  .object({
    ticketId: z.string(),
    orderId: z.string().nullable(),
    eventId: z.string(),
    showId: z.string(),
    ticketOptionId: z.string(),
    listingId: z.string(),
    currency: z.string(),
    price: z.number().openapi({ description: 'Sale price per ticket, before the buyer fee.' }),
    payout: z.number().openapi({ description: 'What the seller receives for the ticket.' }),
    soldAt: z.string().nullable(),
  })
  .openapi('SoldTicket');

export const SellAccessLayerResponse = z
  .object({
    user: z.string().optional(),
    tickets: z
      .array(
        z.object({
          status: z.enum(['SELLABLE', 'NOT_SELLABLE', 'FOR_SALE', 'SOLD']),
          ticketId: z.string(),
          ticketOptionId: z.string(),
          priceTypeId: z.string().nullable(),
          sync: z.boolean().openapi({ description: 'false: the ticket is not known to the service yet; its SELL URL carries sync=1 and the sell flow synchronises it first.' }),
          callToActions: z.array(CtaSchema),
        }),
      )
      .optional(),
    orders: z
      .array(z.object({ orderId: z.string(), status: z.enum(['SELLABLE', 'NOT_SELLABLE', 'FOR_SALE', 'SOLD']), callToActions: z.array(CtaSchema) }))
      .optional(),
    components: z
      .array(
        z.object({
          type: z.literal('banner'),
          class: z.literal('sellBanner'),
          sellBanner: z.object({
            title: z.string(),
            description: z.string(),
            image: z.string().nullable(),
            visible: z.boolean().openapi({ description: 'false: do not render it.' }),
            colors: z.object({ background: z.string(), text: z.string() }),
            callToAction: z.object({ text: z.string(), url: z.string(), enabled: z.boolean() }),
          }),
        }).openapi('SellBannerComponent'),
      )
      .optional()
      .openapi({ description: 'The sell banner when the partner configured one.' }),
    soldTickets: z.array(SoldTicket).optional(),
    soldOrders: z
      .array(z.object({ orderId: z.string().nullable(), eventId: z.string(), showId: z.string(), currency: z.string(), payout: z.number(), tickets: z.array(SoldTicket) }).openapi('SoldOrder'))
      .optional(),
  })
  .openapi('SellAccessLayer');
