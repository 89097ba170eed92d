import { buildRows, indexSeats, seatKey, selectionLeavesOrphan, type Row, type Seat } from '@resale/shared/seat-rules';

/**
 * The waiting list's matcher, pure (no database, no clock): which free listings a class of
 * entries would be offered, given a listing that just became free. The offer flow reads the pool
 * and the classes, asks here, then seeks the earliest entry of each class that has a fit.
 *
 * An entry's satisfiability depends only on its class (quantity k, together, option or any), so
 * the flow asks once per class (at most a few dozen), never once per entry: the cost does not
 * grow with the length of the line. Seats are judged with the seat map's own rules
 * (`@resale/shared/seat-rules`: `buildRows`, `indexSeats`, `selectionLeavesOrphan`), so a fit is
 * a pick the seat map and the reservation path would allow; there is no second adjacency rule.
 */

/** A free (ACTIVE) listing of the show, as the matcher reads it. Listings are sold whole. */
export interface FreeListing {
  id: string;
  /** Its ticket option: one checkout holds listings of one option (and so one currency). */
  optionPk: string;
  /** Tickets in it. */
  quantity: number;
  /** One per ticket; a ticket without a place has `row`/`seat` null (or the listing has none). */
  seats: readonly Seat[];
  /** When it went on sale: older stock is offered first among equal fits. */
  publishedAt: number;
  sellerPk: string;
}

/** A class of entries: every entry of one class is satisfied by the same fits. */
export interface EntryClass {
  /** Tickets wanted, exactly. */
  quantity: number;
  /** Seats side by side: one unseated listing of exactly `quantity`, or a contiguous run in one row. */
  together: boolean;
  /** The ticket option asked for; null: any option (a fit is still of one option). */
  optionPk: string | null;
}

/** Listings that satisfy a class, in publishing order, with the new listing among them. */
export interface Fit {
  listingIds: string[];
  quantity: number;
  optionPk: string;
}

/** How the pool judges fits. */
export interface PoolOptions {
  /** The show's chart seats (`chartSeats` of its SVG), so a seat no listing sells still breaks a row. */
  chartSeats?: readonly Seat[] | undefined;
  /** The partner allows a pick to leave a single seat free (`allowOrphanTicketSelection`). */
  allowOrphans?: boolean | undefined;
  /** Most listings one checkout may hold (`MAX_INTENTION_ITEMS`). */
  maxListings: number;
}

/**
 * How many candidate picks a fit without `together` tries against the orphan-seat rule before it
 * gives up: the first (fewest listings, oldest) nearly always passes; a pool where hundreds fail
 * is pathological, and the listing then stays on public sale for this class.
 */
export const MAX_LOOSE_CANDIDATES = 256;

/** Whether every ticket of a listing has a place (a row and a seat). */
function placed(l: FreeListing): boolean {
  return l.seats.length === l.quantity && l.seats.every((s) => s.row !== null && s.seat !== null);
}

/** Whether no ticket of a listing has a place (general admission). */
function unplaced(l: FreeListing): boolean {
  return l.seats.every((s) => s.row === null || s.seat === null);
}

/** The row key `buildRows` uses (`section|row`). */
function rowKeyOf(s: Seat): string {
  return `${s.section ?? ''}|${s.row}`;
}

