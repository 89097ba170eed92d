/**
 * The seat map's rules without the DOM: availability classes, the seat index, the chart's seats
 * and the orphan-seat check. Pure functions, unit-tested on their own.
 *
 * One rule for the map and the market: the widgets' seat map (`<resale-seat-map>`) offers the
 * selections these rules allow, and the server's reservation path (flows/reserve-listings.ts,
 * through flows/market.seatmap.ts) refuses the ones they do not, from this same file. It
 * imports nothing at run time and nothing from the DOM.
 */

/** A seat as a chart and a listing name it; any part may be unknown. */
export interface Seat {
  readonly section: string | null;
  readonly row: string | null;
  readonly seat: string | null;
}

/** What the availability classes read of an area of the map. */
export interface SeatMapArea {
  readonly area: string;
  readonly quantityForSale: number;
  /** Per ticket, major units; 0 without stock. */
  readonly floorPrice: number;
  readonly currency: string;
}

/** What the rules read of a listing: the seats it sells (a listing is sold whole). */
export interface SeatedListing {
  readonly seats: readonly Seat[];
}

/** How a zone is coloured. */
export type Availability = 'none' | 'some' | 'cheapest';

/** `section|row|seat`, the key a chart seat and a listing seat share. */
export function seatKey(s: Seat): string {
  return `${s.section ?? ''}|${s.row ?? ''}|${s.seat ?? ''}`;
}

/**
 * Availability per area: `none` without stock, `cheapest` for the area(s) with the lowest
 * positive floor price (per currency, so two currencies are never compared), `some` otherwise.
 */
export function availabilityByArea<A extends SeatMapArea>(areas: readonly A[]): Map<string, Availability> {
  const cheapest = new Map<string, number>();
  for (const a of areas) {
    if (a.quantityForSale > 0 && a.floorPrice > 0) {
      const current = cheapest.get(a.currency);
      if (current === undefined || a.floorPrice < current) cheapest.set(a.currency, a.floorPrice);
    }
  }
  const out = new Map<string, Availability>();
  for (const a of areas) {
    if (!(a.quantityForSale > 0)) out.set(a.area, 'none');
    else out.set(a.area, a.floorPrice > 0 && cheapest.get(a.currency) === a.floorPrice ? 'cheapest' : 'some');
  }
  return out;
}

/** Which listing sells each seat (a seat belongs to at most one active listing). */
export function indexSeats<L extends SeatedListing>(listings: readonly L[]): Map<string, L> {
  const index = new Map<string, L>();
  for (const l of listings) for (const s of l.seats) if (s.seat !== null && s.row !== null) index.set(seatKey(s), l);
  return index;
}

/** A row in seat order; `null` marks seats known to exist but not known by the chart or any listing (a numbering gap). */
export type Row = (string | null)[];

/**
 * Rows of seats, from the chart's seat elements (document order) and the listings' seats.
 * Rows whose seat labels are all numbers are sorted by number, and a jump in numbering (5, then 7)
 * inserts a gap: seat 6 exists and is not for sale. Other rows keep the order of appearance.
 */
export function buildRows(chartSeats: readonly Seat[], listings: readonly SeatedListing[]): Map<string, Row> {
  const seen = new Map<string, Map<string, string>>(); // rowKey -> (seatKey -> seat label), insertion-ordered
  const add = (s: Seat) => {
    if (s.row === null || s.seat === null) return;
    const rowKey = `${s.section ?? ''}|${s.row}`;
    let row = seen.get(rowKey);
    if (!row) seen.set(rowKey, (row = new Map()));
    row.set(seatKey(s), s.seat);
  };
  chartSeats.forEach(add);
  for (const l of listings) l.seats.forEach(add);
  const rows = new Map<string, Row>();
  for (const [rowKey, seats] of seen) {
    const entries = [...seats];
    const numeric = entries.every(([, label]) => /^\d+$/.test(label));
    if (!numeric) {
      rows.set(rowKey, entries.map(([key]) => key));
      continue;
    }
    entries.sort((a, b) => Number(a[1]) - Number(b[1]));
    const row: Row = [];
    let previous: number | undefined;
    for (const [key, label] of entries) {
      const n = Number(label);
      if (previous !== undefined && n - previous > 1) row.push(null);
      row.push(key);
      previous = n;
    }
    rows.set(rowKey, row);
  }
  return rows;
}

