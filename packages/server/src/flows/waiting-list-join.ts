import type { Tx } from '../db/client.js';
import type { AuthService } from '../domain/auth/auth.service.js';
import type { EventsService } from '../domain/events/events.service.js';
import type { IntentionsService } from '../domain/intentions/intentions.service.js';
import type { WaitingListService } from '../domain/waitinglist/waitinglist.service.js';
import type { Kernel } from '../lib/kernel.js';
import type { LeadsService } from '../domain/marketdata/leads.service.js';
import { WAITING_LIST_LEAD_TAG } from '../domain/marketdata/leads.wishlist.js';
import { LeadInputSchema } from '../domain/marketdata/leads.schemas.js';
import { DEFAULT_HOLD_LIMITS } from '../domain/partners/partners.settings.js';
import type { PartnerRow } from '../domain/partners/partners.queries.js';
import type { UserRow } from '../domain/users/users.queries.js';
import { WaitingListConflict, type EntrySource, type WaitingListEntry } from '../domain/waitinglist/waitinglist.model.js';
import { toIso } from '../lib/clock.js';
import { ApiError, type ErrorLocation } from '../lib/errors.js';

/**
 * Joining and leaving a show's waiting list, as the partner API (and later the market and the
 * widgets) do it: the use cases that span the waiting list, users, market-data leads and buy
 * intentions. Each runs in the caller's transaction, so a refusal anywhere writes nothing.
 */

/** What joining and leaving use. */
export type WaitingListJoinDeps = Pick<Kernel, 'clock'> & { auth: AuthService; events: EventsService; intentions: IntentionsService; waitingList: WaitingListService; leads: LeadsService };
type Deps = WaitingListJoinDeps;


/** What a fan joining asks for; `user` is the partner's way of naming the fan (e-mail, E.164 phone or its user id). */
export interface JoinRequest {
  externalReferenceEventId: string;
  showId: string;
  ticketOptionId?: string | undefined;
  quantity: number;
  together: boolean;
  user: string;
  source?: EntrySource | undefined;
}

/**
 * Puts a fan at the back of a show's line and records them as a WISHLIST lead of the show (the
 * contract: entries are Wishlist leads, so they count in the show's market data).
 *
 * The fan is resolved in the partner's scope exactly as a buy intention's `user` is (a key acts
 * only for its own users, a new identifier makes a new user of the partner). A fan the service
 * cannot reach (neither an e-mail nor a phone) is refused: an offer they never hear of would hold
 * tickets away from everyone for nothing. The most tickets per entry is the partner's hold limit
 * per buyer and show, the one a buy intention is held to, so an offer is always one the fan may
 * hold.
 *
 * @throws ApiError 400 `user` malformed or unreachable, and the service's field errors (every one
 *   at once); 404 unknown event or show; 409 `resale_closed`, `show_started`, and (reason set)
 *   `waitinglist_closed` or `already_waiting`
 * @example const entry = await joinWaitingList(deps, tx, partner, { externalReferenceEventId: 'tour', showId: 'show-1', quantity: 2, together: false, user: 'fan@example.com' })
 */
export async function joinWaitingList(deps: Deps, tx: Tx, partner: Pick<PartnerRow, 'id' | 'settings'>, input: JoinRequest, where: ErrorLocation = 'body'): Promise<WaitingListEntry> {
  const user = await resolveFan(deps, tx, partner.id, input.user, where);
  if (!user.email && !user.phone) {
    throw ApiError.field('invalid_value', 'user', 'user has neither an e-mail nor a phone to be told of an offer: send their e-mail address (or E.164 phone) instead of your user id', where);
  }
  const entry = await withReason(
    async () =>
      await deps.waitingList.join(tx, partner.id, {
        externalReferenceEventId: input.externalReferenceEventId,
        showId: input.showId,
        ticketOptionId: input.ticketOptionId,
        userPk: user.id,
        quantity: input.quantity,
        maxPerBuyer: (partner.settings.holdLimits ?? DEFAULT_HOLD_LIMITS).ticketsPerBuyerPerShow,
        together: input.together,
        source: input.source ?? 'api',
      }),
  );
  // After the join, which validated the show and the option: the lead cannot refuse what the
  // entry accepted, and a refused join writes no lead.
  await deps.leads.upsert(
    tx,
    partner.id,
    LeadInputSchema.parse({
      type: 'WISHLIST',
      externalReferenceEventId: input.externalReferenceEventId,
      showId: input.showId,
      ...(input.ticketOptionId === undefined ? {} : { ticketOptionId: input.ticketOptionId }),
      buyer: leadBuyer(user),
      date: toIso(entry.joinedAt),
      tags: [WAITING_LIST_LEAD_TAG],
    }),
  );
  return entry;
}

/**
 * Takes an entry out of its line (the partner, for its fan). When the entry held a live offer,
 * leaving declines it: its buy intention is cancelled here, in the same transaction, with the
 * reason `declined`, so its tickets go back (to the next fan, or on sale) at once. An intention
 * that ended meanwhile (paid or expired a moment before) is left as it is.
 *
 * @throws ApiError 404 unknown (or another partner's) entry; 409 (reason `waitinglist_ended`) an entry already final
 * @example const left = await leaveWaitingList(deps, tx, partnerId, 'wle_…')
 */
export async function leaveWaitingList(deps: Deps, tx: Tx, partnerId: string, entryId: string): Promise<WaitingListEntry> {
  const { entry, cancelIntentionId } = await withReason(async () => await deps.waitingList.leave(tx, partnerId, entryId));
  // Not `cancel()`: it reads the intention first and would answer 409 for one that expired on
  // the way, which must not undo the fan's leaving.
  if (cancelIntentionId !== null) await deps.intentions.endIfPending(tx, cancelIntentionId, 'CANCELLED', 'declined');
  return entry;
}

/**
 * Runs `work`, giving the waiting list's refusals their domain reason (`lib/errors.ts`
 * DOMAIN_REASONS): the service says which rule refused in `refusal`, the pages and the API's
 * callers branch on `reason`. The status, entries and messages are the service's.
 */
export async function withReason<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof WaitingListConflict && err.reason === undefined) {
      throw new ApiError(err.status, err.code, err.message, { entries: err.entries, headers: err.headers, reason: err.refusal });
    }
    throw err;
  }
}

/**
 * The fan, resolved (found or created) in the partner's scope as a buy intention's `user` is
 * (two first joins of one new fan at once find one user: UsersService.resolve).
 */
async function resolveFan(deps: Deps, tx: Tx, partnerId: string, user: string, where: ErrorLocation): Promise<UserRow> {
  return await deps.auth.resolveUser(tx, partnerId, user, { path: 'user', in: where });
}

/** The fan as a lead's buyer: every identifier the partner knows them by (the strongest, the id, keys the lead). */
function leadBuyer(user: UserRow): { id?: string; email?: string; phone?: string } {
  return { ...(user.externalId ? { id: user.externalId } : {}), ...(user.email ? { email: user.email } : {}), ...(user.phone ? { phone: user.phone } : {}) };
}
