import { changeCounter, type DbChangeCounter, type DbVersion } from '../../db/change-counter.js';
import type { Db, Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { encodeSync, type Encoding } from '../../lib/compression.js';
import { showSnapshotReads, type ShowRow } from '../../domain/events/events.queries.js';
import { cheapestActivePerOption, listingsByIds, showListingReads, ticketPksOfListings } from '../../domain/listings/listings.queries.js';
import { liveHoldsFingerprint, liveHoldsOfShow, type IntentionKind } from '../../domain/intentions/intentions.queries.js';
import { primarySaleReader } from '../../domain/marketdata/marketdata.queries.js';
import { ticketSeatsByPks } from '../../domain/tickets/tickets.queries.js';
import { waitingListSettingsOf, type WaitinglistSettingsRow } from '../../domain/waitinglist/waitinglist.queries.js';

export type { DbChangeCounter, DbVersion };

/**
 * What the buy access layer reads on every partner event page, kept in memory per show,
 * and how it stays exact.
 *
 * ## What is cached
 * A {@link ShowSnapshot} per (partner, event, show): the event's seating flag, the show's
 * status, dates and resale flag, its ticket options in the show's order, and per option the
 * number of tickets in ACTIVE listings, the lowest price per ticket with the buyer fee, and
 * the cheapest ACTIVE listing (with its seats), the show's live holds (whose, which option, how
 * many tickets, until when), and the primary sale's `soldOut` /
 * `soldPercentage` as the partner reported them (market data). Unknown (partner, event, show) triples are
 * cached too, as "not found", so a page with a wrong id does not query every time. Beside each
 * snapshot, the JSON text of its unsigned answers (per language, and per resale state, which
 * the clock alone can change), so a repeated page view serialises nothing. The partner's key
 * lookup is cached under the same rule (accesslayer.buy.keys.ts).
 *
 * ## How it stays fresh
 * Two levels.
 *
 * 1. The database's change counter ({@link DbChangeCounter}, src/db/change-counter.ts): this connection's
 *    `total_changes()` (every write of this process, seen at once) and `PRAGMA data_version`
 *    (commits by any other connection or process on the same file, read at most once per
 *    millisecond, so seen within a millisecond). A request reads it once, when its key is
 *    checked, and uses an entry as it is if the entry is valid at that very value, i.e. if no
 *    row of any table has been inserted, updated or deleted since. This is the hot path:
 *    nothing is queried but the counter.
 * 2. When the counter moved (something was written somewhere), the next request of each show
 *    compares the show's fingerprint (see `fingerprint`: the event's seating flag, the show's
 *    status, resale flag and start, its options, its primary-sale soldOut and soldPercentage,
 *    the set of its ACTIVE listings and their
 *    prices from a covering scan of `listings_show_state_idx`, the set of its live holds (by
 *    `buy_intentions_show_idx`: a paid hold leaves no trace among ACTIVE listings), the seats of its cheapest
 *    listings; about 2 ms for 10,000 listings) with the one the snapshot was built from. Same:
 *    the entry is kept and becomes valid at the new counter value (its rendered texts are
 *    dropped, since the partner's settings may be what changed). Different: the snapshot is
 *    rebuilt (a handful of indexed queries in one read transaction, about 25 ms for 10,000
 *    listings). So a write elsewhere costs a hot show one fingerprint, not a rebuild.
 *
 * So a listing created, repriced, reserved, released, sold, terminated or delisted, a seat of a
 * cheapest listing changed, a show cancelled, hidden, rescheduled or its resale switched off,
 * an option added, moved or given an area, seating added, the primary sale reported sold out:
 * all are seen by the very next
 * request, whatever the clock says, even within the same millisecond. The one change the
 * fingerprint cannot see is a buyer fee changed while the price stays the same (a seller
 * re-saving the same price after the partner's fees changed): the fee is not in the index.
 * That is bounded: an entry kept by its fingerprint after a write is rebuilt in full once it
 * is {@link FULL_REBUILD_MS} old (2 s on the injectable clock), so such a fee shows within 2 s.
 *
 * Time-dependent facts (the show has started) are not cached: they are evaluated on every
 * request against the clock.
 *
 * ## Compressed answers
 * A rendered answer is also kept compressed, Brotli and gzip, each made the first time a client
 * asks for it and kept as long as the rendered bytes are ({@link compressedAnswer}, a WeakMap on
 * those very bytes: when the entry is rebuilt or its texts dropped, the compressed forms go with
 * them). So a page view costs no compression, and a cache fill costs at most one per coding.
 *
 * Writes this module makes itself to tables snapshots never read (the one-time tokens and
 * users of Login Trust), run through {@link DbChangeCounter.forgive}, are subtracted from the
 * counter, so signed answers do not even cost a fingerprint.
 *
 * Why not `max(updated_at), count(*)` per show on every request: `updated_at` is not in
 * `listings_show_state_idx`, so that check reads every listing row of the show (10,000 rows
 * for a big show, several ms) on every request, and two changes in the same millisecond (or
 * under a manual clock) leave both values unchanged. Why not a TTL: it serves stale numbers
 * by design.
 *
 * Scaling note: with several server processes on one SQLite file, `data_version` still sees
 * the others' commits (within a millisecond). The fingerprint uses SQLite's rowid; on PostgreSQL the exact and
 * cheaper design is a per-show version bumped by the listing writes (a column, or a NOTIFY),
 * which needs the listings module.
 */

/** The cheapest ACTIVE listing of a ticket option. */
export interface CheapestListing {
  listingId: string;
  quantity: number;
  currency: string;
  /** Price per ticket with the buyer fee, minor units. */
  buyerTotalMinor: number;
  seats: { section: string | null; row: string | null; seat: string | null }[];
}

/** A ticket option of the show with its live market numbers. */
export interface OptionSnapshot {
  ticketOptionId: string;
  /** The option's visible name, as the partner sent it. */
  title: string;
  currency: string;
  area: string | null;
  webVisibility: boolean;
  /** Tickets in ACTIVE listings. */
  quantityForSale: number;
  /** Lowest price per ticket with the buyer fee, minor units; null when nothing is for sale. */
  floorMinor: number | null;
  cheapest: CheapestListing | null;
}

export interface ShowSnapshot {
  partnerId: string;
  eventId: string;
  showId: string;
  /** The show's key, for the reads of an answer signed for a fan (their place in the waiting list). */
  showPk: string;
  /** The event has a seating chart (svgCode or image). */
  hasSeating: boolean;
  status: ShowRow['status'];
  resaleEnabled: boolean;
  startsAt: number;
  /** In the show's order. */
  options: OptionSnapshot[];
  /** The primary sale as the partner reported it (PUT …/inventory); null before any report. */
  primary: { soldOut: boolean | null; soldPercentage: number | null } | null;
  /** The show's live holds (checkouts waiting for payment), earliest ending first: what they keep off sale, and whose. */
  holds: SnapshotHold[];
  /** The show's waiting list while the organiser has it on: the fans in line (waiting, or holding an offer); null when off. */
  waitingList: { fans: number } | null;
}

/** A live hold of the show: one checkout's tickets, off sale until it is paid or ends. */
export interface SnapshotHold {
  intentionId: string;
  /** The fan holding them (null for a channel's or an API buyer without one). */
  buyerPk: string | null;
  ticketOptionId: string;
  tickets: number;
  /** When the hold ends unless paid (clock ms): when its tickets may be back on sale. */
  expiresAt: number;
  /** `waitinglist`: an offer to a fan in line (its tickets pass to the next fan, not back on sale). */
  kind: IntentionKind;
}

/** A snapshot, or why there is none (404 on GET, an empty list in bulk). */
export type SnapshotResult = { found: true; snapshot: ShowSnapshot } | { found: false; missing: 'event' | 'show' };

/** A cached snapshot, and what was rendered from it (unsigned answers, by language and resale state). */
export interface SnapshotEntry {
  /** The change counter the entry is valid at. */
  version: DbVersion;
  result: SnapshotResult;
  /** The unsigned answers as JSON bytes, by language and resale state (see BuyAccessLayer.showJson). */
  rendered: Map<string, Uint8Array<ArrayBuffer>>;
  /** When it was built (clock ms), for the full rebuild every {@link FULL_REBUILD_MS}. */
  builtAt: number;
  /** Kept by its fingerprint after a write: rebuilt anyway once {@link FULL_REBUILD_MS} old. */
  kept: boolean;
  /** When it was last moved to the recent end of the cache (clock ms). */
  usedAt: number;
  /** What {@link ShowSnapshots} compares when the counter moved; null for "not found". */
  check: { eventPk: string; showPk: string; listingIds: string[]; fingerprint: string } | null;
}

/**
 * Most shows kept, least recently used out first, so ids made up by a caller cannot grow
 * memory without bound. An entry holds a few kB (20 options) plus its rendered answers (about
 * 8 kB each with every component on).
 */
export const SNAPSHOT_CACHE_LIMIT = 2_000;

/**
 * A snapshot whose fingerprint still matches is nevertheless rebuilt once this old (and
 * something was written since): the bound on what the fingerprint cannot see (a buyer fee
 * changed while the price stayed the same). Read on the injectable clock.
 */
export const FULL_REBUILD_MS = 2_000;

/** How often a hit moves its entry to the recent end of the cache (clock ms). */
const RECENCY_MS = 1_000;

/**
 * Snapshot reads are one consistent read snapshot (WAL: `db.read` with `snapshot`, a deferred
 * BEGIN) without taking the write lock, so a busy buy page never makes a seller or the
 * ingestion worker wait.
 */
const SNAPSHOT = { snapshot: true } as const;

/**
 * The per-show snapshots and their cache. See the module comment for the freshness rule.
 *
 * @example
 * const snapshots = new ShowSnapshots(deps.db, deps.clock);
 * const version = snapshots.counter.read();
 * const r = snapshots.get(partnerId, 'tour-2026', 'show-1', version);
 * if (r.found) r.snapshot.options.map((o) => o.quantityForSale);
 */
export class ShowSnapshots {
  readonly counter: DbChangeCounter;
  private readonly cache = new Map<string, SnapshotEntry>();
  /** Refreshes under way, by cache key, with the version they were asked at. */
  private readonly inFlight = new Map<string, { version: DbVersion; promise: Promise<SnapshotEntry> }>();
  /** Answers from the cache as is, no query (the hot path), since start (`resale_buy_accesslayer_cache_hits_total`). */
  hits = 0;
  /** Full rebuilds since start (tests, benchmarks and the metrics read it). */
  rebuilds = 0;
  /** Fingerprint checks since start (the counter moved; the snapshot was kept or rebuilt). */
  checks = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly limit = SNAPSHOT_CACHE_LIMIT,
  ) {
    this.counter = changeCounter(db, clock);
  }

  /** The snapshot of a partner's show, from the cache while `version` is the one it was built at. */
  get(partnerId: string, eventId: string, showId: string, version: DbVersion, via?: Db): SnapshotResult | Promise<SnapshotResult> {
    const entry = this.entry(partnerId, eventId, showId, version, via);
    return entry instanceof Promise ? entry.then((e) => e.result) : entry.result;
  }

  /**
   * {@link get} with the entry, whose `rendered` map callers may fill while `version` holds.
   * The counter unchanged: the entry as is, synchronously (unless it was kept by its
   * fingerprint after a write and is now {@link FULL_REBUILD_MS} old). Changed: the entry is
   * kept (its rendered texts dropped, as the partner's settings may have changed) when the
   * show's fingerprint is the same and it is younger than {@link FULL_REBUILD_MS}; otherwise it
   * is rebuilt. Both read through `db.read` (one snapshot, queued behind an open transaction),
   * or through `via`, the handle of the transaction the caller is in.
   */
  entry(partnerId: string, eventId: string, showId: string, version: DbVersion, via?: Db): SnapshotEntry | Promise<SnapshotEntry> {
    const key = `${partnerId}\u0000${eventId.length}:${eventId}\u0000${showId}`;
    const hit = this.cache.get(key);
    const now = this.clock.now();
    const young = hit !== undefined && now - hit.builtAt < FULL_REBUILD_MS;
    if (hit && this.counter.same(hit.version, version) && (young || !hit.kept)) {
      // The Map's order is the recency order: moved to the end at most once per RECENCY_MS (not on
      // every page view of an on-sale), which is all an eviction among 2,000 shows needs.
      if (now - hit.usedAt >= RECENCY_MS || now < hit.usedAt) {
        this.cache.delete(key);
        this.cache.set(key, hit);
        hit.usedAt = now;
      }
      this.hits++;
      return hit;
    }
    if (hit) this.cache.delete(key); // re-inserted below
    if (via) return this.refresh(via, key, hit?.check && young ? hit : undefined, partnerId, eventId, showId, version, now);
    // One refresh per show and version at a time: the requests that miss together (a page view
    // burst right after a write) share it instead of each reading the show again.
    const pending = this.inFlight.get(key);
    if (pending && this.counter.same(pending.version, version)) {
      if (hit) this.cache.set(key, hit);
      return pending.promise;
    }
    const promise = this.refresh(this.db, key, hit?.check && young ? hit : undefined, partnerId, eventId, showId, version, now);
    this.inFlight.set(key, { version, promise });
    const settled = () => {
      if (this.inFlight.get(key)?.promise === promise) this.inFlight.delete(key);
    };
    promise.then(settled, settled);
    return promise;
  }

  private async refresh(db: Db, key: string, checkable: SnapshotEntry | undefined, partnerId: string, eventId: string, showId: string, version: DbVersion, now: number): Promise<SnapshotEntry> {
    const check = checkable?.check;
    if (checkable && check) {
      this.checks++;
      if ((await db.read(async (tx) => await this.fingerprint(tx, check.eventPk, check.showPk, check.listingIds), SNAPSHOT)) === check.fingerprint) {
        checkable.version = version;
        checkable.kept = true;
        checkable.rendered.clear();
        this.cache.set(key, checkable);
        return checkable;
      }
    }
    const entry = await db.read(async (tx) => await this.load(tx, partnerId, eventId, showId, version, now), SNAPSHOT);
    this.rebuilds++;
    if (this.cache.size >= this.limit) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, entry);
    return entry;
  }

  /** Forgets every snapshot (tests). */
  clear(): void {
    this.cache.clear();
  }

  private async load(tx: Tx, partnerId: string, eventId: string, showId: string, version: DbVersion, now: number): Promise<SnapshotEntry> {
    const missing = (what: 'event' | 'show'): SnapshotEntry => ({ version, result: { found: false, missing: what }, rendered: new Map(), builtAt: now, usedAt: now, kept: false, check: null });
    // Prepared once per connection by the owners' queries (events, listings, marketdata): no SQL is built on the hot path.
    const shows = showSnapshotReads(tx);
    const event = await shows.eventByRef(partnerId, eventId);
    if (!event) return missing('event');
    const show = await shows.showOfEvent(event.id, showId);
    if (!show) return missing('show');
    const optionRows = await shows.optionsOfShow(show.id);
    const stats = new Map((await showListingReads(tx).statsOfShow(show.id)).map((s) => [s.optionPk, s]));
    const cheapest = await this.cheapestPerOption(tx, show.id);
    const listingIds = [...cheapest.values()].map((c) => c.listingId).sort();
    const snapshot: ShowSnapshot = {
      partnerId,
      eventId,
      showId,
      showPk: show.id,
      hasSeating: event.hasSeating === 1,
      status: show.status,
      resaleEnabled: show.resaleEnabled,
      startsAt: show.startsAt,
      options: optionRows.map((o) => {
        const s = stats.get(o.pk);
        return {
          ticketOptionId: o.ticketOptionId,
          title: o.title,
          currency: o.currency,
          area: o.area,
          webVisibility: o.webVisibility,
          quantityForSale: s?.quantity ?? 0,
          floorMinor: s ? s.floorMinor : null,
          cheapest: cheapest.get(o.pk) ?? null,
        };
      }),
      primary: await primarySaleReader(tx)(show.id),
      holds: await this.holds(tx, partnerId, show.id, optionRows),
      waitingList: waitingListOf(await waitingListSettingsOf(tx, show.id)),
    };
    return {
      version,
      result: { found: true, snapshot },
      rendered: new Map(),
      builtAt: now,
      usedAt: now,
      kept: false,
      check: { eventPk: event.id, showPk: show.id, listingIds, fingerprint: await this.fingerprint(tx, event.id, show.id, listingIds) },
    };
  }

  /**
   * Everything a snapshot was built from, as one string, read cheaply: the event's seating
   * flag, the show's status, resale flag and start, its options (ids, order, currency, area,
   * visibility), its primary sale's soldOut and soldPercentage, its live holds (count, keys and ends), its waiting list (on, and the fans in line), the set of its ACTIVE listings with their prices (a covering scan of
   * listings_show_state_idx: the count, the sum of rowids and the sum of a hash of each rowid
   * with its price, so a listing in or out of ACTIVE or repriced changes it), and the seats of
   * the cheapest listings. Not in it: the buyer fee (not in the index), hence
   * {@link FULL_REBUILD_MS}; quantity, option and currency of a listing never change.
   */
  private async fingerprint(tx: Tx, eventPk: string, showPk: string, listingIds: readonly string[]): Promise<string> {
    const shows = showSnapshotReads(tx);
    const event = await shows.eventSeating(eventPk);
    const show = await shows.showState(showPk);
    if (!event || !show) return '';
    const parts: unknown[] = [event.hasSeating, show.status, show.resaleEnabled, show.startsAt];
    for (const o of await shows.optionsOfShow(showPk)) parts.push(o.pk, o.ticketOptionId, o.currency, o.area, o.webVisibility);
    const primary = await primarySaleReader(tx)(showPk);
    parts.push(primary?.soldOut ?? null, primary?.soldPercentage ?? null);
    const l = await showListingReads(tx).fingerprintOfShow(showPk);
    parts.push(l?.n, l?.rowids, l?.pairs);
    const h = await liveHoldsFingerprint(tx)(showPk);
    parts.push(h?.n, h?.keys, h?.ends);
    const w = waitingListOf(await waitingListSettingsOf(tx, showPk));
    parts.push(w?.fans ?? null);
    for (const s of await this.seats(tx, listingIds)) parts.push(s.listingId, s.section, s.row, s.seat);
    return JSON.stringify(parts);
  }

  /**
   * The seats of listings, ordered by listing id, section, row, seat, then ticket id (null
   * first, then by code unit): the listings' tickets (listings) and their seats (tickets), one
   * read each.
   */
  private async seats(tx: Tx, listingIds: readonly string[]): Promise<{ listingId: string; section: string | null; row: string | null; seat: string | null; ticketId: string }[]> {
    if (listingIds.length === 0) return [];
    const pairs = await ticketPksOfListings(tx, listingIds);
    const seats = await ticketSeatsByPks(tx, pairs.map((p) => p.ticketPk));
    const out = [];
    for (const p of pairs) {
      const t = seats.get(p.ticketPk);
      if (t) out.push({ listingId: p.listingId, section: t.section, row: t.row, seat: t.seat, ticketId: t.ticketId });
    }
    return out.sort((a, b) => cmp(a.listingId, b.listingId) || cmp(a.section, b.section) || cmp(a.row, b.row) || cmp(a.seat, b.seat) || cmp(a.ticketId, b.ticketId));
  }

  /** The show's live holds with the option and the number of tickets each keeps off sale (a hold's listings share one option). */
  private async holds(tx: Tx, partnerId: string, showPk: string, options: readonly { pk: string; ticketOptionId: string }[]): Promise<SnapshotHold[]> {
    const live = await liveHoldsOfShow(tx, showPk);
    if (live.length === 0) return [];
    const listed = new Map((await listingsByIds(tx, partnerId, live.flatMap((h) => h.listingIds))).map((l) => [l.id, l]));
    const optionId = new Map(options.map((o) => [o.pk, o.ticketOptionId]));
    const out: SnapshotHold[] = [];
    for (const h of live) {
      const rows = h.listingIds.map((id) => listed.get(id)).filter((l) => l !== undefined);
      const option = rows[0] ? optionId.get(rows[0].ticketOptionPk) : undefined;
      if (option === undefined) continue;
      out.push({ intentionId: h.intentionId, buyerPk: h.buyerPk, ticketOptionId: option, tickets: rows.reduce((n, l) => n + l.quantity, 0), expiresAt: h.expiresAt, kind: h.kind });
    }
    return out;
  }

  /** The cheapest ACTIVE listing of each option of a show (ties: the smaller id, as the market page orders them), with its seats. */
  private async cheapestPerOption(tx: Tx, showPk: string): Promise<Map<string, CheapestListing>> {
    const rows = await cheapestActivePerOption(tx, showPk);
    const out = new Map<string, CheapestListing>();
    const seats = await this.seats(tx, rows.map((r) => r.id));
    for (const r of rows) {
      out.set(r.optionPk, {
        listingId: r.id,
        quantity: r.quantity,
        currency: r.currency,
        buyerTotalMinor: r.totalMinor,
        seats: seats.filter((s) => s.listingId === r.id).map((s) => ({ section: s.section, row: s.row, seat: s.seat })),
      });
    }
    return out;
  }
}

