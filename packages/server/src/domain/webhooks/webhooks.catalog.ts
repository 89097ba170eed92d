import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { WEBHOOK_ACTIONS, type WebhookAction } from '../partners/partners.settings.js';
import { LISTING_STATES } from '../listings/listings.model.js';

/**
 * The catalog of webhooks the service sends: for each action, the schema of its `data`
 * and of the whole body `{family, action, data}` (`family` is the part of `action` before
 * the first dot). The body a partner receives is exactly `JSON.stringify({family, action, data})`.
 *
 * `WebhooksService.enqueue` validates `data` against these schemas, so a payload that does
 * not match the documented shape is a programming error caught before it is stored.
 */

export { WEBHOOK_ACTIONS, type WebhookAction };

const eventId = () => z.string().min(1).openapi({ description: "The partner's event id (externalReferenceId).", example: 'tour-2026' });
const showId = () => z.string().min(1).openapi({ description: "The partner's show id.", example: 'show-2026-05-01' });

// ------------------------------------------------------------------ data of each action

export const TicketShieldUpdatedDataSchema = z
  .object({
    status: z.boolean().openapi({ description: 'true: ticketShield was activated (show the secure ticket-view URL); false: deactivated (show the ticket in the original manner).', example: true }),
    eventId: eventId(),
    showId: showId(),
  })
  .openapi('TicketShieldUpdatedData', { description: 'ticketShield was switched on or off for a show.' });

const PersonSchema = z.object({
  id: z.string().nullable().openapi({ description: "The partner's user id, when known." }),
  email: z.string().nullable(),
  phone: z.string().nullable().openapi({ description: 'E.164.' }),
});

export const TicketUpdateDataSchema = z
  .object({
    resaleId: z.string().openapi({ description: 'The buy intention that was paid (one resale, one or more tickets).', example: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    eventId: eventId(),
    showId: showId(),
    paidAt: z.iso.datetime({ offset: true }),
    total: z.number().openapi({ description: 'What the buyer paid in all, fees included, major units.', example: 88 }),
    currency: z.string().length(3),
    buyer: PersonSchema.extend({ firstName: z.string().nullable(), lastName: z.string().nullable() }).openapi({
      description: 'The new holder: register them for will-call and check identity against them, not the primary buyer.',
    }),
    tickets: z.array(
      z.object({
        ticketId: z.string().openapi({ description: "The partner's ticket id.", example: 't-1001' }),
        ticketOptionId: z.string(),
        priceTypeId: z.string().optional(),
        seating: z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() }),
        orderId: z.string().nullable().openapi({ description: 'The primary-sale order the ticket leaves: stop it from collecting this ticket.' }),
        listingId: z.string(),
        pricePaid: z.number().openapi({ description: 'Per ticket, fees included.' }),
        currency: z.string().length(3),
        previousOwner: PersonSchema.openapi({ description: 'The seller (for a channel listing, the user `channel:<channelId>`).' }),
        channel: z
          .object({
            channelId: z.string().openapi({ description: 'The external platform that sold it.', example: 'resellr' }),
            externalListingId: z.string().openapi({ description: 'The channel’s id of the listing.', example: 'rs-884120' }),
            sellerReference: z.string().nullable().openapi({ description: 'The channel’s reference of its seller.', example: 'seller-5521' }),
          })
          .optional()
          .openapi({
            description:
              'Present only when the ticket came from a channel (POST /v1/channels/listings): it is not one of your tickets. Get the real ticket from the channel and deliver it to the buyer (PUT /v1/tickets/:ticketId with its ticketAccess, or your own channel).',
          }),
      }),
    ),
  })
  .openapi('TicketUpdateData', {
    description:
      'A resale completed (action `ticket.update`). Move the tickets out of the original buyer and order and give them to `buyer`: issue a new pick-up number (or let the buyer collect with their e-mail or the ticket id), so the original order no longer collects them.',
  });

const LISTING_EXAMPLE = {
  listingId: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q',
  ticketIds: ['t-1001', 't-1002'],
  eventId: 'tour-2026',
  showId: 'show-2026-05-01',
  ticketOptionId: 'opt-field',
  priceTypeId: 'pt-standard',
  price: 52.5,
  currency: 'EUR',
  state: 'ACTIVE',
};

