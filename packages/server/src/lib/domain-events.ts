import type { Tx } from '../db/client.js';

/**
 * In-process domain events. Handlers run synchronously inside the transaction of the
 * change that raised the event, so a cancellation and everything that follows from it
 * (tickets invalidated, listings removed, webhooks put in the outbox) commit together or
 * not at all. Modules talk through these instead of reaching into each other's tables.
 */
export interface DomainEventMap {
  /** A show became CANCELLED (by the API, the cancelled feed or the events feed). */
  'show.cancelled': {
    partnerId: string;
    eventPk: string;
    showPk: string;
    externalReferenceId: string;
    showId: string;
    cancelledAt: number;
  };
  /**
   * A ticket can no longer be offered by its holder as it was: deleted, admitted, its show
   * cancelled, its owner changed, or moved to another show or option. The sell side
   * terminates its active listing.
   */
  'ticket.invalidated': {
    partnerId: string;
    ticketPk: string;
    reason: 'deleted' | 'admitted' | 'cancelled' | 'owner_changed' | 'moved';
  };
  /**
   * A listing ended (terminated, delisted or withdrawn). `intentionId` is set when it was
   * reserved: that checkout ends, and `reason` (the listing's `endReason`: `organiser` for a
   * delist, `channel_withdrawn`, `seller`, `ticket_<why>`) tells the buyer why.
   */
  'listing.ended': {
    partnerId: string;
    listingId: string;
    intentionId: string | null;
    reason: string;
  };
}

export type DomainEventName = keyof DomainEventMap;
type Handler<K extends DomainEventName> = (tx: Tx, payload: DomainEventMap[K]) => void;

export class DomainEvents {
  private readonly handlers = new Map<DomainEventName, Handler<DomainEventName>[]>();

  /** Subscribes; returns a function that unsubscribes. */
  on<K extends DomainEventName>(name: K, handler: Handler<K>): () => void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as Handler<DomainEventName>);
    this.handlers.set(name, list);
    return () => list.splice(list.indexOf(handler as Handler<DomainEventName>), 1);
  }

  /** Runs every handler in the caller's transaction; a throwing handler rolls it back. */
  emit<K extends DomainEventName>(tx: Tx, name: K, payload: DomainEventMap[K]): void {
    for (const handler of this.handlers.get(name) ?? []) handler(tx, payload);
  }
}
