import type { Seat } from '@resale/shared/seat-rules';
import { describe, expect, it } from 'vitest';
import { FreePool, MAX_LOOSE_CANDIDATES, picksSumming, type EntryClass, type FreeListing } from './waitinglist.match.js';

/**
 * The matcher alone (pure: no database). Listings are named by what they hold; `at` is the order
 * they were published in.
 */

const OPT = 'opt_field';
let at = 0;

/** A listing of `quantity` unseated tickets. */
function ga(id: string, quantity: number, over: Partial<FreeListing> = {}): FreeListing {
  return { id, optionPk: OPT, quantity, seats: Array.from({ length: quantity }, () => ({ section: null, row: null, seat: null })), publishedAt: ++at, sellerPk: `seller_${id}`, ...over };
}

/** A listing of the given seats of row `row` (section A). */
function seated(id: string, row: string, seats: readonly (string | number)[], over: Partial<FreeListing> = {}): FreeListing {
  return { id, optionPk: OPT, quantity: seats.length, seats: seats.map((s) => ({ section: 'A', row, seat: String(s) })), publishedAt: ++at, sellerPk: `seller_${id}`, ...over };
}

/** Chart seats of section A, row `row`, numbered `from`..`to`. */
function chartRow(row: string, from: number, to: number): Seat[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ section: 'A', row, seat: String(from + i) }));
}

const cls = (quantity: number, together = false, optionPk: string | null = null): EntryClass => ({ quantity, together, optionPk });
const pool = (listings: FreeListing[], opts: { chartSeats?: Seat[]; allowOrphans?: boolean; maxListings?: number } = {}) => new FreePool(listings, { maxListings: 20, ...opts });
const ids = (fit: { listingIds: string[] } | null) => fit?.listingIds ?? null;

describe('picksSumming', () => {
  it('answers every exact pick, fewest items first, then in the order of the list', () => {
    const items = [{ id: 'a', quantity: 1 }, { id: 'b', quantity: 1 }, { id: 'c', quantity: 2 }, { id: 'd', quantity: 1 }, { id: 'e', quantity: 3 }];
    const names = (target: number, max = 5) => [...picksSumming(items, target, max)].map((p) => p.map((i) => i.id).join(''));
    expect(names(2)).toEqual(['c', 'ab', 'ad', 'bd']);
    expect(names(3)).toEqual(['e', 'ac', 'bc', 'cd', 'abd']);
    expect(names(3, 2)).toEqual(['e', 'ac', 'bc', 'cd']);
    expect(names(8)).toEqual(['abcde']);
    expect(names(9)).toEqual([]);
    expect(names(0)).toEqual([]);
  });
});