export const ListingDataSchema = z
  .object({
    listingId: z.string().min(1).openapi({ description: 'The service’s listing id.', example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    ticketIds: z.array(z.string().min(1)).min(1).openapi({ description: "The partner's ids of the listed tickets (several for an order sold as a pack).", example: ['t-1001', 't-1002'] }),
    eventId: eventId(),
    showId: showId(),
    ticketOptionId: z.string().min(1).openapi({ description: "The partner's ticket option id.", example: 'opt-field' }),
    priceTypeId: z.string().min(1).optional().openapi({ description: "The partner's price type id, when the ticket has one.", example: 'pt-standard' }),
    price: z.number().nonnegative().openapi({ description: 'Asking price per ticket, in major units, without fees.', example: 52.5 }),
    currency: z.string().length(3).openapi({ description: 'ISO 4217 currency of the price.', example: 'EUR' }),
    state: z.enum(LISTING_STATES).openapi({
      description:
        'State of the listing after the change: ACTIVE (on sale; also after a checkout released it), RESERVED (a buyer is checking out), SOLD, TERMINATED (removed by its seller or channel, or a ticket of it stopped being valid) or DELISTED (removed by the organiser).',
      example: 'ACTIVE',
    }),
    endReason: z.string().min(1).optional().openapi({
      description: 'Why a TERMINATED or DELISTED listing ended: `seller`, `organiser`, `channel_withdrawn`, or `ticket_<why>` (`ticket_deleted`, `ticket_admitted`, `ticket_cancelled`, `ticket_owner_changed`, `ticket_moved`).',
      example: 'seller',
    }),
  })
  .openapi('ListingWebhookData', { description: 'A listing of the secondary market, as it is after the change.', example: LISTING_EXAMPLE });

export const EventUnlockDataSchema = z
  .object({ eventId: eventId(), showId: showId() })
  .openapi('EventUnlockData', { description: 'The QR codes of the show’s protected tickets were unlocked (the configured moment before the start came).' });

export const PayoutsDeliveredDataSchema = z
  .object({
    payoutId: z.string().min(1).openapi({ description: 'The service’s payout id.', example: 'pay_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    sellerId: z.string().min(1).openapi({ description: "The seller: the partner's user id, or the e-mail when no id is known.", example: 'user-8841' }),
    amount: z.number().nonnegative().openapi({ description: 'Amount paid out, in major units.', example: 99.75 }),
    currency: z.string().length(3).openapi({ description: 'ISO 4217 currency of the amount.', example: 'EUR' }),
    listingIds: z.array(z.string().min(1)).openapi({ description: 'The sold listings this payout settles.', example: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'] }),
    deliveredAt: z.iso.datetime({ offset: true }).openapi({ description: 'When the payout was delivered (ISO 8601).', example: '2026-05-08T10:00:00.000Z' }),
  })
  .openapi('PayoutsDeliveredData', { description: 'A seller payout was delivered; it cannot be recovered any more.' });

/** The schema of `data` for each action. */
export const WEBHOOK_DATA_SCHEMAS = {
  'ticketShield.updated': TicketShieldUpdatedDataSchema,
  'ticket.update': TicketUpdateDataSchema,
  'listing.created': ListingDataSchema,
  'listing.updated': ListingDataSchema,
  'listing.deleted': ListingDataSchema,
  'event.unlock': EventUnlockDataSchema,
  'payouts.delivered': PayoutsDeliveredDataSchema,
} as const satisfies Record<WebhookAction, z.ZodType>;

/** What `enqueue` accepts as `data` for each action. */
export type WebhookDataMap = { [A in WebhookAction]: z.input<(typeof WEBHOOK_DATA_SCHEMAS)[A]> };
/** The `data` of one action. */
export type WebhookData<A extends WebhookAction> = WebhookDataMap[A];

/** The family of an action: the part before the first dot (`ticketShield.updated` -> `ticketShield`). */
export function familyOf(action: string): string {
  const dot = action.indexOf('.');
  return dot === -1 ? action : action.slice(0, dot);
}

/** The body sent for a message: `{family, action, data}`, in this key order. */
export interface WebhookBody {
  family: string;
  action: WebhookAction;
  data: Record<string, unknown>;
}

// ------------------------------------------------------------------ whole bodies

const DESCRIPTIONS: Record<WebhookAction, string> = {
  'ticketShield.updated':
    'ticketShield was switched on or off for an event/show. status true: My tickets and confirmation e-mails show a button to the secure ticket-view URL; status false: show the ticket in the original manner.',
  'ticket.update': 'A resale completed: remove the resold tickets from the original buyer/order and give them to the buyer (also for will-call).',
  'listing.created': 'A ticket (or an order, as a pack) was listed for resale.',
  'listing.updated': 'A listing changed: its price, or its state. Sent on every state change (RESERVED when a buyer starts checking out, ACTIVE when that checkout ends unpaid, SOLD, TERMINATED, DELISTED), with the state after the change.',
  'listing.deleted': 'A listing left the market without a sale (state TERMINATED or DELISTED, with its endReason); sent right after the listing.updated of the same change.',
  'event.unlock': 'The QR codes of a show’s protected tickets were unlocked.',
  'payouts.delivered': 'A seller payout was delivered.',
};

/** The example of each action's `data` (each one parses under its schema: webhooks.catalog.test.ts). */
export const WEBHOOK_EXAMPLES: Record<WebhookAction, Record<string, unknown>> = {
  'ticketShield.updated': { status: true, eventId: 'tour-2026', showId: 'show-2026-05-01' },
  // As flows/complete-purchase.ts builds it: one resale of two seats of one listing.
  'ticket.update': {
    resaleId: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q',
    eventId: 'tour-2026',
    showId: 'show-2026-05-01',
    paidAt: '2026-04-20T18:31:07.000Z',
    total: 110,
    currency: 'EUR',
    buyer: { id: 'user-9902', email: 'buyer@example.com', phone: null, firstName: 'Ana', lastName: 'García' },
    tickets: ['t-1001', 't-1002'].map((ticketId, i) => ({
      ticketId,
      ticketOptionId: 'opt-field',
      seating: { section: 'A', row: '12', seat: String(7 + i) },
      orderId: 'order-5531',
      listingId: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q',
      pricePaid: 55,
      currency: 'EUR',
      previousOwner: { id: 'user-8841', email: 'seller@example.com', phone: null },
    })),
  },
  'listing.created': LISTING_EXAMPLE,
  'listing.updated': { ...LISTING_EXAMPLE, state: 'RESERVED' },
  'listing.deleted': { ...LISTING_EXAMPLE, state: 'TERMINATED', endReason: 'seller' },
  'event.unlock': { eventId: 'tour-2026', showId: 'show-2026-05-01' },
  'payouts.delivered': {
    payoutId: 'pay_01jd8x3k4f5g6h7j8k9m0n1p2q',
    sellerId: 'user-8841',
    amount: 99.75,
    currency: 'EUR',
    listingIds: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'],
    deliveredAt: '2026-05-08T10:00:00.000Z',
  },
};

/** A component name per action: `ticketShield.updated` -> `TicketShieldUpdatedWebhook`. */
function componentName(action: WebhookAction): string {
  return action
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('') + 'Webhook';
}

function bodySchema<A extends WebhookAction>(action: A) {
  const family = familyOf(action);
  return z
    .object({
      family: z.literal(family).openapi({ description: 'The part of action before the first dot.', example: family }),
      action: z.literal(action).openapi({ description: 'What happened.', example: action }),
      data: WEBHOOK_DATA_SCHEMAS[action],
    })
    .openapi(componentName(action), { description: DESCRIPTIONS[action], example: { family, action, data: WEBHOOK_EXAMPLES[action] } });
}

/** The schema of the whole body of each action (`{family, action, data}`). */
export const WEBHOOK_BODY_SCHEMAS = Object.fromEntries(WEBHOOK_ACTIONS.map((a) => [a, bodySchema(a)])) as {
  [A in WebhookAction]: ReturnType<typeof bodySchema<A>>;
};

/** The headers of every delivery, as documented in OpenAPI. */
export const WebhookHeadersSchema = z.object({
  'webhook-id': z.string().openapi({ description: 'The message id; the same on every retry and replay, so use it to deduplicate.', example: 'msg_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix time of this attempt, in seconds.', example: '1777720000' }),
  'webhook-signature': z.string().openapi({
    description: 'Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the partner’s whsec_ secret.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

/**
 * Documents every webhook under the OpenAPI 3.1 `webhooks` object, with the signing
 * headers and the body schema. Called by `webhookRoutes` on its router, so mounting the
 * router puts them in /v1/openapi.json.
 */
export function registerWebhookDocs(registry: OpenAPIHono['openAPIRegistry']): void {
  for (const action of WEBHOOK_ACTIONS) {
    registry.registerWebhook({
      method: 'post',
      path: action,
      operationId: `webhook_${action.replace('.', '_')}`,
      // Signed (webhook-signature), not keyed: the partner's endpoint needs no key of ours.
      security: [],
      tags: ['Webhooks'],
      summary: `${action} webhook`,
      description:
        DESCRIPTIONS[action] +
        ' Sent as a POST to the partner’s webhookUrl, signed by the Standard Webhooks scheme; answer any 2xx within 10 s, or it is retried (about 3 days).',
      request: { headers: WebhookHeadersSchema, body: { content: { 'application/json': { schema: WEBHOOK_BODY_SCHEMAS[action] } }, required: true } },
      responses: { 200: { description: 'Any 2xx acknowledges the message; anything else, a timeout or a network error is retried.' } },
    });
  }
}
