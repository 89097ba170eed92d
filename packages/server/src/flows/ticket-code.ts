import type { Lang } from '@resale/shared/lang';
import type { AdmissionService, Binding } from '../domain/admission/admission.service.js';
import type { MessagesService } from '../domain/email/email.service.js';
import { showWithEvent } from '../domain/events/events.queries.js';
import { readTicketView, secureViewUrl, type TicketViewDeps } from '../domain/tickets/tickets.view.js';
import { ticketByPk } from '../domain/tickets/tickets.queries.js';
import { userOf } from '../domain/users/users.queries.js';
import { toIso } from '../lib/clock.js';
import { ApiError } from '../lib/errors.js';

/**
 * The holder's phone certified for a ticket's rotating code, from the secure ticket view: what
 * the page's script asks once it has made the phone's key pair. It composes the ticket's view
 * (the code shows only when the view shows one: ticketShield and rotating codes on, the QR
 * unlocked, the ticket VALID), the admission module's certificate, and, when this replaced the
 * holder's earlier phone, the "your code moved" message to the holder. One transaction: a
 * refusal certifies nothing and sends nothing.
 *
 * Proving the caller is the holder (their signed-in session) is the handler's part.
 */

/** What certifying a phone reads and writes. */
export type TicketCodeDeps = TicketViewDeps & { admission: AdmissionService; messages: MessagesService };

/**
 * Certifies `devicePublicKey` for the ticket `ticketPk` while its holder is still `ownerPk` (the
 * holder whose view and session asked).
 *
 * @throws ApiError 404 when the ticket changed hands since; 409 `code_locked` before the unlock
 *   moment, `ticket_not_valid` for a ticket listed, sold, admitted, deleted or cancelled,
 *   `codes_off` when the show's venue does not scan rotating codes; 429 `too_many_devices`
 *   (see AdmissionService.bind)
 */
export async function certifyPhone(deps: TicketCodeDeps, ticket: { id: string; ownerPk: string; partnerId: string }, devicePublicKey: Uint8Array, lang: Lang): Promise<Binding> {
  return deps.db.transact(async (tx) => {
    const row = await ticketByPk(tx, ticket.id);
    if (!row || row.ownerPk !== ticket.ownerPk) throw ApiError.notFound('ticket');
    const view = await readTicketView(deps, tx, ticket.id);
    if (!view.rotating) {
      if (view.access.qrAbsence === 'locked') throw ApiError.conflict('The ticket’s code is not shown yet', undefined, 'code_locked');
      if (view.state !== 'VALID') throw ApiError.conflict(`The ticket is ${view.state}: it has no code`, undefined, 'ticket_not_valid');
      throw ApiError.conflict('The venue of this show does not scan rotating codes', undefined, 'codes_off');
    }
    const binding = await deps.admission.bind(tx, ticket.partnerId, ticket.id, devicePublicKey);
    if (binding.moved) {
      const found = (await showWithEvent(tx, row.showPk))!;
      const vars = {
        eventTitle: found.event.title,
        showTitle: found.show.title,
        showDate: toIso(found.show.startsAt),
        movedAt: toIso(deps.clock.now()),
        ticketUrl: secureViewUrl(deps, row),
        ...(view.timeZone ? { timeZone: view.timeZone } : {}),
      };
      await deps.messages.toUser(tx, ticket.partnerId, await userOf(tx, row.ownerPk), 'codeMoved', lang, vars);
    }
    return binding;
  });
}

/**
 * Whether the phone holding `devicePublicKey` (null: a phone with no key yet) shows the
 * ticket's current code: see AdmissionService.deviceStatus. `shows` says whether the view shows
 * a rotating code at all now (false: locked, listed, used, or codes switched off).
 */
export async function phoneStatus(deps: TicketCodeDeps, ticket: { id: string; ownerPk: string }, devicePublicKey: Uint8Array | null): Promise<{ status: 'current' | 'moved' | 'none'; shows: boolean; rotationSeconds: number | null }> {
  return deps.db.read(async (tx) => {
    const view = await readTicketView(deps, tx, ticket.id);
    return { status: await deps.admission.deviceStatus(tx, ticket, devicePublicKey), shows: view.rotating !== null, rotationSeconds: view.rotating?.rotationSeconds ?? null };
  });
}
