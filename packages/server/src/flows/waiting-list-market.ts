import type { Tx } from '../db/client.js';
import type { PartnerRow } from '../domain/partners/partners.queries.js';
import { userByPk, type UserRow } from '../domain/users/users.queries.js';
import type { WaitingListEntry } from '../domain/waitinglist/waitinglist.model.js';
import { ApiError } from '../lib/errors.js';
import { joinWaitingList, leaveWaitingList, type WaitingListJoinDeps } from './waiting-list-join.js';

/**
 * The waiting list from the hosted market page: the signed-in fan (a session's user, not a
 * partner's identifier) joins and leaves through the same flows as the partner API
 * (waiting-list-join.ts), so the entry is a Wishlist lead and leaving declines a live offer.
 */

/** What the market's join form asks for (the show by the partner's ids). */
export interface MarketJoin {
  externalReferenceEventId: string;
  showId: string;
  ticketOptionId?: string | undefined;
  quantity: number;
  together: boolean;
}

/**
 * The identifier that names this user in the partner's scope, as `joinWaitingList`'s `user`
 * reads it: the e-mail (unique per partner), else the partner's user id when it cannot be taken
 * for an e-mail or a phone, else the phone; null when the user has none.
 */
function nameOf(user: UserRow): string | null {
  if (user.email) return user.email;
  if (user.externalId && !user.externalId.includes('@') && !user.externalId.trim().startsWith('+') && user.externalId.trim() === user.externalId) return user.externalId;
  return user.phone ?? null;
}

/**
 * Puts the signed-in fan (`userPk`) at the back of the show's line, from the market (source
 * `market`), in the caller's transaction.
 *
 * @throws ApiError as `joinWaitingList` (400 fields, every one at once; 404; 409 with `reason`
 *   `waitinglist_closed` or `already_waiting`, `resale_closed`, `show_started`); 400 on `user`
 *   when the fan has no e-mail or phone to be told of an offer
 */
export async function joinFromMarket(deps: WaitingListJoinDeps, tx: Tx, partner: Pick<PartnerRow, 'id' | 'settings'>, userPk: string, input: MarketJoin): Promise<WaitingListEntry> {
  const user = await userByPk(tx, userPk);
  if (!user || user.partnerId !== partner.id) throw ApiError.notFound('user');
  const name = nameOf(user);
  if (name === null) throw ApiError.field('invalid_value', 'user', 'The fan has neither an e-mail nor a phone to be told of an offer', 'body');
  const entry = await joinWaitingList(deps, tx, partner, { ...input, user: name, source: 'market' }, 'body');
  // The identifier named this very fan (an e-mail and a user id are unique per partner); were it
  // ever another (a phone several users share), the transaction is undone rather than queue someone else.
  if (entry.userPk !== userPk) throw new Error(`waiting-list-market: user ${userPk} resolved to ${entry.userPk}`);
  return entry;
}

/**
 * Takes the signed-in fan's own entry out of its line (a live offer declined, its checkout
 * cancelled: the tickets pass to the next fan). Another fan's entry reads as unknown.
 *
 * @throws ApiError 404 unknown entry or another fan's; 409 (reason `waitinglist_ended`) already final
 */
export async function leaveFromMarket(deps: WaitingListJoinDeps, tx: Tx, partnerId: string, userPk: string, entryId: string): Promise<WaitingListEntry> {
  await deps.waitingList.get(tx, partnerId, entryId, { userPk });
  return await leaveWaitingList(deps, tx, partnerId, entryId);
}
