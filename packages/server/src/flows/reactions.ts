import type { DomainEvents } from '../lib/domain-events.js';
import type { ChannelsService } from '../domain/channels/channels.service.js';
import type { IntentionsService } from '../domain/intentions/intentions.service.js';
import type { ListingsService } from '../domain/listings/listings.service.js';
import type { WebhooksService } from '../domain/webhooks/webhooks.service.js';
import { cancelShow, type CancelShowDeps } from './cancel-show.js';
import { entryJoined, matchShow, offerAvailable, offerEnded, type WaitingListOffersDeps } from './waiting-list-offers.js';

/** The modules that react to another module's change. */
export type ReactionsDeps = CancelShowDeps & WaitingListOffersDeps & { bus: DomainEvents; listings: ListingsService; intentions: IntentionsService; channels: ChannelsService; webhooks: WebhooksService };

/**
 * Every reaction between modules, in one place: when a change in one module must change
 * another in the same transaction. A module raises its events (lib/domain-events.ts) and knows
 * nobody who listens; this is where the listeners are, in the order they run:
 *
 * - `show.cancelled` (events) → the cancel-show flow: tickets cancelled, buyers refunded,
 *   payouts stopped, the ledger's `refund_due` journals (flows/cancel-show.ts);
 * - `ticket.invalidated` (tickets: deleted, admitted, cancelled, owner changed, moved) →
 *   listings end the ticket's live listing (`ListingsService.endForTicket`), which raises:
 * - `listing.ended` (listings) → intentions end the checkout that held it
 *   (`IntentionsService.endForListing`), then channels drop a channel's unsold tickets
 *   (`ChannelsService.dropChannelTickets`);
 * - `partner.webhook_url.set` (partners: a webhookUrl set or changed) → webhooks make the
 *   messages that waited for a URL due (`WebhooksService.resumeWaiting`);
 * - `listing.available` (listings: published, or released by a checkout that ended unpaid) →
 *   the waiting list's offers hold it for the earliest fan it fits (flows/waiting-list-offers.ts
 *   `offerAvailable`), before the partner is told;
 * - `intention.ended` (intentions: paid, expired, failed, cancelled; before the listings are
 *   released) → for a `waitinglist` intention only, its offer ends (`offerEnded`: converted,
 *   expired, declined or withdrawn) and the partner is told; the release that follows raises
 *   `listing.available`, so the next fan is offered in the same transaction;
 * - `waitinglist.joined` → the `waitinglist.joined` webhook, and an offer at once when stock on
 *   sale fits the new entry (`entryJoined`); `waitinglist.enabled` → the stock on sale is
 *   offered to the line (`matchShow`).
 *
 * So deleting a ticket reads, from here: ticket.invalidated → listing ended → its checkout
 * cancelled and, for a channel's listing, the channel's other tickets gone; all in the
 * deletion's transaction. Called once by deps.ts after every service is built.
 */
export function wireReactions(deps: ReactionsDeps): void {
  deps.bus.on('show.cancelled', async (tx, e) => await cancelShow(deps, tx, e));
  deps.bus.on('ticket.invalidated', async (tx, e) => await deps.listings.endForTicket(tx, e.ticketPk, e.reason));
  deps.bus.on('listing.ended', async (tx, e) => await deps.intentions.endForListing(tx, e));
  deps.bus.on('listing.ended', async (tx, e) => await deps.channels.dropChannelTickets(tx, e.listingId));
  deps.bus.on('partner.webhook_url.set', async (tx, e) => void (await deps.webhooks.resumeWaiting(tx, e.partnerId)));
  deps.bus.on('listing.available', async (tx, e) => await offerAvailable(deps, tx, e));
  deps.bus.on('intention.ended', async (tx, e) => await offerEnded(deps, tx, e));
  deps.bus.on('waitinglist.joined', async (tx, e) => await entryJoined(deps, tx, e));
  deps.bus.on('waitinglist.enabled', async (tx, e) => await matchShow(deps, tx, e));
}
