import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import type { Db, Tx } from '../../db/client.js';
import type { ShowStatus } from '../events/events.table.js';
import { events, shows, ticketOptions } from '../events/events.table.js';
import { listings, listingTickets } from '../listings/listings.table.js';
import { tickets } from '../tickets/tickets.table.js';

/**
 * What the buy access layer reads on every partner event page, kept in memory per show,
 * and how it stays exact.
 *
 * ## What is cached
 * A {@link ShowSnapshot} per (partner, event, show): the event's seating flag, the show's
 * status, dates and resale flag, its ticket options in the show's order, and per option the
 * number of tickets in ACTIVE listings, the lowest price per ticket with the buyer fee, and
 * the cheapest ACTIVE listing (with its seats). Unknown (partner, event, show) triples are
 * cached too, as "not found", so a page with a wrong id does not query every time. Beside each
 * snapshot, the JSON text of its unsigned answers (per language, and per resale state, which
 * the clock alone can change), so a repeated page view serialises nothing. The partner's key
 * lookup is cached under the same rule (accesslayer.buy.keys.ts).
 *
 * ## How it stays fresh (exact, no TTL)
 * Every snapshot is tagged with the database's change counter ({@link DbChangeCounter}) read
 * just before it was built. A request reads the counter once, when its key is checked (two
 * O(1) statements, a few µs), and uses the snapshot only if it was built at that very
 * counter value, i.e. if no row of any table has
 * been inserted, updated or deleted, by this process (`total_changes()` of the connection)
 * or by any other connection or process on the same file (`PRAGMA data_version`). Any write,
 * related or not, makes the next request of each show rebuild its snapshot once (a handful
 * of indexed queries, in one read transaction so the parts agree). So a listing created,
 * repriced, reserved, sold, terminated or delisted, a ticket's seat changed, a show
 * cancelled or rescheduled, an option added, is seen by the very next request, whatever the
 * clock says, even within the same millisecond.
 *
 * Time-dependent facts (the show has started) are not cached: they are evaluated on every
 * request against the clock.
 *
 * The one exception to "any write invalidates": writes this module makes itself to tables
 * snapshots never read (the one-time tokens and users of Login Trust), run through
 * {@link DbChangeCounter.forgive}, are subtracted from the counter, so signed answers do not
 * evict every show's snapshot.
 *
 * Why not `max(updated_at), count(*)` per show: `updated_at` is not in
 * `listings_show_state_idx`, so that check reads every listing row of the show (10,000 rows
 * for a big show) on every request, and two changes in the same millisecond (or under a
 * manual clock) leave both values unchanged. Why not a TTL: it serves stale numbers by design.
 *
 * Scaling note: with several server processes on one SQLite file, `data_version` still sees
 * the others' commits. On PostgreSQL the counter would become a per-show version bumped by
 * the listing writes (a column or a NOTIFY), which needs the listings module.
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
}

/** A snapshot, or why there is none (404 on GET, an empty list in bulk). */
export type SnapshotResult = { found: true; snapshot: ShowSnapshot } | { found: false; missing: 'event' | 'show' };

/**
 * A value that changes whenever any row of the database changes: this connection's
 * `total_changes()` (minus the writes forgiven, see {@link forgive}) and `PRAGMA
 * data_version` (commits by other connections). Reading it costs two O(1) statements.
 */
export class DbChangeCounter {
  private readonly totalChanges: Database.Statement;
  private readonly dataVersion: Database.Statement;
  private forgiven = 0;

  constructor(client: Database.Database) {
    this.totalChanges = client.prepare('SELECT total_changes()').pluck();
    this.dataVersion = client.prepare('PRAGMA data_version').pluck();
  }

  /** The current version. Compare with {@link same}. */
  read(): DbVersion {
    return { changes: (this.totalChanges.get() as number) - this.forgiven, data: this.dataVersion.get() as number };
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
  version: DbVersion;
  result: SnapshotResult;
  rendered: Map<string, string>;
}

/**
 * Most shows kept, least recently used out first, so ids made up by a caller cannot grow
 * memory without bound. An entry holds a few kB (20 options) plus its rendered answers (about
 * 8 kB each with every component on).
 */
export const SNAPSHOT_CACHE_LIMIT = 2_000;

/**
 * The per-show snapshots and their cache. See the module comment for the freshness rule.
 *
 * @example
 * const snapshots = new ShowSnapshots(deps.db);
 * const version = snapshots.counter.read();
 * const r = snapshots.get(partnerId, 'tour-2026', 'show-1', version);
 * if (r.found) r.snapshot.options.map((o) => o.quantityForSale);
 */
export class ShowSnapshots {
  readonly counter: DbChangeCounter;
  private readonly cache = new Map<string, SnapshotEntry>();
  private readonly q;
  /** Rebuilds since start (tests and benchmarks read it). */
  rebuilds = 0;

