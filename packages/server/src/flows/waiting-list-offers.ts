import { chartSeats, type Seat } from '@resale/shared/seat-rules';
import type { Tx } from '../db/client.js';
import { lockOrYield } from '../db/dialect.js';
import type { AuthService } from '../domain/auth/auth.service.js';
import type { MessagesService } from '../domain/email/email.service.js';
import { isResaleOpen } from '../domain/events/events.model.js';
import { showWithEvent, ticketOptionByPk, ticketOptionsByPks, type EventRow, type ShowRow } from '../domain/events/events.queries.js';
import { MAX_INTENTION_ITEMS, type IntentionsService } from '../domain/intentions/intentions.service.js';
import { freeListingsOfShow, type ListingRow } from '../domain/listings/listings.queries.js';
import type { ListingsService } from '../domain/listings/listings.service.js';
import { partnerOf, type PartnerRow } from '../domain/partners/partners.queries.js';
import { ticketSeatsByPks } from '../domain/tickets/tickets.queries.js';
import { userByPk, type UserRow } from '../domain/users/users.queries.js';
import { userToApi } from '../domain/users/users.service.js';
import { FreePool, type Fit, type FreeListing } from '../domain/waitinglist/waitinglist.match.js';
import { quietHoursEnd, type OfferOutcome } from '../domain/waitinglist/waitinglist.model.js';
import { earliestWaitingOf, waitingClassesOf, waitingListEntryById, waitingListSettingsOf, type WaitinglistEntryRow, type WaitinglistSettingsRow } from '../domain/waitinglist/waitinglist.queries.js';
import { waitingListLockKey, type WaitingListService } from '../domain/waitinglist/waitinglist.service.js';
import type { WebhooksService } from '../domain/webhooks/webhooks.service.js';
import { toIso } from '../lib/clock.js';
import type { DomainEventMap } from '../lib/domain-events.js';
import { ApiError } from '../lib/errors.js';
import type { Kernel } from '../lib/kernel.js';
import { toMajor } from '../lib/money.js';
import { serviceUrl, servicePaths } from '../lib/urls.js';

/**
 * The waiting list's offers: a listing that becomes available (published, or given back by a
 * checkout that ended unpaid) is offered first to the earliest entry of the show's line it
 * satisfies, in the transaction that made it available, so it is never on public sale while a
 * fan it fits waits. An offer is a buy intention of kind `waitinglist` holding exactly the fitted
 * listings RESERVED for the fan until the offer's end: the checkout, its expiry, payment and
 * refunds are the ordinary ones. Its end (`intention.ended`) ends the offer, and the listings
 * it gives back flow through `listing.available` to the next fan in the same transaction.
 *
 * Locking: everything runs under the show's waiting-list lock (the key every write to the line
 * takes; here through `lockOrYield`: a burst of one show's publishes, each finding the line
 * busy, gives way and runs again rather than wait holding a pooled connection), and the listings it may offer are read with `skipLocked` where the
 * dialect has it: the lock holder never waits on a listing row another transaction is changing
 * (that transaction runs this flow itself for what it frees), so no lock order can deadlock.
 * Reserving is `ListingsService.reserve`, the one conditional statement that guards every sale,
 * in a savepoint: a listing taken meanwhile rolls back that offer only, and the pool is read again.
 */

/** What the offers compose. */
export type WaitingListOffersDeps = Pick<Kernel, 'clock' | 'config'> & {
  waitingList: WaitingListService;
  listings: ListingsService;
  intentions: IntentionsService;
  messages: MessagesService;
  webhooks: WebhooksService;
  auth: AuthService;
};

/** Purpose of the one-time sign-in token of an offer's e-mail (AuthService tokens are tagged for audit). */
export const OFFER_TOKEN_PURPOSE = 'waitinglistOffer';

/** Entries read per class when the earliest is the seller of a fitted listing (a fan is never offered their own). */
const ENTRIES_PER_CLASS = 4;
/** Offers tried again after a listing was taken between the read and the reservation, before giving up for this transaction. */
const MAX_RETRIES = 3;

/** The show under its lock, with what an offer needs; null when the line offers nothing now. */
interface Line {
  settings: WaitinglistSettingsRow;
  show: ShowRow;
  event: EventRow;
  partner: PartnerRow;
  chart: readonly Seat[];
  /** When an offer made now tells its fan: now, or the end of the show's quiet hours. */
  notifyAt: number;
}

/** A free listing with its row, as read for this offer round. */
interface Free {
  row: ListingRow;
  free: FreeListing;
}

