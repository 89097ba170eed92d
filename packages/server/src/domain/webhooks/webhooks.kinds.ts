import { z } from '@hono/zod-openapi';
import { LISTING_STATES } from '../listings/listings.model.js';

/**
 * The kinds of webhook the service sends, each defined once here with {@link defineWebhook}.
 * Everything else is derived from {@link WEBHOOK_KINDS}: the catalog (webhooks.catalog.ts: the
 * schemas `enqueue` validates against, the examples, the bodies and the OpenAPI `webhooks`), the
 * actions a partner may subscribe to (`webhookEvents` in partners.settings.ts) and the type of
 * `data` each emitter passes to `enqueue`. The table of kinds in docs/webhooks.md is checked
 * against these definitions (webhooks.kinds.test.ts).
 *
 * This file imports nothing of other modules but listing states, so that the partners module
 * can read the actions from it without a cycle (the webhooks service imports partners).
 */

/** One kind of webhook: what is sent, with what `data`, and why. */
export interface WebhookKind<A extends `${string}.${string}` = `${string}.${string}`, S extends z.ZodType = z.ZodType> {
  /** What happened, `family.verb`; the family is the part before the first dot (`ticketShield.updated` -> `ticketShield`). */
  readonly action: A;
  /** The schema of `data`: `enqueue` validates against it, OpenAPI documents it. */
  readonly data: S;
  /** What happened and what the partner should do: the OpenAPI description and the row of the docs' table. One line, no `|`. */
  readonly description: string;
  /** A `data` as the service sends it: the OpenAPI example of the body (typed by `data`, and parsed by it in openapi.contract.test.ts). */
  readonly example: z.input<S>;
}

/**
 * Defines a kind of webhook, keeping the literal type of its action and of its schema so that
 * `enqueue` infers the type of `data` from the action. Add the result to {@link WEBHOOK_KINDS}.
 *
 * @example defineWebhook({ action: 'event.unlock', data: z.object({ eventId: z.string(), showId: z.string() }), description: 'The QR codes of a show’s protected tickets were unlocked.', example: { eventId: 'tour-2026', showId: 'show-1' } })
 */
export function defineWebhook<const A extends `${string}.${string}`, S extends z.ZodType>(kind: { action: A; data: S; description: string; example: NoInfer<z.input<S>> }): WebhookKind<A, S> {
  return kind;
}

const eventId = () => z.string().min(1).openapi({ description: "The partner's event id (externalReferenceId).", example: 'tour-2026' });
const showId = () => z.string().min(1).openapi({ description: "The partner's show id.", example: 'show-2026-05-01' });