  constructor(
    private readonly db: Db,
    private readonly limit = SNAPSHOT_CACHE_LIMIT,
  ) {
    this.counter = new DbChangeCounter(db.$client);
    const p = (name: string) => sql.placeholder(name);
    // Prepared once: drizzle builds no SQL on the hot path.
    this.q = {
      event: db
        .select({ id: events.id, seating: events.seating })
        .from(events)
        .where(and(eq(events.partnerId, p('partnerId')), eq(events.externalReferenceId, p('eventId'))))
        .prepare(),
      show: db
        .select({ id: shows.id, status: shows.status, resaleEnabled: shows.resaleEnabled, startsAt: shows.startsAt })
        .from(shows)
        .where(and(eq(shows.eventPk, p('eventPk')), eq(shows.showId, p('showId'))))
        .prepare(),
      options: db
        .select({ pk: ticketOptions.id, ticketOptionId: ticketOptions.ticketId, currency: ticketOptions.currency, area: ticketOptions.area, webVisibility: ticketOptions.webVisibility })
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
    };
  }

  /** The snapshot of a partner's show, from the cache while `version` is the one it was built at. */
  get(partnerId: string, eventId: string, showId: string, version: DbVersion): SnapshotResult {
    return this.entry(partnerId, eventId, showId, version).result;
  }

  /** {@link get} with the entry, whose `rendered` map callers may fill while `version` holds. */
  entry(partnerId: string, eventId: string, showId: string, version: DbVersion): SnapshotEntry {
    const key = `${partnerId}\u0000${eventId.length}:${eventId}\u0000${showId}`;
    const hit = this.cache.get(key);
    if (hit) this.cache.delete(key); // re-inserted below: the Map's order is the recency order
    if (hit && this.counter.same(hit.version, version)) {
      this.cache.set(key, hit);
      return hit;
    }
    const result = this.db.transaction((tx) => this.load(tx, partnerId, eventId, showId));
    this.rebuilds++;
    if (this.cache.size >= this.limit) this.cache.delete(this.cache.keys().next().value!);
    const entry: SnapshotEntry = { version, result, rendered: new Map() };
    this.cache.set(key, entry);
    return entry;
  }

  /** Forgets every snapshot (tests). */
  clear(): void {
    this.cache.clear();
  }

  private load(tx: Tx, partnerId: string, eventId: string, showId: string): SnapshotResult {
    const event = this.q.event.get({ partnerId, eventId });
    if (!event) return { found: false, missing: 'event' };
    const show = this.q.show.get({ eventPk: event.id, showId });
    if (!show) return { found: false, missing: 'show' };
    const optionRows = this.q.options.all({ showPk: show.id });
    const stats = new Map(this.q.stats.all({ showPk: show.id }).map((s) => [s.optionPk, s]));
    const cheapest = this.cheapestPerOption(tx, show.id);
    return {
      found: true,
      snapshot: {
        partnerId,
        eventId,
        showId,
        hasSeating: !!(event.seating && (event.seating.svgCode || event.seating.image)),
        status: show.status,
        resaleEnabled: show.resaleEnabled,
        startsAt: show.startsAt,
        options: optionRows.map((o) => {
          const s = stats.get(o.pk);
          return {
            ticketOptionId: o.ticketOptionId,
            currency: o.currency,
            area: o.area,
            webVisibility: o.webVisibility,
            quantityForSale: s?.quantity ?? 0,
            floorMinor: s ? s.floorMinor : null,
            cheapest: cheapest.get(o.pk) ?? null,
          };
        }),
      },
    };
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
    if (rows.length === 0) return out;
    const seats = tx
      .select({ listingId: listingTickets.listingId, section: tickets.section, row: tickets.row, seat: tickets.seat, ticketId: tickets.ticketId })
      .from(listingTickets)
      .innerJoin(tickets, eq(tickets.id, listingTickets.ticketPk))
      .where(inArray(listingTickets.listingId, rows.map((r) => r.id)))
      .orderBy(asc(tickets.section), asc(tickets.row), asc(tickets.seat), asc(tickets.ticketId))
      .all();
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
