import type { DemoEvent, DemoState, DemoTicket, DemoUser } from './store.js';

/**
 * What the demo platform sells: four fictional users, a seated event with a seating chart
 * and a general-admission event, and the tickets the users bought in the (fictional)
 * primary sale. Built once per state file, with dates a few weeks after "now", so the demo
 * never shows past events on its first run.
 */

export const USERS: readonly DemoUser[] = [
  { id: 'u-ana', name: 'Ana García', email: 'ana@demo.test' },
  { id: 'u-ben', name: 'Ben Okafor', email: 'ben@demo.test' },
  { id: 'u-carla', name: 'Carla Rossi', email: 'carla@demo.test' },
  // No tickets: the ownership endpoint answers 204 for him (a registered user who may buy).
  { id: 'u-dan', name: 'Dan Novak', email: 'dan@demo.test' },
];

export const GALA_ID = 'demo-gala';
export const FESTIVAL_ID = 'demo-festival';
const DAY_MS = 86_400_000;

/** Seats of the chart, per section: rows and how many seats each row has. */
const SECTIONS = [
  { section: 'Stalls', rows: ['A', 'B', 'C'], seats: 8, top: 60, fill: '#dbe7f7', seatFill: '#1f4e8c' },
  { section: 'Balcony', rows: ['D', 'E'], seats: 6, top: 175, fill: '#f3e3d3', seatFill: '#8a4b14' },
] as const;

/**
 * The seating chart of the gala, drawn with the chart convention the seat map reads:
 * zone elements carry `data-area` (equal to the ticket option's `area`), seat elements carry
 * `data-section`, `data-row` and `data-seat` (equal to the tickets' seating).
 */
export function galaSeatingSvg(): string {
  const parts: string[] = [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 270" role="img" aria-label="Seating chart of Teatro Demo">',
    '<title>Teatro Demo</title>',
    '<rect x="90" y="10" width="180" height="32" rx="6" fill="#33333d"/>',
    '<text x="180" y="31" text-anchor="middle" font-size="14" fill="#ffffff">Stage</text>',
  ];
  for (const s of SECTIONS) {
    const height = s.rows.length * 30 + 16;
    parts.push(`<g>`, `<rect data-area="${s.section}" x="16" y="${s.top}" width="328" height="${height}" rx="10" fill="${s.fill}"><title>${s.section}</title></rect>`);
    const gap = 300 / s.seats;
    s.rows.forEach((row, r) => {
      const cy = s.top + 23 + r * 30;
      parts.push(`<text x="28" y="${cy + 4}" text-anchor="middle" font-size="11" fill="#33333d">${row}</text>`);
      for (let n = 1; n <= s.seats; n++) {
        const cx = Math.round(30 + gap * (n - 0.5) + 10);
        parts.push(
          `<circle data-section="${s.section}" data-row="${row}" data-seat="${n}" cx="${cx}" cy="${cy}" r="10" fill="${s.seatFill}"><title>${s.section} row ${row} seat ${n}</title></circle>`,
        );
      }
    });
    parts.push('</g>');
  }
  parts.push('</svg>');
  return parts.join('');
}

/** A show date `days` from `now`, at `hourUtc`:00 UTC. */
function showDate(now: Date, days: number, hourUtc: number): string {
  const d = new Date(Math.floor((now.getTime() + days * DAY_MS) / DAY_MS) * DAY_MS);
  d.setUTCHours(hourUtc);
  return d.toISOString();
}

