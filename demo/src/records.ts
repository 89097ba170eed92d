import type { DemoEvent, DemoTicket, DemoUser } from './store.js';

/**
 * The demo's data in the shapes of the contract: the Event pushed to `POST/PUT /v1/events`,
 * the Ticket pushed to `POST /v1/sync/tickets`, and the platform-side ticket record the
 * ownership endpoint answers. One place, so the three always agree on ids.
 */

/** The Event of `POST /v1/events` (the whole event: PUT is sent whole too, as the spec recommends). */
export function eventPayload(event: DemoEvent): Record<string, unknown> {
  return {
    externalReferenceId: event.id,
    title: event.title,
    description: event.description,
    location: { venueName: event.venue, address: event.address, city: event.city, country: event.country, timeZone: event.timeZone },
    configuration: {
      ticketDelivery: { time: { when: 'BEFORE', seconds: 3 * 3600 } },
      // Will-call by order number: a resale must give the buyer a new one (the webhook handler does).
      redemption: { policy: 'OPTIONAL', hoursBeforeShow: 168, instructions: 'Box office opens two hours before the show.' },
    },
    ...(event.svg ? { seating: { svgCode: event.svg } } : {}),
    shows: [
      {
        showId: event.showId,
        title: event.showTitle,
        date: event.date,
        status: 'LIVE',
        resaleEnabled: true,
        images: [],
        configuration: { redemption: { policy: 'OPTIONAL', hoursBeforeShow: 168 } },
        ticketOptions: event.options.map((o) => ({
          ticketId: o.id,
          title: o.title,
          description: o.description,
          currency: event.currency,
          price: o.price,
          area: o.area,
        })),
        priceTypes: [{ priceTypeId: event.priceTypeId, title: 'Standard' }],
        combinations: event.options.map((o) => ({ ticketOptionId: o.id, priceTypeId: event.priceTypeId, price: o.price })),
      },
    ],
  };
}

/** A Ticket of `POST /v1/sync/tickets`: the holder's e-mail as buyer, the access code as an OTHER locator. */
export function ticketPayload(ticket: DemoTicket, owner: DemoUser): Record<string, unknown> {
  return {
    externalReferenceEventId: ticket.eventId,
    showId: ticket.showId,
    ticketId: ticket.ticketId,
    ticketOptionId: ticket.ticketOptionId,
    priceTypeId: ticket.priceTypeId,
    buyer: owner.email,
    ticketAccess: { type: 'OTHER', locator: ticket.code },
    price: ticket.paidPrice,
    currency: ticket.currency,
    orderId: ticket.orderId,
    ...(ticket.section ? { section: ticket.section } : {}),
    ...(ticket.row ? { row: ticket.row } : {}),
    ...(ticket.seat ? { seat: ticket.seat } : {}),
    tags: [`channel:demo`],
  };
}

/** The platform-side ticket record (spec: "Platform-side ticket record"). */
export interface OwnershipRecord {
  eventId: string;
  ticketId: string;
  showId: string;
  ticketOptionId: string;
  ticketTypeId: string;
  paidPrice: number;
  seating: { row: string; seat: string; section: string };
  properties: { orderId: string };
  tags: string[];
}

/**
 * A held ticket as the ownership endpoint answers it. General-admission tickets have no
 * seat: `seating` carries empty strings, so the shape is the same for every ticket.
 */
export function ownershipRecord(ticket: DemoTicket): OwnershipRecord {
  return {
    eventId: ticket.eventId,
    ticketId: ticket.ticketId,
    showId: ticket.showId,
    ticketOptionId: ticket.ticketOptionId,
    ticketTypeId: ticket.priceTypeId,
    paidPrice: ticket.paidPrice,
    seating: { row: ticket.row ?? '', seat: ticket.seat ?? '', section: ticket.section ?? '' },
    properties: { orderId: ticket.orderId },
    tags: ['channel:demo', ...(ticket.resale ? ['origin:resale'] : [])],
  };
}