describe('the matcher without together: exact quantity, fewest listings, oldest first', () => {
  it('offers each quantity from 1 to 4 the fewest whole listings that include the new one, older ones first', () => {
    const a = ga('a2', 2);
    const b = ga('b1', 1);
    const c = ga('c1', 1);
    const n = ga('new1', 1);
    const p = pool([a, b, c, n]);
    expect(ids(p.fit(cls(1), 'new1'))).toEqual(['new1']);
    expect(ids(p.fit(cls(2), 'new1'))).toEqual(['b1', 'new1']);
    // Two listings (a pack of two and the new one) beat three singles.
    expect(ids(p.fit(cls(3), 'new1'))).toEqual(['a2', 'new1']);
    // Three listings whichever way: the older single (b1) before the younger (c1).
    expect(ids(p.fit(cls(4), 'new1'))).toEqual(['a2', 'b1', 'new1']);
    expect(ids(p.fit(cls(5), 'new1'))).toEqual(['a2', 'b1', 'c1', 'new1']);
    expect(p.fit(cls(6), 'new1')).toBeNull();
    expect(p.fits([cls(1), cls(3), cls(6)], 'new1').map(ids)).toEqual([['new1'], ['a2', 'new1'], null]);
  });

  it('never splits a listing: a new pack bigger than the class, or packs that overshoot, fit nothing', () => {
    const p = pool([ga('p3', 3), ga('new2', 2)]);
    expect(p.fit(cls(1), 'new2')).toBeNull();
    expect(ids(p.fit(cls(2), 'new2'))).toEqual(['new2']);
    expect(p.fit(cls(4), 'new2')).toBeNull();
    expect(ids(p.fit(cls(5), 'new2'))).toEqual(['p3', 'new2']);
    // Unknown listing: nothing.
    expect(p.fit(cls(2), 'lst_gone')).toBeNull();
  });

  it('stays within the new listing’s ticket option, for an entry of that option or of any', () => {
    const vip = ga('vip1', 1, { optionPk: 'opt_vip' });
    const p = pool([vip, ga('new1', 1)]);
    expect(p.fit(cls(2), 'new1')).toBeNull();
    expect(ids(p.fit(cls(1, false, OPT), 'new1'))).toEqual(['new1']);
    expect(p.fit(cls(1, false, 'opt_vip'), 'new1')).toBeNull();
    expect(ids(p.fit(cls(1), 'vip1'))).toEqual(['vip1']);
    expect(p.fit(cls(1), 'new1')).toEqual({ listingIds: ['new1'], quantity: 1, optionPk: OPT });
  });

  it('never offers a fan their own listing: not as the new one, not as a companion', () => {
    const mine = ga('mine1', 1, { sellerPk: 'usr_fan' });
    const other = ga('other1', 1);
    const n = ga('new1', 1);
    const p = pool([mine, other, n]);
    expect(ids(p.fit(cls(2), 'new1'))).toEqual(['mine1', 'new1']);
    expect(ids(p.fit(cls(2), 'new1', { excludeSellerPk: 'usr_fan' }))).toEqual(['other1', 'new1']);
    expect(p.fit(cls(3), 'new1', { excludeSellerPk: 'usr_fan' })).toBeNull();
    const own = pool([other, ga('new2', 2, { sellerPk: 'usr_fan' })]);
    expect(own.fit(cls(2), 'new2', { excludeSellerPk: 'usr_fan' })).toBeNull();
    expect(ids(own.fit(cls(2), 'new2'))).toEqual(['new2']);
  });

  it('holds at most maxListings listings, as one checkout does', () => {
    const p = pool([ga('a1', 1), ga('b1', 1), ga('new1', 1)], { maxListings: 2 });
    expect(ids(p.fit(cls(2), 'new1'))).toEqual(['a1', 'new1']);
    expect(p.fit(cls(3), 'new1')).toBeNull();
  });

  it('applies the orphan-seat rule to seated picks too, trying the next pick when the best strands a seat', () => {
    // Row 1: seats 1 and 5 not for sale, 2, 3, 4 singles; a single at row 2, seat 9, alone.
    const chart = [...chartRow('1', 1, 5), ...chartRow('2', 8, 10)];
    const s2 = seated('s2', '1', [2]);
    const s4 = seated('s4', '1', [4]);
    const far = seated('far9', '2', [9]);
    const n = seated('new3', '1', [3]);
    const p = pool([s2, s4, far, n], { chartSeats: chart });
    // Seat 3 alone strands 2 and 4.
    expect(p.fit(cls(1), 'new3')).toBeNull();
    // Three picks of two, oldest first, all refused: 2+3 strands 4, 4+3 strands 2, 9+3 strands both.
    expect(p.fit(cls(2), 'new3')).toBeNull();
    expect(ids(p.fit(cls(3), 'new3'))).toEqual(['s2', 's4', 'new3']);
    expect(ids(pool([s2, s4, far, n], { chartSeats: chart, allowOrphans: true }).fit(cls(1), 'new3'))).toEqual(['new3']);
    expect(MAX_LOOSE_CANDIDATES).toBeGreaterThan(10);
  });
});

