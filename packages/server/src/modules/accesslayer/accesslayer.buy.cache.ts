import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import type { Db, Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { ShowStatus } from '../events/events.table.js';
import { events, shows, ticketOptions } from '../events/events.table.js';
import { listings, listingTickets } from '../listings/listings.table.js';
import { showInventory } from '../marketdata/marketdata.table.js';
import { tickets } from '../tickets/tickets.table.js';

/**
 * What the buy access layer reads on every partner event page, kept in memory per show,
 * and how it stays exact.
 *
 * ## What is cached
 * A {@link ShowSnapshot} per (partner, event, show): the event's seating flag, the show's
 * status, dates and resale flag, its ticket options in the show's order, and per option the
 * number of tickets in ACTIVE listings, the lowest price per ticket with the buyer fee, and
 * the cheapest ACTIVE listing (with its seats), and the primary sale's `soldOut` /
 * `soldPercentage` as the partner reported them (market data). Unknown (partner, event, show) triples are
 * cached too, as "not found", so a page with a wrong id does not query every time. Beside each
 * snapshot, the JSON text of its unsigned answers (per language, and per resale state, which
 * the clock alone can change), so a repeated page view serialises nothing. The partner's key
 * lookup is cached under the same rule (accesslayer.buy.keys.ts).
 *
 * ## How it stays fresh
 * Two levels.
 *
 * 1. The database's change counter ({@link DbChangeCounter}): this connection's
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
 *    prices from a covering scan of `listings_show_state_idx`, the seats of its cheapest
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
  /** The event has a seating chart (svgCode or image). */
  hasSeating: boolean;
  status: ShowStatus;
  resaleEnabled: boolean;
  startsAt: number;
  /** In the show's order. */
  options: OptionSnapshot[];
  /** The primary sale as the partner reported it (PUT …/inventory); null before any report. */
  primary: { soldOut: boolean | null; soldPercentage: number | null } | null;
}

/** A snapshot, or why there is none (404 on GET, an empty list in bulk). */
export type SnapshotResult = { found: true; snapshot: ShowSnapshot } | { found: false; missing: 'event' | 'show' };

/**
 * A value that changes whenever any row of the database changes: this connection's
 * `total_changes()` (minus the writes forgiven, see {@link forgive}), read on every call (an
 * O(1) statement, 0.1 µs), and `PRAGMA data_version`, which moves when another connection
 * or process commits to the same file, read at most once per millisecond of the clock (it
 * opens and closes a read transaction, the costliest part of a cached answer: about a tenth
 * of the endpoint's throughput when read on every call). So this process's own writes are
 * seen at once, other processes' within a millisecond.
 */
export class DbChangeCounter {
  private readonly totalChanges: Database.Statement;
  private readonly dataVersion: Database.Statement;
  private forgiven = 0;
  private data = 0;
  private dataReadAt = Number.NaN;

  constructor(
    client: Database.Database,
    private readonly clock: Clock,
  ) {
    this.totalChanges = client.prepare('SELECT total_changes()').pluck();
    this.dataVersion = client.prepare('PRAGMA data_version').pluck();
  }

  /** The current version. Compare with {@link same}. */
  read(): DbVersion {
    const now = this.clock.now();
    // `!==` rather than `>`: a clock set back reads it again too.
    if (now !== this.dataReadAt) {
      this.data = this.dataVersion.get() as number;
      this.dataReadAt = now;
    }
    return { changes: (this.totalChanges.get() as number) - this.forgiven, data: this.data };
  }

  same(a: DbVersion, b: DbVersion): boolean {
    return a.changes === b.changes && a.data === b.data;
  }

  /**
   * Runs `work`, then forgives the rows it changed on this connection, so they do not count
   * as a change. Only for work that writes tables no snapshot reads (one-time tokens, users).
   * It is synchronous (better-sqlite3), so no other request's writes can interleave.
   */
  forgive<T>(work: () => T): T {
    const before = this.totalChanges.get() as number;
    try {
      return work();
    } finally {
      this.forgiven += (this.totalChanges.get() as number) - before;
    }
  }
}

export interface DbVersion {
  changes: number;
  data: number;
}

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

/**
 * Snapshot reads run in a deferred transaction: one consistent read snapshot (WAL) without
 * taking the write lock that `db.transaction` takes by default, so a busy buy page never makes
 * a seller or the ingestion worker wait.
 */
