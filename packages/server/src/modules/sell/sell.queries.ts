import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { events, shows, ticketOptions } from '../events/events.table.js';
import type { tickets } from '../tickets/tickets.table.js';

/** What the sell pages say about a ticket's event, show and category. */
export function eventOfTicket(tx: Tx, ticket: typeof tickets.$inferSelect) {
  const r = tx
    .select({ eventTitle: events.title, showTitle: shows.title, startsAt: shows.startsAt, optionTitle: ticketOptions.title, showLocation: shows.location, eventLocation: events.location })
    .from(shows)
    .innerJoin(events, eq(events.id, shows.eventPk))
    .innerJoin(ticketOptions, eq(ticketOptions.id, ticket.ticketOptionPk))
    .where(eq(shows.id, ticket.showPk))
    .get()!;
  const { showLocation, eventLocation, ...rest } = r;
  return { ...rest, timeZone: (showLocation ?? eventLocation).timeZone ?? null };
}