describe('the matcher with together: one unseated listing, or one run of seats in one row', () => {
  it('takes an unseated listing of exactly the quantity, never several', () => {
    const p = pool([ga('a1', 1), ga('new2', 2), ga('b3', 3)]);
    expect(ids(p.fit(cls(2, true), 'new2'))).toEqual(['new2']);
    expect(p.fit(cls(3, true), 'new2')).toBeNull();
    expect(p.fit(cls(1, true), 'new2')).toBeNull();
    expect(ids(p.fit(cls(3, true), 'b3'))).toEqual(['b3']);
    // Without together the same pool makes three of two listings.
    expect(ids(p.fit(cls(3), 'new2'))).toEqual(['a1', 'new2']);
  });

  it('makes runs of 1 to 4 side by side from whole listings, fewest listings, then the oldest', () => {
    // Row 1, seats 1–8: [1] [2 3] [4] new[5] [6] [7 8]
    const l1 = seated('l1', '1', [1]);
    const l23 = seated('l23', '1', [2, 3]);
    const l4 = seated('l4', '1', [4]);
    const l78 = seated('l78', '1', [7, 8]);
    const l6 = seated('l6', '1', [6]);
    const n = seated('new5', '1', [5]);
    const p = pool([l1, l23, l4, l78, l6, n], { chartSeats: chartRow('1', 1, 8) });
    expect(ids(p.fit(cls(1, true), 'new5'))).toEqual(['new5']);
    // 4+5 or 5+6: both two listings; l4 is older than l6.
    expect(ids(p.fit(cls(2, true), 'new5'))).toEqual(['l4', 'new5']);
    // 3–5 would cut l23; 4–6 is three listings, as 5–7 would be if 7–8 were not one pack (it is: 5–7 cuts it).
    expect(ids(p.fit(cls(3, true), 'new5'))).toEqual(['l4', 'l6', 'new5']);
    // 2–5: l23, l4, new (three); 5–8: new, l6, l78 (three): l23 is older than l6.
    expect(ids(p.fit(cls(4, true), 'new5'))).toEqual(['l23', 'l4', 'new5']);
    // The same runs, with l78 published first, pick 5–8 instead.
    const early78 = seated('e78', '1', [7, 8], { publishedAt: 0 });
    const q = pool([l1, l23, l4, early78, l6, n], { chartSeats: chartRow('1', 1, 8) });
    expect(ids(q.fit(cls(4, true), 'new5'))).toEqual(['e78', 'l6', 'new5']);
    // Companions of the same age fall to their ids (the order ids of one instant were made in).
    const t1 = seated('t1', '1', [1], { publishedAt: 100 });
    const t2 = seated('t2', '1', [2], { publishedAt: 50 });
    const t3 = seated('t3', '1', [3], { publishedAt: 100 });
    expect(ids(pool([t3, t2, t1], { chartSeats: chartRow('1', 1, 3) }).fit(cls(2, true), 't2'))).toEqual(['t2', 't1']);
  });

  it('does not run across a gap in the numbering, a seat not for sale, or another listing it would cut', () => {
    // Seats 1, 2, 4, 5 for sale (3 is missing: a numbering gap).
    const a = seated('s1', '1', [1]);
    const b = seated('new2', '1', [2]);
    const c = seated('s4', '1', [4]);
    const d = seated('s5', '1', [5]);
    const gap = pool([a, b, c, d]);
    expect(ids(gap.fit(cls(2, true), 'new2'))).toEqual(['s1', 'new2']);
    expect(gap.fit(cls(3, true), 'new2')).toBeNull();
    // Without together the gap does not matter.
    expect(ids(gap.fit(cls(3), 'new2'))).toEqual(['s1', 'new2', 's4']);
    // The chart knows seat 3, and it is not for sale: the same.
    const chart = pool([a, b, c, d], { chartSeats: chartRow('1', 1, 5) });
    expect(chart.fit(cls(3, true), 'new2')).toBeNull();
    expect(ids(chart.fit(cls(2, true), 'new2'))).toEqual(['s1', 'new2']);
    // A pack [3 4] next to the new seat 2: a run of 2 would cut it, a run of 3 (2–4) holds it whole.
    const pack = seated('p34', '1', [3, 4]);
    const cut = pool([seated('new2b', '1', [2]), pack], { chartSeats: chartRow('1', 2, 4) });
    expect(cut.fit(cls(2, true), 'new2b')).toBeNull();
    expect(ids(cut.fit(cls(3, true), 'new2b'))).toEqual(['p34', 'new2b']);
  });

  it('keeps a run in one row: two rows side by side on paper are not seats together', () => {
    const row1 = seated('r1', '1', [1, 2]);
    const row2 = seated('new_r2', '2', [1, 2]);
    const p = pool([row1, row2]);
    expect(ids(p.fit(cls(2, true), 'new_r2'))).toEqual(['new_r2']);
    expect(p.fit(cls(4, true), 'new_r2')).toBeNull();
    expect(ids(p.fit(cls(4), 'new_r2'))).toEqual(['r1', 'new_r2']);
    // A pack across two rows is never "together", whatever the quantity.
    const across: FreeListing = { ...seated('new_x', '1', [5]), quantity: 2, seats: [{ section: 'A', row: '1', seat: '5' }, { section: 'A', row: '2', seat: '5' }] };
    expect(pool([across]).fit(cls(2, true), 'new_x')).toBeNull();
    expect(ids(pool([across]).fit(cls(2), 'new_x'))).toEqual(['new_x']);
    // The same row label in another section is another row.
    const otherSection: FreeListing = { ...seated('b3', '1', [3]), seats: [{ section: 'B', row: '1', seat: '3' }] };
    const n = seated('new4', '1', [4]);
    expect(pool([otherSection, n]).fit(cls(2, true), 'new4')).toBeNull();
  });

  it('refuses a run that leaves a single seat stranded, unless the partner allows orphans', () => {
    // Seats 1 and 5 not for sale; 2, 3, 4 singles; the new one is 3.
    const chart = chartRow('1', 1, 5);
    const listings = [seated('s2', '1', [2]), seated('s4', '1', [4]), seated('new3', '1', [3])];
    const strict = pool(listings, { chartSeats: chart });
    expect(strict.fit(cls(2, true), 'new3')).toBeNull();
    expect(ids(strict.fit(cls(3, true), 'new3'))).toEqual(['s2', 's4', 'new3']);
    expect(strict.fit(cls(1, true), 'new3')).toBeNull();
    const lax = pool(listings, { chartSeats: chart, allowOrphans: true });
    expect(ids(lax.fit(cls(2, true), 'new3'))).toEqual(['s2', 'new3']);
    expect(ids(lax.fit(cls(1, true), 'new3'))).toEqual(['new3']);
    // A free seat at the end of the row is no orphan (the aisle seat still sells alone): 1–2 and
    // 2–3 both pass, and the older companion wins.
    const aisle = pool([seated('e1', '1', [1]), seated('new2', '1', [2]), seated('e3', '1', [3])], { chartSeats: chartRow('1', 1, 3) });
    expect(ids(aisle.fit(cls(2, true), 'new2'))).toEqual(['e1', 'new2']);
    // With seat 4 there and not for sale, 1–2 would strand 3 between 2 and 4: only 2–3 is left.
    const walled = pool([seated('w1', '1', [1]), seated('new2w', '1', [2]), seated('w3', '1', [3])], { chartSeats: chartRow('1', 1, 4) });
    expect(ids(walled.fit(cls(2, true), 'new2w'))).toEqual(['new2w', 'w3']);
  });

  it('skips the fan’s own seats: a run through them is not theirs, and another run may be', () => {
    // Seats 1–3: the fan sells 1; the new one is 2; 3 is someone else's.
    const mine = seated('mine1', '1', [1], { sellerPk: 'usr_fan', publishedAt: -1 });
    const n = seated('new2', '1', [2]);
    const other = seated('o3', '1', [3]);
    const p = pool([mine, n, other], { chartSeats: chartRow('1', 1, 3) });
    expect(ids(p.fit(cls(2, true), 'new2'))).toEqual(['mine1', 'new2']);
    expect(ids(p.fit(cls(2, true), 'new2', { excludeSellerPk: 'usr_fan' }))).toEqual(['new2', 'o3']);
    expect(p.fit(cls(3, true), 'new2', { excludeSellerPk: 'usr_fan' })).toBeNull();
  });

  it('reads rows whose seats are not numbers in the order they appear, as the seat map does', () => {
    const chart: Seat[] = ['a', 'b', 'c', 'd'].map((seat) => ({ section: 'A', row: 'K', seat }));
    const p = pool([seated('sa', 'K', ['a']), seated('new_b', 'K', ['b']), seated('sd', 'K', ['d'])], { chartSeats: chart });
    expect(ids(p.fit(cls(2, true), 'new_b'))).toEqual(['sa', 'new_b']);
    // c is not for sale: b–d is no run.
    expect(p.fit(cls(3, true), 'new_b')).toBeNull();
  });

  it('answers one fit per class, each containing the new listing', () => {
    const p = pool([seated('s1', '1', [1]), seated('s2', '1', [2]), seated('new3', '1', [3]), seated('s4', '1', [4])], { chartSeats: chartRow('1', 1, 4) });
    const fits = p.fits([cls(1, true), cls(2, true), cls(3, true), cls(4, true), cls(2), cls(4)], 'new3');
    for (const f of fits) if (f) expect(f.listingIds).toContain('new3');
    // Alone, 3 strands nothing (4 is the row's end). Together, 2–3 beats 3–4 (s2 is older); without
    // together, 1 and 3 (the oldest pair) would strand 2, so 2 and 3 again.
    expect(fits.map(ids)).toEqual([['new3'], ['s2', 'new3'], ['s1', 's2', 'new3'], ['s1', 's2', 'new3', 's4'], ['s2', 'new3'], ['s1', 's2', 'new3', 's4']]);
  });
});
