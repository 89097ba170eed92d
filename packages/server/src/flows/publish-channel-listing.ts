import type { Tx } from '../db/client.js';
import { ApiError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { toMinor } from '../lib/money.js';
import { CHANNEL_USER_PREFIX } from '../domain/channels/channels.service.js';
import { DEFAULT_CHANNEL_ID, type ChannelListingCreate } from '../domain/channels/channels.schemas.js';
import type { ListingRow } from '../domain/listings/listings.queries.js';
import type { ChannelsService } from '../domain/channels/channels.service.js';
import type { EventsService } from '../domain/events/events.service.js';
import type { ListingsService } from '../domain/listings/listings.service.js';
import type { TicketsService } from '../domain/tickets/tickets.service.js';
import type { UsersService } from '../domain/users/users.service.js';

/** What publishing a channel listing needs from the modules it composes. */
export type PublishChannelListingDeps = { events: EventsService; users: UsersService; tickets: TicketsService; listings: ListingsService; channels: ChannelsService };

/**
 * Publish a channel's listing on the partner's market (`POST /v1/channels/listings`):
 * 1. the channel has not used `externalListingId` before (channels);
 * 2. the show, ticket option and combination exist, currency and seats fit, the show is open
 *    for resale and not started (events, channels);
 * 3. the price settles under the rules of the option or combination with its fees
 *    (listings: the same price assembly as a fan's listing);
 * 4. the user that stands for the channel (users) gets its tickets, LISTED (tickets);
 * 5. the listing opens, ACTIVE, with `listing.created` (listings);
 * 6. who pushed it under which id is recorded (channels; the unique index settles a race
 *    between two publishes with the same id).
 * One transaction: a refusal at any step leaves nothing behind.
 *
 * @throws 404 unknown event, show or ticket option; 400 bad price, currency, seats or price
 *   type; 409 the externalListingId was used, resale closed, show started
 */
export async function publishChannelListing(deps: PublishChannelListingDeps, tx: Tx, partnerId: string, input: ChannelListingCreate): Promise<ListingRow> {
  const channelId = input.channelId ?? DEFAULT_CHANNEL_ID;
  await deps.channels.assertUnused(tx, partnerId, channelId, input.externalListingId);

  const { event, show } = await deps.events.findShow(tx, partnerId, input.externalReferenceEventId, input.showId);
  const option = await deps.events.findTicketOption(tx, show.id, input.ticketOptionId);
  const combo = input.priceTypeId === undefined ? null : await deps.events.findCombination(tx, show.id, input.ticketOptionId, input.priceTypeId);
  if (input.currency !== option.currency) throw ApiError.field('invalid_value', 'currency', `currency must be ${option.currency}, the currency of ticket option '${option.ticketId}'`);
  if (input.seats && input.seats.length !== input.quantity) throw ApiError.field('invalid_value', 'seats', `seats must hold one entry per ticket (${input.quantity})`);
  deps.channels.assertOpen(show);
  const scope = { partnerId, showPk: show.id, ticketOptionPk: option.id, priceTypePk: combo?.priceType.id ?? null };
  const price = await deps.listings.price(tx, scope, toMinor(input.price, option.currency, 'price'));

  const owner = await deps.users.resolve(tx, partnerId, { id: CHANNEL_USER_PREFIX + channelId }, 'channelId');
  const listingId = newId('listing');
  const held = await deps.tickets.createForChannel(tx, {
    partnerId,
    listingId,
    eventPk: event.id,
    showPk: show.id,
    ticketOptionPk: option.id,
    priceTypePk: scope.priceTypePk,
    ownerPk: owner.id,
    currency: option.currency,
    // Not an entry credential: the channel delivers the real ticket once it is sold.
    locator: `${channelId}:${input.externalListingId}`,
    seats: input.seats ?? [],
    quantity: input.quantity,
  });
  const listing = await deps.listings.open(tx, {
    id: listingId,
    ...scope,
    eventPk: event.id,
    sellerPk: owner.id,
    orderId: null,
    ticketPks: held.map((t) => t.id),
    currency: option.currency,
    price,
  });
  await deps.channels.record(tx, { listingId, partnerId, channelId, externalListingId: input.externalListingId, sellerReference: input.sellerReference ?? null });
  return listing;
}
