import { describe, expect, it } from 'vitest';
import type { SeatMapListing } from '../../internal/types.js';
import { CHART } from './seat-map.fixtures.js';
import { availabilityByArea, buildRows, chartSeats, continueUrl, indexSeats, selectionLeavesOrphan } from '@resale/shared/seat-rules';

const seats = (row: string, ...nums: string[]) => nums.map((seat) => ({ section: 'S', row, seat }));
const listing = (listingId: string, ...nums: string[]): SeatMapListing => ({ listingId, ticketOptionId: 'o', area: 'S', quantity: nums.length, price: 10, currency: 'EUR', seats: seats('1', ...nums) });

/** Whether the selection `picked` + `candidate` strands a seat. */
function check(all: SeatMapListing[], chart: string[], picked: string[], candidate: string): boolean {
  const rows = buildRows(seats('1', ...chart), all);
  const selection = [...picked, candidate].map((id) => all.find((l) => l.listingId === id)!);
  return selectionLeavesOrphan(selection, rows, indexSeats(all));
}

describe('availabilityByArea', () => {
  it('marks none, some and the cheapest per currency', () => {
    const a = availabilityByArea([
      { area: 'A', quantityForSale: 0, floorPrice: 0, currency: 'EUR', ticketOptionIds: [] },
      { area: 'B', quantityForSale: 3, floorPrice: 20, currency: 'EUR', ticketOptionIds: [] },
      { area: 'C', quantityForSale: 1, floorPrice: 10, currency: 'EUR', ticketOptionIds: [] },
      { area: 'D', quantityForSale: 1, floorPrice: 10, currency: 'EUR', ticketOptionIds: [] },
      { area: 'E', quantityForSale: 1, floorPrice: 5, currency: 'USD', ticketOptionIds: [] },
      { area: 'F', quantityForSale: 2, floorPrice: 0, currency: 'EUR', ticketOptionIds: [] },
    ]);
    expect(Object.fromEntries(a)).toEqual({ A: 'none', B: 'some', C: 'cheapest', D: 'cheapest', E: 'cheapest', F: 'some' });
  });
});

describe('selectionLeavesOrphan', () => {
  const all = [listing('l2', '2'), listing('l3', '3'), listing('l4', '4')];
  const chart = ['1', '2', '3', '4', '5']; // 1 and 5 are in the chart but not for sale

  it('refuses a pick that strands one free seat against an unavailable seat', () => {
    expect(check(all, chart, [], 'l3')).toBe(true); // seat 2 left between unavailable 1 and picked 3
  });

  it('refuses a second pick that strands the seat beside it', () => {
    expect(check(all, chart, ['l2'], 'l3')).toBe(true); // 4 left between picked 3 and unavailable 5
  });

  it('accepts picks that keep free seats together or take the whole gap', () => {
    expect(check(all, chart, [], 'l2')).toBe(false); // 3 and 4 stay free together
    expect(check(all, chart, ['l2', 'l3'], 'l4')).toBe(false); // nothing free remains
  });

  it('judges the whole selection: two seats for sale between seats that are not can be bought together', () => {
    const pair = [listing('c4', '4'), listing('c5', '5')];
    const row = ['3', '4', '5', '6'];
    expect(check(pair, row, [], 'c4')).toBe(true); // 5 alone between picked 4 and unavailable 6
    expect(check(pair, row, ['c4'], 'c5')).toBe(false); // both: nothing stranded
  });

  it('counts numbering gaps as unavailable seats when the chart has no seats', () => {
    const packs = [listing('a', '10'), listing('b', '11'), listing('c', '13')];
    // Row known only from listings: 10, 11, (12 missing), 13. Picking 10 leaves 11 between 10 and the gap.
    expect(check(packs, [], [], 'a')).toBe(true);
    expect(check(packs, [], [], 'b')).toBe(false); // 10 is on the row end, 13 after the gap is on the other end
  });

  it('does not blame a pick for an orphan that already existed elsewhere in the row', () => {
    const l = [listing('x', '2'), listing('pack', '6', '7')];
    // 2 is already alone between unavailable 1 and 3; the pack 6-7 fills the gap between 5 and 8.
    expect(check(l, ['1', '2', '3', '5', '6', '7', '8'], [], 'pack')).toBe(false);
  });

  it('keeps rows with non-numeric seats in chart order', () => {
    const l = [listing('b', 'B'), listing('c', 'C')];
    expect(check(l, ['A', 'B', 'C', 'D'], [], 'b')).toBe(true); // C alone between picked B and unavailable D
    expect(check(l, ['A', 'B', 'C', 'D'], [], 'c')).toBe(true); // B alone between unavailable A and picked C
  });
});

describe('continueUrl', () => {
  it('appends the listing ids with & or ?', () => {
    expect(continueUrl('https://r.example/m?showId=1', ['lst_a', 'lst_b'])).toBe('https://r.example/m?showId=1&listingIds=lst_a,lst_b');
    expect(continueUrl('https://r.example/m', ['a&b'])).toBe('https://r.example/m?listingIds=a%26b');
  });
});

describe('chartSeats (the server reads the stored chart with it)', () => {
  it('reads seats in document order with section and row inherited from the nearest element that has them', () => {
    expect(chartSeats(CHART)).toEqual(['1', '2', '3', '4', '5'].map((seat) => ({ section: 'C', row: '1', seat })));
    const markup = `<?xml version="1.0"?><!-- <g data-row="no"> --><svg><g data-section="A &amp; B"><circle data-row='7' data-seat="1"/>
      <g data-row="8"><rect data-seat=2></rect><text>row > 8</text><circle data-section="Z" data-seat="3"><title>x</title></circle></g></g><circle data-seat="9"/></svg>`;
    expect(chartSeats(markup)).toEqual([
      { section: 'A & B', row: '7', seat: '1' },
      { section: 'A & B', row: '8', seat: '2' },
      { section: 'Z', row: '8', seat: '3' },
      { section: null, row: null, seat: '9' },
    ]);
  });

  it('agrees with the DOM (Element.closest, as the widget reads its chart) on the fixtures', () => {
    const demo = `<svg viewBox="0 0 10 10"><g><rect data-area="Stalls"/><text>A</text>${[1, 2, 3].map((n) => `<circle data-section="Stalls" data-row="A" data-seat="${n}"><title>Seat ${n}</title></circle>`).join('')}</g></svg>`;
    for (const markup of [CHART, demo]) {
      const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
      const dom = [...doc.querySelectorAll('[data-seat]')].map((el) => ({ section: el.closest('[data-section]')?.getAttribute('data-section') ?? null, row: el.closest('[data-row]')?.getAttribute('data-row') ?? null, seat: el.getAttribute('data-seat') }));
      expect(chartSeats(markup)).toEqual(dom);
    }
  });
});
