import type { Lang } from '@resale/shared/lang';
import { partnerById, type PartnerRow } from '../../../domain/partners/partners.queries.js';
import { ticketPdf } from '../../../domain/tickets/tickets.pdf.js';
import { drawQr, readTicketView, secureViewUrl, ticketForToken, type TicketView, type TicketViewDeps } from '../../../domain/tickets/tickets.view.js';

/**
 * The secure ticket view's loading: the ticket of a view token and what the page and its PDF
 * show (the domain's {@link TicketView}, data only). No request here: the handlers
 * (tickets.pages.tsx) pass the token and the language.
 */

/** The ticket of a view token, its view (QR drawn) and its partner (for the page's brand). */
export interface TicketFound {
  ticket: { id: string; ownerPk: string };
  partner: PartnerRow | null;
  view: TicketView;
}

/**
 * The ticket of the path's token and its view (QR drawn), or `gone` when the token is
 * malformed, unknown, or the ticket changed hands.
 */
export async function loadTicket(deps: TicketViewDeps, token: string): Promise<{ kind: 'gone' } | ({ kind: 'ticket' } & TicketFound)> {
  const found = await deps.db.read(async (tx) => {
    const ticket = await ticketForToken(deps, tx, token);
    return ticket ? { ticket, view: await readTicketView(deps, tx, ticket.id), partner: await partnerById(tx, ticket.partnerId) } : null;
  });
  if (!found) return { kind: 'gone' };
  return { kind: 'ticket', ticket: found.ticket, partner: found.partner ?? null, view: await drawQr(found.view) };
}

/** The ticket's PDF (with the link back to this view) and the file name it is saved as. */
export async function ticketDownload(deps: Pick<TicketViewDeps, 'box' | 'config'>, found: Pick<TicketFound, 'ticket' | 'view'>, lang: Lang): Promise<{ pdf: Uint8Array<ArrayBuffer>; fileName: string }> {
  const pdf = await ticketPdf(found.view, secureViewUrl(deps, found.ticket), lang);
  return { pdf: new Uint8Array(pdf), fileName: `ticket-${found.view.ticketId.replace(/[^\w.-]/g, '_')}.pdf` };
}
