import type { Tx } from '../db/client.js';

/**
 * In-process domain events. Handlers run inside the transaction of the change that raised
 * the event, one after the other (each awaited before the next, and before `emit` returns), so a cancellation and everything that follows from it
 * (tickets invalidated, listings removed, webhooks put in the outbox) commit together or
 * not at all. They carry reactions within one step; a use case of several steps is a flow
 * (src/flows/), which orders its steps itself. Who listens to what is declared in one place,
 * flows/reactions.ts; each event below names its listeners too.
 */
export interface DomainEventMap {
  /**
   * A show became CANCELLED (by the API, the cancelled feed or the events feed). One
   * subscriber: the cancel-show flow (flows/cancel-show.ts, wired in flows/reactions.ts).
   */
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
   * cancelled, its owner changed, or moved to another show or option. Subscriber: listings
   * (ends its live listing, endReason `ticket_<reason>`).
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
   * Subscribers: intentions (ends that checkout), channels (deletes a channel's unsold tickets).
   */
  'listing.ended': {
    partnerId: string;
    listingId: string;
    intentionId: string | null;
    reason: string;
  };
  /**
   * Listings of a show became ACTIVE (on sale): published (`cause: 'new'`, ListingsService.open)
   * or given back by a checkout that ended unpaid (`released`, the listings' release). Raised in
   * that transaction BEFORE the partner is told, so a reaction may still hold them (the waiting
   * list offers them first) and the partner hears the state they end in. Subscriber: the
   * waiting-list offers (flows/waiting-list-offers.ts `offerAvailable`).
   */
  'listing.available': {
    partnerId: string;
    showPk: string;
    listingIds: string[];
    cause: 'new' | 'released';
  };
  /**
   * A buy intention ended: PAID (`markPaid`), or EXPIRED, FAILED or CANCELLED (`endIfPending`,
   * raised before its listings are released, so a reaction sees the end before the listings
   * flow on). `kind` tells an ordinary checkout from a waiting-list offer; `reason` is the
   * intention's end reason (`paid` for PAID). Subscriber: the waiting-list offers (ends the
   * offer held by a `waitinglist` intention).
   */
  'intention.ended': {
    partnerId: string;
    intentionId: string;
    showPk: string;
    kind: 'checkout' | 'waitinglist';
    state: 'PAID' | 'EXPIRED' | 'FAILED' | 'CANCELLED';
    reason: string;
  };
  /**
   * A fan joined a show's waiting list (WaitingListService.join). Subscribers: the waiting-list
   * offers (`waitinglist.joined` webhook, then an offer at once when fitting stock is on sale).
   */
  'waitinglist.joined': {
    partnerId: string;
    showPk: string;
    entryId: string;
  };
  /**
   * A show's waiting list was turned on (WaitingListService.putSettings, from off or never set).
   * Subscriber: the waiting-list offers (`matchShow`: the stock on sale is offered to the line).
   */
  'waitinglist.enabled': {
    partnerId: string;
    showPk: string;
  };
  /**
   * A partner's `webhookUrl` was set where it had none (or changed). Subscriber: webhooks
   * (the messages waiting for a URL become due).
   */
  'partner.webhook_url.set': {
    partnerId: string;
  };
}

export type DomainEventName = keyof DomainEventMap;
type Handler<K extends DomainEventName> = (tx: Tx, payload: DomainEventMap[K]) => void | Promise<void>;

export class DomainEvents {
  private readonly handlers = new Map<DomainEventName, Handler<DomainEventName>[]>();

  /** Subscribes; returns a function that unsubscribes. */
  on<K extends DomainEventName>(name: K, handler: Handler<K>): () => void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as Handler<DomainEventName>);
    this.handlers.set(name, list);
    return () => list.splice(list.indexOf(handler as Handler<DomainEventName>), 1);
  }

  /**
   * Runs every handler in the caller's transaction, in subscription order, each awaited; a
   * throwing handler rolls it back. Await it: what the handlers write is part of the change.
   */
  async emit<K extends DomainEventName>(tx: Tx, name: K, payload: DomainEventMap[K]): Promise<void> {
    for (const handler of this.handlers.get(name) ?? []) await handler(tx, payload);
  }
}