/**
 * `listing.available` (flows/reactions.ts): offers the new or released listings to the line.
 * Shows without a waiting list pay one primary-key read. Listings no entry fits stay on sale.
 */
export async function offerAvailable(deps: WaitingListOffersDeps, tx: Tx, e: DomainEventMap['listing.available']): Promise<void> {
  const line = await lineOf(deps, tx, e.showPk);
  if (!line) return;
  await offerListings(deps, tx, line, e.listingIds, new Set(e.cause === 'new' ? e.listingIds : []));
}

/**
 * `waitinglist.joined`: the `waitinglist.joined` webhook, then an offer at once when stock on
 * sale fits the new entry (no earlier entry can fit that stock: it would have been offered it).
 */
export async function entryJoined(deps: WaitingListOffersDeps, tx: Tx, e: DomainEventMap['waitinglist.joined']): Promise<void> {
  const entry = await waitingListEntryById(tx, e.entryId);
  if (!entry) return;
  const found = await showWithEvent(tx, entry.showPk);
  if (!found) return;
  const user = (await userByPk(tx, entry.userPk))!;
  const position = await deps.waitingList.get(tx, entry.partnerId, entry.id).then((x) => x.position ?? 1);
  await deps.webhooks.enqueue(tx, entry.partnerId, {
    action: 'waitinglist.joined',
    resourceKey: `waitinglist:${entry.id}`,
    data: { ...(await entryData(tx, found.event, found.show, entry, user)), position, joinedAt: toIso(entry.joinedAt) },
  });
  await matchEntry(deps, tx, e);
}

/**
 * Offers the stock on sale to one WAITING entry, when some fits it (a fan joining while fitting
 * listings are on sale). The first listing, in publishing order, that a fit includes decides.
 */
export async function matchEntry(deps: WaitingListOffersDeps, tx: Tx, e: { showPk: string; entryId: string }): Promise<void> {
  const line = await lineOf(deps, tx, e.showPk);
  if (!line) return;
  const entry = await waitingListEntryById(tx, e.entryId);
  if (entry?.state !== 'WAITING') return;
  const frees = await readFree(tx, line);
  const pool = poolOf(line, frees);
  const cls = { quantity: entry.quantity, together: entry.together, optionPk: entry.ticketOptionPk };
  for (const f of [...frees.values()].sort((a, b) => a.free.publishedAt - b.free.publishedAt || (a.free.id < b.free.id ? -1 : 1))) {
    const fit = pool.fit(cls, f.free.id, { excludeSellerPk: entry.userPk });
    if (fit && (await makeOffer(deps, tx, line, entry, fit, frees, new Set()))) return;
  }
}

/** `waitinglist.enabled`: everything on sale is offered to the line, earliest published first. */
export async function matchShow(deps: WaitingListOffersDeps, tx: Tx, e: { showPk: string }): Promise<void> {
  const line = await lineOf(deps, tx, e.showPk);
  if (!line) return;
  await offerListings(deps, tx, line, null, new Set());
}

/** What one sweep of the waiting lists did. */
export interface SweepReport {
  /** Entries closed because their show was cancelled or has begun. */
  closed: number;
  /** Lines whose stock on sale was offered again. */
  swept: number;
}

/**
 * The waiting lists' sweep (jobs/waitinglist.job.ts), each show with live entries in its own
 * transaction: the line of a show cancelled or begun is closed (its entries `CLOSED`, a live
 * offer withdrawn and its checkout cancelled); any other line is offered what is on sale and
 * fits it ({@link matchShow}). Offers are made as listings become available; the sweep is the
 * repair for the rare listing an offer round skipped (locked by a transaction that then rolled
 * back) and the end of lines nobody else would close.
 */
export async function sweepWaitingLists(deps: WaitingListOffersDeps & Pick<Kernel, 'db'>): Promise<SweepReport> {
  const report: SweepReport = { closed: 0, swept: 0 };
  const shows = await deps.db.read(async (tx) => await deps.waitingList.showsWithLiveEntries(tx));
  for (const showPk of shows) {
    await deps.db.transact(async (tx) => {
      const found = await showWithEvent(tx, showPk);
      if (!found) return;
      const cancelled = found.show.status === 'CANCELLED';
      if (cancelled || deps.clock.now() >= found.show.startsAt) {
        const r = await deps.waitingList.close(tx, showPk, cancelled ? 'show_cancelled' : 'show_started');
        // The offers were withdrawn with the line: their checkouts end, their tickets go back.
        for (const id of r.cancelIntentionIds) await deps.intentions.endIfPending(tx, id, 'CANCELLED', 'waitinglist_closed');
        report.closed += r.closed;
        return;
      }
      await matchShow(deps, tx, { showPk });
      report.swept++;
    });
  }
  return report;
}