/** Older first, then by id: the order "earliest published first" means. */
function byPublishing(a: FreeListing, b: FreeListing): number {
  return a.publishedAt - b.publishedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The free listings of a show, with the rows and the index of seats for sale built once for every
 * class asked about. Every free listing counts as a seat for sale (the fan's own too: it stays on
 * sale to others), whether or not it may be part of a fit.
 *
 * @example
 * const pool = new FreePool(active, { chartSeats, allowOrphans: false, maxListings: MAX_INTENTION_ITEMS });
 * const fit = pool.fit({ quantity: 2, together: true, optionPk: null }, newListing.id);
 */
export class FreePool {
  private readonly byId: ReadonlyMap<string, FreeListing>;
  /** Every listing in publishing order. */
  private readonly ordered: readonly FreeListing[];
  private readonly rows: ReadonlyMap<string, Row>;
  private readonly index: ReadonlyMap<string, FreeListing>;
  private readonly allowOrphans: boolean;
  private readonly maxListings: number;

  constructor(listings: readonly FreeListing[], opts: PoolOptions) {
    this.byId = new Map(listings.map((l) => [l.id, l]));
    this.ordered = [...listings].sort(byPublishing);
    this.rows = buildRows(opts.chartSeats ?? [], listings);
    this.index = indexSeats(listings);
    this.allowOrphans = opts.allowOrphans ?? false;
    this.maxListings = opts.maxListings;
  }

  /**
   * The fit for each class, in the order of `classes` (null where none), each containing
   * `mustInclude` (the listing that just became free).
   */
  fits(classes: readonly EntryClass[], mustInclude: string): (Fit | null)[] {
    return classes.map((c) => this.fit(c, mustInclude));
  }

  /**
   * The listings a class would be offered that include `mustInclude`, or null when none does:
   * exactly `quantity` tickets from whole listings of the new listing's option, at most
   * `maxListings` of them, leaving no single seat stranded (unless orphans are allowed);
   * - without `together`: the fewest listings, then the earliest published;
   * - with `together`: one unseated listing of exactly `quantity`, or listings whose seats are
   *   one contiguous run of `quantity` seats in one row (no gap, no seat that is not for sale,
   *   every listing wholly inside), the fewest listings, then the earliest published.
   *
   * `excludeSellerPk`: the fan asking (a fan is never offered their own listing): a fit that would
   * need one of their listings is not theirs, and the new listing being theirs means no fit.
   */
  fit(cls: EntryClass, mustInclude: string, opts: { excludeSellerPk?: string | undefined } = {}): Fit | null {
    const fresh = this.byId.get(mustInclude);
    if (!fresh) return null;
    const k = cls.quantity;
    if (!Number.isInteger(k) || k < 1 || fresh.quantity > k) return null;
    if (cls.optionPk !== null && cls.optionPk !== fresh.optionPk) return null;
    if (opts.excludeSellerPk !== undefined && fresh.sellerPk === opts.excludeSellerPk) return null;
    const eligible = (l: FreeListing) => l.optionPk === fresh.optionPk && l.sellerPk !== opts.excludeSellerPk && l.quantity <= k;
    const picked = cls.together ? this.together(fresh, k, eligible) : this.loose(fresh, k, eligible);
    if (!picked) return null;
    return { listingIds: [...picked].sort(byPublishing).map((l) => l.id), quantity: k, optionPk: fresh.optionPk };
  }

  /** Whether buying `selection` as it stands breaks the orphan-seat rule. */
  private strands(selection: readonly FreeListing[]): boolean {
    return !this.allowOrphans && selectionLeavesOrphan(selection, this.rows, this.index);
  }

  private together(fresh: FreeListing, k: number, eligible: (l: FreeListing) => boolean): FreeListing[] | null {
    if (unplaced(fresh)) return fresh.quantity === k ? [fresh] : null;
    // Partly seated: no run can hold it whole.
    if (!placed(fresh)) return null;
    const rowKey = rowKeyOf(fresh.seats[0]!);
    if (fresh.seats.some((s) => rowKeyOf(s) !== rowKey)) return null;
    const row = this.rows.get(rowKey) ?? [];
    const at = fresh.seats.map((s) => row.indexOf(seatKey(s)));
    const lo = Math.min(...at);
    const hi = Math.max(...at);
    if (lo < 0 || hi - lo + 1 > k) return null;
    let best: FreeListing[] | null = null;
    for (let start = Math.max(0, hi - k + 1); start <= lo && start + k <= row.length; start++) {
      const run = row.slice(start, start + k);
      const inRun = new Set(run);
      const listings = new Set<FreeListing>();
      let ok = true;
      for (const key of run) {
        // A numbering gap, or a seat not for sale (the chart's, or sold), breaks the run.
        const l = key === null ? undefined : this.index.get(key);
        if (!l || !eligible(l) || !placed(l)) {
          ok = false;
          break;
        }
        listings.add(l);
      }
      // Sold whole: every listing in the run has all its seats in it.
      if (!ok || [...listings].some((l) => l.seats.some((s) => !inRun.has(seatKey(s))))) continue;
      const pick = [...listings].sort(byPublishing);
      if (pick.length > this.maxListings || this.strands(pick)) continue;
      if (!best || better(pick, best)) best = pick;
    }
    return best;
  }

  private loose(fresh: FreeListing, k: number, eligible: (l: FreeListing) => boolean): FreeListing[] | null {
    const target = k - fresh.quantity;
    if (target === 0) return this.strands([fresh]) ? null : [fresh];
    const others = this.ordered.filter((l) => l !== fresh && eligible(l) && l.quantity <= target);
    let tried = 0;
    for (const pick of picksSumming(others, target, Math.min(target, this.maxListings - 1))) {
      const selection = [fresh, ...pick];
      if (!this.strands(selection)) return selection;
      if (++tried >= MAX_LOOSE_CANDIDATES) return null;
    }
    return null;
  }
}

/** Fewer listings, then the earlier published at the first difference. Both in publishing order. */
function better(a: readonly FreeListing[], b: readonly FreeListing[]): boolean {
  if (a.length !== b.length) return a.length < b.length;
  for (let i = 0; i < a.length; i++) {
    const c = byPublishing(a[i]!, b[i]!);
    if (c !== 0) return c < 0;
  }
  return false;
}

/**
 * Every set of `items` whose quantities sum to exactly `target`, with at most `maxCount` items:
 * fewest items first, and within a size in lexicographic order of the items' positions (`items`
 * is in publishing order, so the earliest published first). A table of what the rest of the list
 * can still reach (exact sum with exact count) prunes every branch that leads nowhere, so each set
 * costs at most a pass over the list.
 */
export function* picksSumming<T extends { quantity: number }>(items: readonly T[], target: number, maxCount: number): Generator<T[]> {
  if (target <= 0 || maxCount < 1) return;
  const n = items.length;
  const width = maxCount + 1;
  const cell = (s: number, c: number) => s * width + c;
  // reach[i][cell(s, c)]: items[i..] hold c items summing to s.
  const reach: Uint8Array[] = Array.from({ length: n + 1 }, () => new Uint8Array((target + 1) * width));
  reach[n]![cell(0, 0)] = 1;
  for (let i = n - 1; i >= 0; i--) {
    const here = reach[i]!;
    const next = reach[i + 1]!;
    const q = items[i]!.quantity;
    here.set(next);
    if (q < 1 || q > target) continue;
    for (let s = q; s <= target; s++) for (let c = 1; c <= maxCount; c++) if (next[cell(s - q, c - 1)]) here[cell(s, c)] = 1;
  }
  const chosen: T[] = [];
  function* walk(from: number, rest: number, left: number): Generator<T[]> {
    if (left === 0) {
      if (rest === 0) yield [...chosen];
      return;
    }
    for (let j = from; j < n; j++) {
      const q = items[j]!.quantity;
      if (q < 1 || q > rest || !reach[j + 1]![cell(rest - q, left - 1)]) continue;
      chosen.push(items[j]!);
      yield* walk(j + 1, rest - q, left - 1);
      chosen.pop();
    }
  }
  for (let size = 1; size <= maxCount; size++) if (reach[0]![cell(target, size)]) yield* walk(0, target, size);
}
