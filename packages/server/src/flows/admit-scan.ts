import type { Tx } from '../db/client.js';
import type { AdmissionService, VerifyResult } from '../domain/admission/admission.service.js';
import { showWithEvent } from '../domain/events/events.queries.js';
import type { WebhooksService } from '../domain/webhooks/webhooks.service.js';
import { toIso } from '../lib/clock.js';

/** What a scan at the door composes: the admission module's check, and the partner's webhook. */
export type AdmitScanDeps = { admission: AdmissionService; webhooks: WebhooksService };

/** A scan's verdict with the ticket named by the partner's ids, as the scan API answers it. */
export interface ScanAnswer extends Omit<VerifyResult, 'ticket'> {
  ticket: { ticketId: string; externalReferenceEventId: string; showId: string; seat: { section: string | null; row: string | null; seat: string | null } } | null;
}

/**
 * A scanned text checked for `partnerId` (admission `verify`, which admits the ticket once) and,
 * when this scan admitted it, `ticket.admitted` queued in the same transaction: a retry of the
 * same scan, or a refusal, sends nothing.
 */
export async function admitScan(deps: AdmitScanDeps, tx: Tx, partnerId: string, text: string, door: { showPk?: string | undefined } = {}): Promise<ScanAnswer> {
  const r = await deps.admission.verify(tx, partnerId, text, door);
  const found = r.ticket ? await showWithEvent(tx, r.ticket.showPk) : undefined;
  const ticket =
    r.ticket && found
      ? { ticketId: r.ticket.ticketId, externalReferenceEventId: found.event.externalReferenceId, showId: found.show.showId, seat: { section: r.ticket.section, row: r.ticket.row, seat: r.ticket.seat } }
      : null;
  if (r.valid && !r.repeat && ticket && r.admittedAt !== null) {
    await deps.webhooks.enqueue(tx, partnerId, {
      action: 'ticket.admitted',
      resourceKey: `ticket:${ticket.ticketId}`,
      data: { ticketId: ticket.ticketId, eventId: ticket.externalReferenceEventId, showId: ticket.showId, seat: ticket.seat, admittedAt: toIso(r.admittedAt), source: 'code' },
    });
  }
  return { ...r, ticket };
}