/**
 * `intention.ended`: the offer held by a `waitinglist` intention ends as the intention did, and
 * the partner is told. Returns at once for an ordinary checkout (no query). Runs before the
 * intention's listings are released, so the fan has moved on when they are offered again.
 *
 * PAID → CONVERTED; EXPIRED → EXPIRED (`timeout`); FAILED → EXPIRED (`payment_failed`);
 * CANCELLED by the fan (`buyer`, `declined`) → DECLINED; CANCELLED for any other reason (the
 * listing was delisted, withdrawn, became unavailable, its ticket moved) → WITHDRAWN: not the
 * fan's doing, they keep their place.
 */
export async function offerEnded(deps: WaitingListOffersDeps, tx: Tx, e: DomainEventMap['intention.ended']): Promise<void> {
  if (e.kind !== 'waitinglist') return;
  const { outcome, reason } = outcomeOf(e);
  const ended = await deps.waitingList.endOffer(tx, e.intentionId, outcome, reason);
  if (!ended) return;
  const entry = (await waitingListEntryById(tx, ended.entry.id))!;
  const found = (await showWithEvent(tx, entry.showPk))!;
  const user = (await userByPk(tx, entry.userPk))!;
  const base = await entryData(tx, found.event, found.show, entry, user);
  const resourceKey = `waitinglist:${entry.id}`;
  if (outcome === 'CONVERTED') {
    const tickets = await ticketsOfListings(deps, tx, ended.offer.listingIds);
    await deps.webhooks.enqueue(tx, e.partnerId, {
      action: 'waitinglist.converted',
      resourceKey,
      data: { ...base, offerId: ended.offer.id, intentionId: e.intentionId, listingIds: ended.offer.listingIds, ticketIds: tickets.map((t) => t.ticketId), paidAt: toIso(deps.clock.now()) },
    });
    return;
  }
  const said = outcome === 'DECLINED' ? 'declined' : outcome === 'WITHDRAWN' ? 'withdrawn' : reason === 'payment_failed' ? 'payment_failed' : 'timeout';
  const entryState = ended.entry.state === 'WAITING' || ended.entry.state === 'DECLINED' ? ended.entry.state : 'EXPIRED';
  await deps.webhooks.enqueue(tx, e.partnerId, { action: 'waitinglist.expired', resourceKey, data: { ...base, offerId: ended.offer.id, reason: said, entryState } });
}

/** How an offer ends for how its intention ended, and the end reason stored with it. */
export function outcomeOf(e: Pick<DomainEventMap['intention.ended'], 'state' | 'reason'>): { outcome: OfferOutcome; reason: string } {
  switch (e.state) {
    case 'PAID':
      return { outcome: 'CONVERTED', reason: 'paid' };
    case 'EXPIRED':
      return { outcome: 'EXPIRED', reason: 'timeout' };
    case 'FAILED':
      return { outcome: 'EXPIRED', reason: 'payment_failed' };
    case 'CANCELLED':
      return e.reason === 'buyer' || e.reason === 'declined' ? { outcome: 'DECLINED', reason: 'declined' } : { outcome: 'WITHDRAWN', reason: e.reason || 'withdrawn' };
  }
}

// ------------------------------------------------------------------ internals

/**
 * The show's line under its lock, or null when it offers nothing: no settings row (read before
 * the lock: what a show without the feature pays), off, nobody waiting, resale closed, started.
 */
async function lineOf(deps: WaitingListOffersDeps, tx: Tx, showPk: string): Promise<Line | null> {
  if (!(await waitingListSettingsOf(tx, showPk))) return null;
  // The show's publishes come in bursts: wait for the line without holding a pooled connection.
  await lockOrYield(tx, waitingListLockKey(showPk));
  const settings = await waitingListSettingsOf(tx, showPk);
  if (!settings?.enabled || settings.waiting <= 0) return null;
  const found = await showWithEvent(tx, showPk);
  const now = deps.clock.now();
  if (!found || !isResaleOpen(found.show) || now >= found.show.startsAt) return null;
  // Inside quiet hours the offer is made now and told when they end; ending after the show has
  // begun, nobody could be told in time: the tickets stay on public sale instead.
  const notifyAt = quietHoursEnd(settings.quietHours, now) ?? now;
  if (notifyAt >= found.show.startsAt) return null;
  const svg = found.event.seating?.svgCode;
  return { settings, show: found.show, event: found.event, partner: await partnerOf(tx, settings.partnerId), chart: svg ? chartSeats(svg) : [], notifyAt };
}