/**
 * True when the selection, bought as it stands, would leave a single free seat (one still for
 * sale, not picked) between taken seats (picked, not for sale, or a numbering gap) in a row, with
 * one of those neighbours picked: orphans that exist anyway are not the selection's fault. Row
 * ends are not neighbours: a free seat on the aisle can still be sold on its own.
 *
 * The whole selection is judged, not each pick: two seats for sale side by side between seats
 * that are not would otherwise be unpickable, since either one alone strands the other.
 *
 * @param selection the picked listings
 * @param index     seat key -> the listing selling it (seats absent from it are unavailable)
 */
export function selectionLeavesOrphan(selection: readonly SeatedListing[], rows: ReadonlyMap<string, Row>, index: ReadonlyMap<string, unknown>): boolean {
  const picked = new Set(selection.flatMap((l) => l.seats.map(seatKey)));
  const rowKeys = new Set(selection.flatMap((l) => l.seats.filter((s) => s.row !== null && s.seat !== null).map((s) => `${s.section ?? ''}|${s.row}`)));
  const state = (key: string | null | undefined): 'free' | 'taken' | 'end' => {
    if (key === undefined) return 'end';
    if (key === null || picked.has(key) || !index.has(key)) return 'taken';
    return 'free';
  };
  for (const rowKey of rowKeys) {
    const row = rows.get(rowKey) ?? [];
    for (let i = 0; i < row.length; i++) {
      if (state(row[i]) !== 'free') continue;
      const left = i > 0 ? row[i - 1] : undefined;
      const right = i < row.length - 1 ? row[i + 1] : undefined;
      if (state(left) !== 'taken' || state(right) !== 'taken') continue;
      if ((left != null && picked.has(left)) || (right != null && picked.has(right))) return true;
    }
  }
  return false;
}

/**
 * The seats of a chart's markup in document order: every element with `data-seat`, its
 * `data-section` and `data-row` read from the element itself or its nearest ancestor that has
 * one (as `Element.closest` would). No DOM: the server reads the stored chart (sanitised when
 * received, so well-formed serialised markup) with it; the widget walks the chart it has drawn
 * instead (it needs the elements), and a test checks that both agree on the fixtures.
 *
 * @example
 * chartSeats('<g data-section="A"><g data-row="1"><circle data-seat="5"/></g></g>');
 * // [{ section: 'A', row: '1', seat: '5' }]
 */
export function chartSeats(markup: string): Seat[] {
  const out: Seat[] = [];
  // Each frame: the section and row in force inside an open element.
  const stack: { section: string | null; row: string | null }[] = [];
  for (const m of markup.matchAll(TOKEN)) {
    const [, closing, name, attrs, selfClosing] = m;
    if (name === undefined) continue; // a comment, CDATA, doctype or processing instruction
    if (closing) {
      stack.pop();
      continue;
    }
    const parent = stack[stack.length - 1] ?? { section: null, row: null };
    let section = parent.section;
    let row = parent.row;
    let seat: string | null = null;
    for (const [, attr, v1, v2, v3] of (attrs ?? '').matchAll(ATTRIBUTE)) {
      const value = decodeEntities(v1 ?? v2 ?? v3 ?? '');
      const lower = attr!.toLowerCase();
      if (lower === 'data-section') section = value;
      else if (lower === 'data-row') row = value;
      else if (lower === 'data-seat') seat = value;
    }
    if (seat !== null) out.push({ section, row, seat });
    if (!selfClosing) stack.push({ section, row });
  }
  return out;
}

/** A markup token: comments and declarations (skipped), end tags, start tags with their attributes. */
const TOKEN = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<[!?][^>]*>|<(\/)?([A-Za-z][^\s/>]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/g;
/** One attribute of a start tag: name, then the value double-quoted, single-quoted or bare. */
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(?:#(\d+)|#x([0-9a-f]+)|(amp|lt|gt|quot|apos));/gi, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name.toLowerCase()] ?? whole;
    const code = dec ? Number(dec) : parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The checkout URL for the picked listings: `selectUrl` + `&listingIds=a,b`. */
export function continueUrl(selectUrl: string, listingIds: readonly string[]): string {
  const sep = selectUrl.includes('?') ? '&' : '?';
  return `${selectUrl}${sep}listingIds=${listingIds.map(encodeURIComponent).join(',')}`;
}