/** SQL's ascending order of nullable text: null first, then by code unit. */
function cmp(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The compressed forms of rendered answers, by the very bytes they were made from (see the module comment). */
const compressed = new WeakMap<Uint8Array, Partial<Record<Encoding, Uint8Array<ArrayBuffer>>>>();

/**
 * A rendered answer (`SnapshotEntry.rendered`'s bytes) compressed with `coding`, made once per
 * bytes object and kept beside it for as long as it lives: Brotli quality 5 or gzip 6 (about
 * 0.3 ms for an 8 KB answer, once per cache fill; quality 11 would take about 10 ms, which a
 * page view right after a write would wait for). An answer rendered for one request only (not
 * cacheable) is compressed each time, as the compression middleware would.
 *
 * @example
 * const bytes = buy.showJson(partner, ref, 'en', version, true);
 * const body = compressedAnswer(bytes, 'br'); // the same object on every request until a write
 */
export function compressedAnswer(bytes: Uint8Array, coding: Encoding): Uint8Array<ArrayBuffer> {
  let forms = compressed.get(bytes);
  if (!forms) compressed.set(bytes, (forms = {}));
  return (forms[coding] ??= encodeSync(bytes, coding));
}

/** A snapshot's `waitingList` from the show's settings row (the counter is kept under the show's lock with every join and leave). */
function waitingListOf(row: WaitinglistSettingsRow | undefined): ShowSnapshot['waitingList'] {
  return row?.enabled ? { fans: row.waiting } : null;
}
