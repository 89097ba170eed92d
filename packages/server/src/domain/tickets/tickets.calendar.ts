import { createEvent } from 'ics';
import type { Lang } from '@resale/shared/lang';
import { ticketName } from '../../lib/seats.js';
import type { TicketView } from './tickets.view.js';

/**
 * How long the calendar entry of a show lasts: the partner sends no end time, and an evening
 * (a concert, a play, a match) fits in three hours; it is only a reminder in the fan's calendar.
 */
export const CALENDAR_SHOW_HOURS = 3;

/**
 * The ticket's show as an iCalendar file (RFC 5545, through the `ics` library): the show's
 * title with the event's, its start in UTC (calendars show it in the reader's zone), three
 * hours, the venue, the ticket named once, and the link back to the ticket view. The entry's
 * UID is the ticket's, so adding it twice updates one entry. Nothing secret goes in: the QR and
 * the code stay on the page.
 *
 * @throws Error when the library refuses the entry (a malformed date: a bug, never the fan's input)
 */
export function ticketCalendar(view: TicketView, viewUrl: string, lang: Lang): string {
  const { error, value } = createEvent({
    productId: 'resale//ticket view//EN',
    uid: `ticket-${view.ticketId}@resale`,
    start: view.startsAt,
    startInputType: 'utc',
    startOutputType: 'utc',
    duration: { hours: CALENDAR_SHOW_HOURS },
    title: view.showTitle && view.showTitle !== view.eventTitle ? `${view.eventTitle} · ${view.showTitle}` : view.eventTitle,
    description: `${ticketName(view.optionTitle, view.seating, lang)}\n${viewUrl}`,
    ...(view.venue ? { location: view.venue } : {}),
    url: viewUrl,
    status: 'CONFIRMED',
    busyStatus: 'BUSY',
  });
  if (error || !value) throw error ?? new Error('the calendar entry could not be written');
  return value;
}
