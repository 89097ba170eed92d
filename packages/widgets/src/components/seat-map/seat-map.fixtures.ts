import type { SeatMapData, SeatMapListing } from '../../internal/types.js';

/** A chart with three zones; zone C has seats 1-5 in row 1 of section C. */
export const CHART = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 100" width="300" height="100">
  <rect data-area="A" x="0" y="0" width="90" height="40" fill="#ccc"/>
  <rect data-area="B" x="100" y="0" width="90" height="40"/>
  <g data-area="C" data-section="C">
    <g data-row="1">
      <circle data-seat="1" cx="10" cy="80" r="4"/><circle data-seat="2" cx="20" cy="80" r="4"/><circle data-seat="3" cx="30" cy="80" r="4"/>
      <circle data-seat="4" cx="40" cy="80" r="4"/><circle data-seat="5" cx="50" cy="80" r="4"/>
    </g>
  </g>
  <rect data-area="D" x="200" y="0" width="90" height="40"/>
</svg>`;

const listing = (over: Partial<SeatMapListing> & Pick<SeatMapListing, 'listingId'>): SeatMapListing => ({
  ticketOptionId: 'opt-a',
  area: 'A',
  quantity: 1,
  price: 40,
  currency: 'EUR',
  seats: [{ section: null, row: null, seat: null }],
  ...over,
});

/** Seats C-1 and C-5 are not for sale; 2, 3 and 4 are, one listing each. */
export function mapData(over: Partial<SeatMapData> = {}): SeatMapData {
  return {
    eventId: 'tour-2026',
    showId: 'show-1',
    chart: { svgCode: CHART, image: null },
    config: { allowOrphanTicketSelection: false },
    areas: [
      { area: 'A', quantityForSale: 3, floorPrice: 40, currency: 'EUR', ticketOptionIds: ['opt-a'] },
      { area: 'B', quantityForSale: 2, floorPrice: 25.5, currency: 'EUR', ticketOptionIds: ['opt-b'] },
      { area: 'C', quantityForSale: 3, floorPrice: 60, currency: 'EUR', ticketOptionIds: ['opt-c'] },
      { area: 'D', quantityForSale: 0, floorPrice: 0, currency: 'EUR', ticketOptionIds: ['opt-d'] },
    ],
    listings: [
      listing({ listingId: 'lst_b1', ticketOptionId: 'opt-b', area: 'B', quantity: 2, price: 25.5 }),
      listing({ listingId: 'lst_a1', quantity: 2 }),
      listing({ listingId: 'lst_a2', ticketOptionId: 'opt-a2' }),
      listing({ listingId: 'lst_c2', ticketOptionId: 'opt-c', area: 'C', price: 60, seats: [{ section: 'C', row: '1', seat: '2' }] }),
      listing({ listingId: 'lst_c3', ticketOptionId: 'opt-c', area: 'C', price: 60, seats: [{ section: 'C', row: '1', seat: '3' }] }),
      listing({ listingId: 'lst_c4', ticketOptionId: 'opt-c', area: 'C', price: 60, seats: [{ section: 'C', row: '1', seat: '4' }] }),
    ],
    selectUrl: 'https://resale.example/market/ptr_1/tour-2026?showId=show-1',
    ...over,
  };
}