/** The show's ACTIVE listings with their seats (skip-locked where the dialect can). */
async function readFree(tx: Tx, line: Line): Promise<Map<string, Free>> {
  const rows = await freeListingsOfShow(tx, line.show.id);
  const seats = await ticketSeatsByPks(tx, rows.flatMap((r) => r.ticketPks));
  return new Map(
    rows.map(({ listing, ticketPks }) => [
      listing.id,
      {
        row: listing,
        free: {
          id: listing.id,
          optionPk: listing.ticketOptionPk,
          quantity: listing.quantity,
          seats: ticketPks.map((pk) => {
            const s = seats.get(pk);
            return { section: s?.section ?? null, row: s?.row ?? null, seat: s?.seat ?? null };
          }),
          publishedAt: listing.createdAt,
          sellerPk: listing.sellerPk,
        },
      },
    ]),
  );
}

function poolOf(line: Line, frees: ReadonlyMap<string, Free>): FreePool {
  return new FreePool(
    [...frees.values()].map((f) => f.free),
    { chartSeats: line.chart, allowOrphans: line.partner.settings.buyAccessLayer?.integratedMap?.allowOrphanTicketSelection ?? false, maxListings: MAX_INTENTION_ITEMS },
  );
}

/**
 * Offers `candidates` (null: every listing on sale), each to the earliest entry a fit including
 * it satisfies, until none of them fits anyone. A listing that fits nobody stays on sale: the
 * pool only shrinks and entries only leave while this runs, so it is not asked again.
 */
async function offerListings(deps: WaitingListOffersDeps, tx: Tx, line: Line, candidates: readonly string[] | null, unannounced: ReadonlySet<string>): Promise<void> {
  let frees = await readFree(tx, line);
  const byPublishing = (a: string, b: string) => frees.get(a)!.free.publishedAt - frees.get(b)!.free.publishedAt || (a < b ? -1 : 1);
  let pending = (candidates ?? [...frees.keys()]).filter((id) => frees.has(id)).sort(byPublishing);
  let retries = 0;
  while (pending.length > 0) {
    const classes = await waitingClassesOf(tx, line.show.id);
    if (classes.length === 0) return;
    const pool = poolOf(line, frees);
    let next: string[] | null = null;
    for (const [i, id] of pending.entries()) {
      const best = await earliestFit(tx, line, pool, classes, id);
      if (!best) continue;
      if (await makeOffer(deps, tx, line, best.entry, best.fit, frees, unannounced)) {
        const taken = new Set(best.fit.listingIds);
        for (const l of taken) frees.delete(l);
        // Those before `id` fit nobody; `id` and the rest are asked again (the pool changed).
        next = pending.slice(i).filter((p) => !taken.has(p));
      } else {
        // A listing was taken between the read and the reservation: read the pool again.
        if (++retries > MAX_RETRIES) return;
        frees = await readFree(tx, line);
        next = pending.slice(i).filter((p) => frees.has(p));
      }
      break;
    }
    if (next === null) return;
    pending = next;
  }
}

/**
 * The earliest WAITING entry (smallest `seq`) that a fit including `listingId` satisfies, over
 * every class of the line: one fit and one index seek per class, whatever the line's length.
 */
async function earliestFit(tx: Tx, line: Line, pool: FreePool, classes: readonly { quantity: number; together: boolean; ticketOptionPk: string | null }[], listingId: string): Promise<{ entry: WaitinglistEntryRow; fit: Fit } | null> {
  let best: { entry: WaitinglistEntryRow; fit: Fit } | null = null;
  for (const c of classes) {
    const cls = { quantity: c.quantity, together: c.together, optionPk: c.ticketOptionPk };
    const fit = pool.fit(cls, listingId);
    if (!fit) continue;
    for (const entry of await earliestWaitingOf(tx, line.show.id, c, ENTRIES_PER_CLASS)) {
      if (best && best.entry.seq < entry.seq) break;
      // A fan is never offered their own listing: the fit without theirs, or the next entry.
      const own = pool.fit(cls, listingId, { excludeSellerPk: entry.userPk });
      if (!own) continue;
      best = { entry, fit: own };
      break;
    }
  }
  return best;
}

/**
 * One offer, in a savepoint: the `waitinglist` intention, the reservation (the conditional
 * statement of every sale), the offer recorded on the entry, the fan's e-mail (or SMS) with a
 * link to the checkout that signs them in once, and the `waitinglist.offered` webhook. False,
 * with nothing written, when a listing was no longer ACTIVE.
 */