export function catalogEvents(now: Date): DemoEvent[] {
  return [
    {
      id: GALA_ID,
      showId: 'gala-1',
      showTitle: 'Opening night',
      title: 'Aurora Orchestra: Winter Gala',
      description: 'An evening of film music by the (fictional) Aurora Orchestra. Assigned seating.',
      date: showDate(now, 35, 19),
      venue: 'Teatro Demo',
      address: 'Calle Ejemplo 1',
      city: 'Madrid',
      country: 'ES',
      timeZone: 'Europe/Madrid',
      currency: 'EUR',
      priceTypeId: 'standard',
      options: [
        { id: 'gala-stalls', title: 'Stalls', description: 'Ground floor, close to the stage', area: 'Stalls', price: 60 },
        { id: 'gala-balcony', title: 'Balcony', description: 'Upper floor, full view', area: 'Balcony', price: 40 },
      ],
      svg: galaSeatingSvg(),
    },
    {
      id: FESTIVAL_ID,
      showId: 'fest-1',
      showTitle: 'Main stage',
      title: 'Demo Fest: Summer Nights',
      description: 'Three (fictional) bands on one open-air stage. General admission.',
      date: showDate(now, 56, 18),
      venue: 'Parque Demo',
      address: 'Avenida Ejemplo 20',
      city: 'Valencia',
      country: 'ES',
      timeZone: 'Europe/Madrid',
      currency: 'EUR',
      priceTypeId: 'standard',
      options: [
        { id: 'fest-ga', title: 'General admission', description: 'Standing, field', area: 'Field', price: 35 },
        { id: 'fest-early', title: 'Early entry', description: 'Standing, doors open one hour earlier', area: 'Field', price: 45 },
      ],
      svg: null,
    },
  ];
}

/** The primary-sale purchases: who bought which tickets, grouped by order. */
const ORDERS: { orderId: string; userId: string; eventId: string; optionId: string; seats?: [section: string, row: string, seat: string][]; count?: number }[] = [
  { orderId: 'ord-1001', userId: 'u-ana', eventId: GALA_ID, optionId: 'gala-stalls', seats: [['Stalls', 'A', '5'], ['Stalls', 'A', '6']] },
  { orderId: 'ord-1002', userId: 'u-ben', eventId: GALA_ID, optionId: 'gala-balcony', seats: [['Balcony', 'D', '3']] },
  { orderId: 'ord-1003', userId: 'u-carla', eventId: GALA_ID, optionId: 'gala-stalls', seats: [['Stalls', 'C', '4'], ['Stalls', 'C', '5']] },
  { orderId: 'ord-1004', userId: 'u-ana', eventId: FESTIVAL_ID, optionId: 'fest-ga', count: 1 },
  { orderId: 'ord-1005', userId: 'u-ben', eventId: FESTIVAL_ID, optionId: 'fest-early', count: 1 },
  { orderId: 'ord-1006', userId: 'u-carla', eventId: FESTIVAL_ID, optionId: 'fest-ga', count: 2 },
];

export function catalogTickets(events: readonly DemoEvent[]): DemoTicket[] {
  const tickets: DemoTicket[] = [];
  const counters = new Map<string, number>();
  for (const order of ORDERS) {
    const event = events.find((e) => e.id === order.eventId)!;
    const option = event.options.find((o) => o.id === order.optionId)!;
    const places = order.seats ?? Array.from({ length: order.count ?? 1 }, () => null);
    for (const place of places) {
      const n = (counters.get(event.id) ?? 0) + 1;
      counters.set(event.id, n);
      const ticketId = place ? `dt-${event.id.replace('demo-', '')}-${place[1]}${place[2]}`.toLowerCase() : `dt-${event.id.replace('demo-', '')}-${String(n).padStart(4, '0')}`;
      tickets.push({
        ticketId,
        eventId: event.id,
        showId: event.showId,
        ticketOptionId: option.id,
        priceTypeId: event.priceTypeId,
        ownerId: order.userId,
        orderId: order.orderId,
        paidPrice: option.price,
        currency: event.currency,
        section: place?.[0] ?? null,
        row: place?.[1] ?? null,
        seat: place?.[2] ?? null,
        code: `DT-${ticketId.slice(3).toUpperCase()}`,
        resale: null,
      });
    }
  }
  return tickets;
}

/** The whole catalog for a fresh state file. */
export function createCatalog(now: Date): Pick<DemoState, 'users' | 'events' | 'tickets'> {
  const events = catalogEvents(now);
  return { users: USERS.map((u) => ({ ...u })), events, tickets: catalogTickets(events) };
}