const PersonSchema = z.object({
  id: z.string().nullable().openapi({ description: "The partner's user id, when known." }),
  email: z.string().nullable(),
  phone: z.string().nullable().openapi({ description: 'E.164.' }),
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
  state: 'ACTIVE' as const,
};

/** The `data` of the three `listing.*` kinds: the listing as it is after the change. */
const ListingDataSchema = z
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

/** What every `waitinglist.*` webhook says of its entry. */
const waitingListEntryFields = {
  entryId: z.string().min(1).openapi({ description: 'The waiting-list entry (`wle_…`).', example: 'wle_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
  eventId: eventId(),
  showId: showId(),
  ticketOptionId: z.string().min(1).nullable().openapi({ description: "The partner's ticket option the fan asked for; null: any option of the show.", example: null }),
  user: PersonSchema.openapi({ description: 'The fan.' }),
  quantity: z.number().int().min(1).openapi({ description: 'Tickets the fan waits for, exactly.', example: 2 }),
  together: z.boolean().openapi({ description: 'Seats side by side.', example: true }),
};

const WAITING_LIST_ENTRY_EXAMPLE = {
  entryId: 'wle_01jd8x3k4f5g6h7j8k9m0n1p2q',
  eventId: 'tour-2026',
  showId: 'show-2026-05-01',
  ticketOptionId: null,
  user: { id: 'user-9902', email: 'fan@example.com', phone: null },
  quantity: 2,
  together: true,
};

/** The offer of an entry as the `waitinglist.*` webhooks name it. */
const offerId = () => z.string().min(1).openapi({ description: 'The offer (`wlo_…`).', example: 'wlo_01jd8x3k4f5g6h7j8k9m0n1p2q' });

/**
 * Every kind of webhook, in the order OpenAPI lists them. To add a kind, add its definition
 * here, a row to the table in docs/webhooks.md, and the `enqueue` that sends it.
 */
export const WEBHOOK_KINDS = [
  defineWebhook({
    action: 'ticketShield.updated',
    data: z
      .object({
        status: z.boolean().openapi({ description: 'true: ticketShield was activated (show the secure ticket-view URL); false: deactivated (show the ticket in the original manner).', example: true }),
        eventId: eventId(),
        showId: showId(),
      })
      .openapi('TicketShieldUpdatedData', { description: 'ticketShield was switched on or off for a show.' }),
    description:
      'ticketShield was switched on or off for an event/show. status true: My tickets and confirmation e-mails show a button to the secure ticket-view URL; status false: show the ticket in the original manner.',
    example: { status: true, eventId: 'tour-2026', showId: 'show-2026-05-01' },
  }),
  defineWebhook({
    action: 'ticket.update',
    data: z
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
      }),
    description: 'A resale completed: remove the resold tickets from the original buyer/order and give them to the buyer (also for will-call).',
    // As flows/complete-purchase.ts builds it: one resale of two seats of one listing.
    example: {
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
  }),
  defineWebhook({
    action: 'resale.refunded',
    data: z
      .object({
        resaleId: z.string().openapi({ description: 'The resale (buy intention) refunded: the `resaleId` of its `ticket.update`.', example: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
        eventId: eventId(),
        showId: showId(),
        refundedAt: z.iso.datetime({ offset: true }).openapi({ description: 'When the refund was decided; the money reaches the buyer’s card in the provider’s usual days.' }),
        amount: z.number().openapi({ description: 'What the buyer gets back, fees included, major units: all they paid.', example: 110 }),
        currency: z.string().length(3),
        reason: z.enum(['operator']).openapi({ description: '`operator`: the service’s operators refunded it (a complaint, a fraud). A cancelled show’s refunds send none: the cancellation says it all.' }),
        buyer: PersonSchema.openapi({ description: 'Who bought and is refunded: the tickets are no longer theirs by right.' }),
        tickets: z.array(
          z.object({
            ticketId: z.string().openapi({ description: "The partner's ticket id.", example: 't-1001' }),
            listingId: z.string(),
            previousOwner: PersonSchema.openapi({ description: 'The seller. Their payout was stopped when not yet delivered (a delivered payout is not recovered).' }),
          }),
        ),
      })
      .openapi('ResaleRefundedData', {
        description:
          'A paid resale was refunded in full to its buyer (action `resale.refunded`): the sale is reversed. Void the buyer’s tickets (or give them back to previousOwner), and leave them out of the buyer’s tickets at the ownership endpoint.',
      }),
    description: 'A paid resale was refunded to its buyer by the operators: void the buyer’s tickets (or give them back to the seller).',
    example: {
      resaleId: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q',
      eventId: 'tour-2026',
      showId: 'show-2026-05-01',
      refundedAt: '2026-04-22T09:12:00.000Z',
      amount: 110,
      currency: 'EUR',
      reason: 'operator',
      buyer: { id: 'user-9902', email: 'buyer@example.com', phone: null },
      tickets: [
        { ticketId: 't-1001', listingId: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q', previousOwner: { id: 'user-8841', email: 'seller@example.com', phone: null } },
        { ticketId: 't-1002', listingId: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q', previousOwner: { id: 'user-8841', email: 'seller@example.com', phone: null } },
      ],
    },
  }),
  defineWebhook({
    action: 'listing.created',
    data: ListingDataSchema,
    description: 'A ticket (or an order, as a pack) was listed for resale.',
    example: LISTING_EXAMPLE,
  }),
  defineWebhook({
    action: 'listing.updated',
    data: ListingDataSchema,
    description:
      'A listing changed: its price, or its state. Sent on every state change (RESERVED when a buyer starts checking out, ACTIVE when that checkout ends unpaid, SOLD, TERMINATED, DELISTED), with the state after the change.',
    example: { ...LISTING_EXAMPLE, state: 'RESERVED' },
  }),
  defineWebhook({
    action: 'listing.deleted',
    data: ListingDataSchema,
    description: 'A listing left the market without a sale (state TERMINATED or DELISTED, with its endReason); sent right after the listing.updated of the same change.',
    example: { ...LISTING_EXAMPLE, state: 'TERMINATED', endReason: 'seller' },
  }),
  defineWebhook({
    action: 'event.unlock',
    data: z
      .object({ eventId: eventId(), showId: showId() })
      .openapi('EventUnlockData', { description: 'The QR codes of the show’s protected tickets were unlocked (the configured moment before the start came).' }),
    description: 'The QR codes of a show’s protected tickets were unlocked.',
    example: { eventId: 'tour-2026', showId: 'show-2026-05-01' },
  }),
  defineWebhook({
    action: 'ticket.admitted',
    data: z
      .object({
        ticketId: z.string().min(1).openapi({ description: 'Your id of the ticket.', example: 'tk-1042' }),
        eventId: eventId(),
        showId: showId(),
        seat: z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() }).openapi({ example: { section: 'B', row: '4', seat: '11' } }),
        admittedAt: z.string().openapi({ description: 'When the ticket was admitted.', example: '2027-06-01T19:42:07.000Z' }),
        source: z.enum(['code', 'sync']).openapi({ description: '`code`: a rotating code checked online (POST /v1/tickets/admission/verify, or a door’s page); `sync`: scanned offline at a door and synced later (POST /v1/shows/{showId}/admissions/sync, or a door’s page), `admittedAt` being the scan’s time.', example: 'code' }),
        door: z
          .object({
            doorId: z.string().min(1).openapi({ description: 'The door link’s id (console: the event’s Doors).', example: 'dor_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
            name: z.string().min(1).openapi({ description: 'The name staff gave the door when it was made.', example: 'North gate 3' }),
          })
          .nullable()
          .openapi({ description: 'The venue’s scanner page (a door link) that scanned it; null when your own scanner sent the scan with your API key.' }),
      })
      .openapi('TicketAdmittedData', { description: 'A ticket was admitted at the door by its rotating code.' }),
    description: 'A ticket was admitted at the door by its rotating code, online or synced after offline scanning (once per ticket; a repeated scan sends nothing).',
    example: { ticketId: 'tk-1042', eventId: 'tour-2026', showId: 'show-2026-05-01', seat: { section: 'B', row: '4', seat: '11' }, admittedAt: '2027-06-01T19:42:07.000Z', source: 'code', door: { doorId: 'dor_01jd8x3k4f5g6h7j8k9m0n1p2q', name: 'North gate 3' } },
  }),
  defineWebhook({
    action: 'payouts.delivered',
    data: z
      .object({
        payoutId: z.string().min(1).openapi({ description: 'The service’s payout id.', example: 'pay_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
        sellerId: z.string().min(1).openapi({ description: "The seller: the partner's user id, or the e-mail when no id is known.", example: 'user-8841' }),
        amount: z.number().nonnegative().openapi({ description: 'Amount paid out, in major units.', example: 99.75 }),
        currency: z.string().length(3).openapi({ description: 'ISO 4217 currency of the amount.', example: 'EUR' }),
        listingIds: z.array(z.string().min(1)).openapi({ description: 'The sold listings this payout settles.', example: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'] }),
        deliveredAt: z.iso.datetime({ offset: true }).openapi({ description: 'When the payout was delivered (ISO 8601).', example: '2026-05-08T10:00:00.000Z' }),
      })
      .openapi('PayoutsDeliveredData', { description: 'A seller payout was delivered; it cannot be recovered any more.' }),
    description: 'A seller payout was delivered.',
    example: {
      payoutId: 'pay_01jd8x3k4f5g6h7j8k9m0n1p2q',
      sellerId: 'user-8841',
      amount: 99.75,
      currency: 'EUR',
      listingIds: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'],
      deliveredAt: '2026-05-08T10:00:00.000Z',
    },
  }),
  defineWebhook({
    action: 'waitinglist.joined',
    data: z
      .object({
        ...waitingListEntryFields,
        position: z.number().int().min(1).openapi({ description: "The fan's place among the show's live entries when they joined (1: first).", example: 12 }),
        joinedAt: z.iso.datetime({ offset: true }),
      })
      .openapi('WaitingListJoinedData', { description: 'A fan joined a show’s waiting list.' }),
    description: 'A fan joined a show’s waiting list, at the back of the line.',
    example: { ...WAITING_LIST_ENTRY_EXAMPLE, position: 12, joinedAt: '2026-04-20T18:20:00.000Z' },
  }),
  defineWebhook({
    action: 'waitinglist.offered',
    data: z
      .object({
        ...waitingListEntryFields,
        offerId: offerId(),
        intentionId: z.string().min(1).openapi({ description: 'The buy intention holding the tickets for the fan (its checkout is where they pay).', example: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
        listingIds: z.array(z.string().min(1)).min(1).openapi({ description: 'The listings held for the fan.', example: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'] }),
        ticketIds: z.array(z.string().min(1)).min(1).openapi({ description: "The partner's ids of the held tickets.", example: ['t-1001', 't-1002'] }),
        seats: z.array(z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() })).openapi({ description: 'The place of each held ticket (nulls for general admission).' }),
        currency: z.string().length(3),
        total: z.number().nonnegative().openapi({ description: 'What the fan pays in all, fees included, major units.', example: 110 }),
        offeredAt: z.iso.datetime({ offset: true }),
        notifyAt: z.iso.datetime({ offset: true }).openapi({ description: 'When the fan is told: when the offer is made, or when the show’s quiet hours end (the hold counts from then).' }),
        expiresAt: z.iso.datetime({ offset: true }).openapi({ description: 'When the hold ends and the tickets go to the next fan.' }),
      })
      .openapi('WaitingListOfferedData', { description: 'Tickets are held for a waiting fan; the service e-mails them the link to pay. No link with a sign-in token is sent here: a partner that tells the fan itself links to its own pages (Login Trust).' }),
    description: 'Tickets were held for the next fan of a show’s waiting list until expiresAt; the fan is e-mailed (or texted) a link to pay.',
    example: {
      ...WAITING_LIST_ENTRY_EXAMPLE,
      offerId: 'wlo_01jd8x3k4f5g6h7j8k9m0n1p2q',
      intentionId: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q',
      listingIds: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'],
      ticketIds: ['t-1001', 't-1002'],
      seats: [
        { section: 'A', row: '12', seat: '7' },
        { section: 'A', row: '12', seat: '8' },
      ],
      currency: 'EUR',
      total: 110,
      offeredAt: '2026-04-20T18:27:00.000Z',
      notifyAt: '2026-04-20T18:27:00.000Z',
      expiresAt: '2026-04-20T18:42:00.000Z',
    },
  }),
  defineWebhook({
    action: 'waitinglist.expired',
    data: z
      .object({
        ...waitingListEntryFields,
        offerId: offerId(),
        reason: z.enum(['timeout', 'declined', 'payment_failed', 'withdrawn']).openapi({
          description: '`timeout`: not paid in time; `declined`: the fan said no thanks or cancelled the checkout; `payment_failed`: the payment was refused; `withdrawn`: not the fan’s doing (the listing was removed), the fan keeps their place.',
          example: 'timeout',
        }),
        entryState: z.enum(['WAITING', 'EXPIRED', 'DECLINED']).openapi({ description: 'The entry after the offer ended: WAITING (withdrawn: still in line, same place), else it ended (the fan may join again, at the back).', example: 'EXPIRED' }),
      })
      .openapi('WaitingListExpiredData', { description: 'A waiting-list offer ended unpaid; its tickets went to the next fan or on sale.' }),
    description: 'A waiting-list offer ended unpaid (timed out, declined, payment failed, or withdrawn); its tickets go to the next fan in line, or on sale.',
    example: { ...WAITING_LIST_ENTRY_EXAMPLE, offerId: 'wlo_01jd8x3k4f5g6h7j8k9m0n1p2q', reason: 'timeout', entryState: 'EXPIRED' },
  }),
  defineWebhook({
    action: 'waitinglist.converted',
    data: z
      .object({
        ...waitingListEntryFields,
        offerId: offerId(),
        intentionId: z.string().min(1).openapi({ description: 'The paid buy intention: the `resaleId` of the `ticket.update` of the same sale.', example: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
        listingIds: z.array(z.string().min(1)).min(1),
        ticketIds: z.array(z.string().min(1)).min(1),
        paidAt: z.iso.datetime({ offset: true }),
      })
      .openapi('WaitingListConvertedData', { description: 'A waiting fan paid the tickets offered to them.' }),
    description: 'A waiting fan paid the tickets held for them; the entry is done (the sale itself comes as ticket.update).',
    example: {
      ...WAITING_LIST_ENTRY_EXAMPLE,
      offerId: 'wlo_01jd8x3k4f5g6h7j8k9m0n1p2q',
      intentionId: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q',
      listingIds: ['lst_01jd8x3k4f5g6h7j8k9m0n1p2q'],
      ticketIds: ['t-1001', 't-1002'],
      paidAt: '2026-04-20T18:31:07.000Z',
    },
  }),
] as const;

type Kinds = typeof WEBHOOK_KINDS;

/** Every webhook action the service sends. */
export type WebhookAction = Kinds[number]['action'];

/** The definition of one action. */
export type WebhookKindOf<A extends WebhookAction> = Extract<Kinds[number], { action: A }>;

/** The actions of a tuple of kinds, as a tuple (a mapped type keeps a tuple only over a type parameter). */
type ActionsOf<T extends readonly WebhookKind[]> = { readonly [I in keyof T]: T[I] extends WebhookKind<infer A> ? A : never };

/** Every webhook action the service sends, in the order of {@link WEBHOOK_KINDS} (a tuple, for `z.enum`). */
// `map` forgets that the array is a tuple; the elements are the actions, one per kind, in order.
export const WEBHOOK_ACTIONS = WEBHOOK_KINDS.map((kind) => kind.action) as unknown as ActionsOf<Kinds>;