async function makeOffer(deps: WaitingListOffersDeps, tx: Tx, line: Line, entry: WaitinglistEntryRow, fit: Fit, frees: ReadonlyMap<string, Free>, unannounced: ReadonlySet<string>): Promise<boolean> {
  const rows = fit.listingIds.map((id) => frees.get(id)!.row);
  try {
    await tx.transact(async (sp) => {
      const now = deps.clock.now();
      // Told now, or when the show's quiet hours end; held `offerMinutes` from then, never past
      // the show's start: nobody pays for a show that has begun.
      const notifyAt = line.notifyAt;
      const expiresAt = Math.min(notifyAt + line.settings.offerMinutes * 60_000, line.show.startsAt);
      const intention = await deps.intentions.openOffer(sp, { partnerId: line.partner.id, listings: rows, buyerPk: entry.userPk, expiresAt });
      await deps.listings.reserve(sp, line.partner.id, fit.listingIds, intention.id, { unannounced: fit.listingIds.filter((id) => unannounced.has(id)) });
      const offer = await deps.waitingList.recordOffer(sp, { entryId: entry.id, intentionId: intention.id, listingIds: fit.listingIds, quantity: fit.quantity, expiresAt, notifyAt });

      const user = (await userByPk(sp, entry.userPk))!;
      const tickets = await ticketsOfListings(deps, sp, fit.listingIds);
      const options = await ticketOptionsByPks(sp, tickets.map((t) => t.ticketOptionPk));
      const lang = line.partner.settings.defaultLang;
      const token = await deps.auth.mintOneTimeToken(sp, line.partner.id, user.id, OFFER_TOKEN_PURPOSE, { ttlSeconds: Math.max(1, Math.ceil((expiresAt - now) / 1000)) });
      const checkoutUrl = serviceUrl(deps.config.publicBaseUrl, servicePaths.checkout(line.partner.id, intention.id, { lang, oneTimeToken: token }));
      const timeZone = line.show.location?.timeZone || line.event.location?.timeZone || undefined;
      const messageId = await deps.messages.toUser(sp, line.partner.id, user, 'waitingListOffer', lang, {
        eventTitle: line.event.title,
        showTitle: line.show.title,
        showDate: toIso(line.show.startsAt),
        tickets: tickets.map((t) => ({ option: options.get(t.ticketOptionPk)?.title ?? t.ticketOptionPk, section: t.section, row: t.row, seat: t.seat })),
        amount: { minor: intention.totalMinor, currency: intention.currency },
        expiresAt: toIso(expiresAt),
        minutes: Math.max(1, Math.round((expiresAt - notifyAt) / 60_000)),
        checkoutUrl,
        ...(timeZone ? { timeZone } : {}),
      }, { notBefore: notifyAt });
      if (messageId) await deps.waitingList.noteOfferMessage(sp, offer.id, messageId);

      await deps.webhooks.enqueue(sp, line.partner.id, {
        action: 'waitinglist.offered',
        resourceKey: `waitinglist:${entry.id}`,
        data: {
          ...(await entryData(sp, line.event, line.show, entry, user)),
          offerId: offer.id,
          intentionId: intention.id,
          listingIds: fit.listingIds,
          ticketIds: tickets.map((t) => t.ticketId),
          seats: tickets.map((t) => ({ section: t.section, row: t.row, seat: t.seat })),
          currency: intention.currency,
          total: toMajor(intention.totalMinor, intention.currency),
          offeredAt: toIso(now),
          notifyAt: toIso(notifyAt),
          expiresAt: toIso(expiresAt),
        },
      });
    });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.reason === 'listing_unavailable') return false;
    throw err;
  }
}

/** The tickets of listings, in the listings' order. */
async function ticketsOfListings(deps: Pick<WaitingListOffersDeps, 'listings'>, tx: Tx, listingIds: readonly string[]) {
  const out = [];
  for (const id of listingIds) out.push(...(await deps.listings.ticketsOf(tx, id)));
  return out;
}

/** What every `waitinglist.*` webhook says of its entry. */
async function entryData(tx: Tx, event: EventRow, show: ShowRow, entry: WaitinglistEntryRow, user: UserRow) {
  return {
    entryId: entry.id,
    eventId: event.externalReferenceId,
    showId: show.showId,
    ticketOptionId: entry.ticketOptionPk === null ? null : ((await ticketOptionByPk(tx, entry.ticketOptionPk))?.ticketId ?? null),
    user: userToApi(user),
    quantity: entry.quantity,
    together: entry.together,
  };
}
