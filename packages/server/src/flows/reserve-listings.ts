import type { Tx } from '../db/client.js';
import { ApiError } from '../lib/errors.js';
import { isResaleOpen } from '../domain/events/events.model.js';
import { showByPk } from '../domain/events/events.queries.js';
import type { IntentionRow } from '../domain/intentions/intentions.queries.js';
import { listingsByIds } from '../domain/listings/listings.queries.js';
import { assertNoOrphanSeat } from './market.seatmap.js';
import type { PartnerRow } from '../domain/partners/partners.queries.js';
import type { Kernel } from '../lib/kernel.js';
import type { IntentionsService } from '../domain/intentions/intentions.service.js';
import { listingUnavailable, type ListingsService } from '../domain/listings/listings.service.js';
import type { Metrics } from '../domain/metrics/metrics.service.js';

/** What reserving listings needs from the modules it composes. */
export type ReserveDeps = Pick<Kernel, 'clock'> & { intentions: IntentionsService; listings: ListingsService; metrics: Metrics };

/** A reservation request: the listings picked, by whom (null: the buyer signs in at checkout). */
export interface ReserveInput {
  partner: PartnerRow;
  listingIds: readonly string[];
  buyerPk: string | null;
  /** The partner page to return to (already checked by the caller). */
  returnTo?: string | null;
  /** HMAC of the client address, for the per-address hold limit (hosted pages only). */
  clientKey?: string | null;
}

/**
 * Reserve listings (the API's buyIntention and checkout URL, the market's Buy): checks that
 * the pick is one checkout (one show, one ticket option, one currency), that the show is on
 * sale and not started, that the buyer is not the seller and that the pick strands no single
 * seat in a row (the seat map's rule, unless the partner allows it: market.seatmap.ts); opens a
 * PENDING buy intention (intentions: hold limits, expiry); then reserves exactly those listings for it (listings:
 * ACTIVE → RESERVED in one conditional statement, `listing.updated` each). Everything in the
 * caller's transaction: a listing taken meanwhile rolls all of it back.
 *
 * @throws 400 `missing_field`/`invalid_value` (`mixed_items`; OrphanSeatError), 404 unknown listing,
 *   409 (`own_listing`, `resale_closed`, `listing_unavailable`), 429 HoldLimitError
 */
export async function reserveListings(deps: ReserveDeps, tx: Tx, input: ReserveInput): Promise<IntentionRow> {
  try {
    return await reserve(deps, tx, input);
  } catch (err) {
    // A refusal (an ApiError: its domain reason, else its code) counts at once: nothing of it commits.
    if (err instanceof ApiError) deps.metrics.intention(null, 'refused', err.reason ?? err.code);
    throw err;
  }
}

/**
 * The read before the write: refuses a pick of which a listing is no longer ACTIVE (409
 * `listing_unavailable`, counted as a refusal) from one read, without taking the write lock or
 * paying a commit. In a rush most attempts ask for tickets already taken, and each used to wait
 * its turn at the single writer only to hear "gone". Only a shortcut, never the guard: a
 * listing taken between this read and the write is still refused by the conditional statement
 * in `ListingsService.reserve`. Unknown ids and every other check are left to
 * {@link reserveListings}, so the answers stay the same.
 *
 * @throws 409 `listing_unavailable`
 */
export async function refuseTaken(deps: Pick<Kernel, 'db'> & { metrics: Metrics }, partnerId: string, listingIds: readonly string[]): Promise<void> {
  const rows = await deps.db.read(async (tx) => await listingsByIds(tx, partnerId, [...new Set(listingIds)]));
  if (rows.some((r) => r.state !== 'ACTIVE')) {
    deps.metrics.intention(null, 'refused', 'listing_unavailable');
    throw listingUnavailable();
  }
}

async function reserve(deps: ReserveDeps, tx: Tx, input: ReserveInput): Promise<IntentionRow> {
  const ids = [...new Set(input.listingIds)];
  // The API's schema asks for one item at least; a page's form post reaches here without it.
  if (ids.length === 0) throw ApiError.field('missing_field', 'items', 'Pick at least one ticket');
  if (ids.length !== input.listingIds.length) throw ApiError.field('invalid_value', 'items', 'A listing appears twice');
  const rows = await listingsByIds(tx, input.partner.id, ids);
  for (const id of ids) if (!rows.some((r) => r.id === id)) throw ApiError.notFound('listing', id);
  const first = rows[0]!;
  if (rows.some((r) => r.showPk !== first.showPk || r.ticketOptionPk !== first.ticketOptionPk || r.currency !== first.currency)) {
    throw ApiError.field('invalid_value', 'items', 'One checkout holds listings of one show and one ticket option', 'body', 'mixed_items');
  }
  if (input.buyerPk && rows.some((r) => r.sellerPk === input.buyerPk)) throw ApiError.conflict('You cannot buy your own listing', undefined, 'own_listing');
  const show = (await showByPk(tx, first.showPk))!;
  if (!isResaleOpen(show) || deps.clock.now() >= show.startsAt) throw ApiError.conflict('Resale is closed for this show', undefined, 'resale_closed');
  await assertNoOrphanSeat(tx, input.partner, first.showPk, ids);
  // In the order of the pick, so the intention lists them as the buyer chose.
  const ordered = ids.map((id) => rows.find((r) => r.id === id)!);
  const intention = await deps.intentions.open(tx, input.partner, { listings: ordered, buyerPk: input.buyerPk, returnTo: input.returnTo ?? null, clientKey: input.clientKey ?? null });
  await deps.listings.reserve(tx, input.partner.id, ids, intention.id);
  return intention;
}
