import type { Tx } from '../db/client.js';
import { showWithEvent, ticketOptionByPk } from '../domain/events/events.queries.js';
import type { TicketRow } from '../domain/tickets/tickets.queries.js';

/** What the sell pages say about a ticket's event, show and category. */
export async function eventOfTicket(tx: Tx, ticket: Pick<TicketRow, 'showPk' | 'ticketOptionPk'>) {
  const found = await showWithEvent(tx, ticket.showPk);
  const option = await ticketOptionByPk(tx, ticket.ticketOptionPk);
  if (!found || !option) throw new Error(`No show ${ticket.showPk} with ticket option ${ticket.ticketOptionPk}`);
  const { show, event } = found;
  return {
    eventTitle: event.title,
    showTitle: show.title,
    startsAt: show.startsAt,
    optionTitle: option.title,
    timeZone: (show.location ?? event.location).timeZone ?? null,
    /** The venue's country as the partner gave it (free text: a code when the partner sent one). */
    country: (show.location ?? event.location).country ?? null,
  };
}