const READ = { behavior: 'deferred' } as const;

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
  private readonly q;
  /** Full rebuilds since start (tests and benchmarks read it). */
  rebuilds = 0;
  /** Fingerprint checks since start (the counter moved; the snapshot was kept or rebuilt). */
  checks = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly limit = SNAPSHOT_CACHE_LIMIT,
  ) {
    this.counter = new DbChangeCounter(db.$client, clock);
    const p = (name: string) => sql.placeholder(name);
    // Computed in SQL, so a large SVG is never parsed into JavaScript.
    const hasSeating = sql<number>`(coalesce(json_extract(${events.seating}, '$.svgCode'), '') <> '' or coalesce(json_extract(${events.seating}, '$.image'), '') <> '')`.mapWith(Number);
    // Prepared once: drizzle builds no SQL on the hot path.
    this.q = {
      event: db
        .select({ id: events.id, hasSeating })
        .from(events)
        .where(and(eq(events.partnerId, p('partnerId')), eq(events.externalReferenceId, p('eventId'))))
        .prepare(),
      eventByPk: db.select({ hasSeating }).from(events).where(eq(events.id, p('eventPk'))).prepare(),
      show: db
        .select({ id: shows.id, status: shows.status, resaleEnabled: shows.resaleEnabled, startsAt: shows.startsAt })
        .from(shows)
        .where(and(eq(shows.eventPk, p('eventPk')), eq(shows.showId, p('showId'))))
        .prepare(),
      primary: db.select({ soldOut: showInventory.soldOut, soldPercentage: showInventory.soldPercentage }).from(showInventory).where(eq(showInventory.showPk, p('showPk'))).prepare(),
      showByPk: db.select({ status: shows.status, resaleEnabled: shows.resaleEnabled, startsAt: shows.startsAt }).from(shows).where(eq(shows.id, p('showPk'))).prepare(),
      options: db
        .select({ pk: ticketOptions.id, ticketOptionId: ticketOptions.ticketId, title: ticketOptions.title, currency: ticketOptions.currency, area: ticketOptions.area, webVisibility: ticketOptions.webVisibility })
        .from(ticketOptions)
        .where(eq(ticketOptions.showPk, p('showPk')))
        .orderBy(asc(ticketOptions.position), asc(ticketOptions.id))
        .prepare(),
      // Per option: tickets for sale and the floor, through listings_show_state_idx.
      stats: db
        .select({
          optionPk: listings.ticketOptionPk,
          quantity: sql<number>`sum(${listings.quantity})`.mapWith(Number),
          floorMinor: sql<number>`min(${listings.priceMinor} + ${listings.buyerFeeMinor})`.mapWith(Number),
        })
        .from(listings)
        .where(and(eq(listings.showPk, p('showPk')), eq(listings.state, 'ACTIVE')))
        .groupBy(listings.ticketOptionPk)
        .prepare(),
      // The set of ACTIVE listings and their prices, from listings_show_state_idx alone (a
      // covering scan: the index holds show_pk, state, price_minor and the rowid). SQLite-specific.
      listingsFingerprint: db
        .select({
          n: sql<number>`count(*)`.mapWith(Number),
          rowids: sql<number>`coalesce(sum(rowid), 0)`.mapWith(Number),
          // Each (rowid, price) pair hashed below 2^32, so the sum cannot overflow.
          pairs: sql<number>`coalesce(sum((rowid * 65537 + ${listings.priceMinor}) % 4294967311), 0)`.mapWith(Number),
        })
        .from(listings)
        .where(and(eq(listings.showPk, p('showPk')), eq(listings.state, 'ACTIVE')))
        .prepare(),
    };
  }

  /** The snapshot of a partner's show, from the cache while `version` is the one it was built at. */
  get(partnerId: string, eventId: string, showId: string, version: DbVersion): SnapshotResult {
    return this.entry(partnerId, eventId, showId, version).result;
  }

  /**
   * {@link get} with the entry, whose `rendered` map callers may fill while `version` holds.
   * The counter unchanged: the entry as is (unless it was kept by its fingerprint after a write
   * and is now {@link FULL_REBUILD_MS} old). Changed: the entry is kept (its rendered texts
   * dropped, as the partner's settings may have changed) when the show's fingerprint is the
   * same and it is younger than {@link FULL_REBUILD_MS}; otherwise it is rebuilt.
   */
  entry(partnerId: string, eventId: string, showId: string, version: DbVersion): SnapshotEntry {
    const key = `${partnerId}\u0000${eventId.length}:${eventId}\u0000${showId}`;
    const hit = this.cache.get(key);
    if (hit) this.cache.delete(key); // re-inserted below: the Map's order is the recency order
    const now = this.clock.now();
    const young = hit !== undefined && now - hit.builtAt < FULL_REBUILD_MS;
    if (hit && this.counter.same(hit.version, version) && (young || !hit.kept)) {
      this.cache.set(key, hit);
      return hit;
    }
    if (hit?.check && young) {
      this.checks++;
      const check = hit.check;
      if (this.db.transaction((tx) => this.fingerprint(tx, check.eventPk, check.showPk, check.listingIds), READ) === check.fingerprint) {
        hit.version = version;
        hit.kept = true;
        hit.rendered.clear();
        this.cache.set(key, hit);
        return hit;
      }
    }
    const entry = this.db.transaction((tx) => this.load(tx, partnerId, eventId, showId, version, now), READ);
    this.rebuilds++;
    if (this.cache.size >= this.limit) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, entry);
    return entry;
  }

  /** Forgets every snapshot (tests). */
  clear(): void {
    this.cache.clear();
  }

  private load(tx: Tx, partnerId: string, eventId: string, showId: string, version: DbVersion, now: number): SnapshotEntry {
    const missing = (what: 'event' | 'show'): SnapshotEntry => ({ version, result: { found: false, missing: what }, rendered: new Map(), builtAt: now, kept: false, check: null });
    const event = this.q.event.get({ partnerId, eventId });
    if (!event) return missing('event');
    const show = this.q.show.get({ eventPk: event.id, showId });
    if (!show) return missing('show');
    const optionRows = this.q.options.all({ showPk: show.id });
    const stats = new Map(this.q.stats.all({ showPk: show.id }).map((s) => [s.optionPk, s]));
    const cheapest = this.cheapestPerOption(tx, show.id);
    const listingIds = [...cheapest.values()].map((c) => c.listingId).sort();
    const snapshot: ShowSnapshot = {
      partnerId,
      eventId,
      showId,
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
      primary: this.q.primary.get({ showPk: show.id }) ?? null,
    };
    return {
      version,
      result: { found: true, snapshot },
      rendered: new Map(),
      builtAt: now,
      kept: false,
      check: { eventPk: event.id, showPk: show.id, listingIds, fingerprint: this.fingerprint(tx, event.id, show.id, listingIds) },
    };
  }

  /**
   * Everything a snapshot was built from, as one string, read cheaply: the event's seating
   * flag, the show's status, resale flag and start, its options (ids, order, currency, area,
   * visibility), its primary sale's soldOut and soldPercentage, the set of its ACTIVE listings with their prices (a covering scan of
   * listings_show_state_idx: the count, the sum of rowids and the sum of a hash of each rowid
   * with its price, so a listing in or out of ACTIVE or repriced changes it), and the seats of
   * the cheapest listings. Not in it: the buyer fee (not in the index), hence
   * {@link FULL_REBUILD_MS}; quantity, option and currency of a listing never change.
   */
  private fingerprint(tx: Tx, eventPk: string, showPk: string, listingIds: readonly string[]): string {
    const event = this.q.eventByPk.get({ eventPk });
    const show = this.q.showByPk.get({ showPk });
    if (!event || !show) return '';
    const parts: unknown[] = [event.hasSeating, show.status, show.resaleEnabled, show.startsAt];
    for (const o of this.q.options.all({ showPk })) parts.push(o.pk, o.ticketOptionId, o.currency, o.area, o.webVisibility);
    const primary = this.q.primary.get({ showPk });
    parts.push(primary?.soldOut ?? null, primary?.soldPercentage ?? null);
    const l = this.q.listingsFingerprint.get({ showPk });
    parts.push(l?.n, l?.rowids, l?.pairs);
    for (const s of this.seats(tx, listingIds)) parts.push(s.listingId, s.section, s.row, s.seat);
    return JSON.stringify(parts);
  }

  /** The seats of listings, in a stable order. */
  private seats(tx: Tx, listingIds: readonly string[]) {
    if (listingIds.length === 0) return [];
    return tx
      .select({ listingId: listingTickets.listingId, section: tickets.section, row: tickets.row, seat: tickets.seat })
      .from(listingTickets)
      .innerJoin(tickets, eq(tickets.id, listingTickets.ticketPk))
      .where(inArray(listingTickets.listingId, [...listingIds]))
      .orderBy(asc(listingTickets.listingId), asc(tickets.section), asc(tickets.row), asc(tickets.seat), asc(tickets.ticketId))
      .all();
  }

  /** The cheapest ACTIVE listing of each option of a show (ties: the smaller id, as the market page orders them), with its seats. */
  private cheapestPerOption(tx: Tx, showPk: string): Map<string, CheapestListing> {
    const rows = tx.all<{ id: string; option_pk: string; quantity: number; currency: string; total_minor: number }>(sql`
      select id, option_pk, quantity, currency, total_minor from (
        select ${listings.id} as id, ${listings.ticketOptionPk} as option_pk, ${listings.quantity} as quantity, ${listings.currency} as currency,
               ${listings.priceMinor} + ${listings.buyerFeeMinor} as total_minor,
               row_number() over (partition by ${listings.ticketOptionPk} order by ${listings.priceMinor} + ${listings.buyerFeeMinor}, ${listings.id}) as rn
        from ${listings}
        where ${listings.showPk} = ${showPk} and ${listings.state} = 'ACTIVE'
      ) where rn = 1`);
    const out = new Map<string, CheapestListing>();
    const seats = this.seats(tx, rows.map((r) => r.id));
    for (const r of rows) {
      out.set(r.option_pk, {
        listingId: r.id,
        quantity: r.quantity,
        currency: r.currency,
        buyerTotalMinor: r.total_minor,
        seats: seats.filter((s) => s.listingId === r.id).map((s) => ({ section: s.section, row: s.row, seat: s.seat })),
      });
    }
    return out;
  }
}
