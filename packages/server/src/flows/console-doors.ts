import type { Kernel } from '../lib/kernel.js';
import { toIso } from '../lib/clock.js';
import { servicePaths, serviceUrl } from '../lib/urls.js';
import { auditChange, type AuditContext, type AuditService } from '../domain/audit/audit.service.js';
import { doorExpiry, type DoorsService } from '../domain/admission/admission.doors.js';
import type { EventsService } from '../domain/events/events.service.js';

/**
 * The console's doors of a show (http/pages/console/console.events.tsx): a door link made, a
 * door revoked. Each is the admission module's command and its audit entry in ONE transaction;
 * a change refused writes nothing and records nothing. The token never reaches the audit log:
 * only the door's id and name.
 */

/** The stable action names of these changes in the audit log. */
export const CONSOLE_DOOR_ACTIONS = {
  /** A door link made: its name; the target is `<eventId>/<showId>/<doorId>`. */
  create: 'door.create',
  /** A door revoked: `revokedAt` null → when; the target as for `door.create`. */
  revoke: 'door.revoke',
} as const;

/** The link staff open: the scanner page with the token in its fragment, which browsers never send to a server nor in a Referer. */
export function doorLink(publicBaseUrl: string, token: string): string {
  return `${serviceUrl(publicBaseUrl, servicePaths.door())}#${token}`;
}

/** What these changes need. */
export type ConsoleDoorsDeps = Pick<Kernel, 'db' | 'config'> & { doors: DoorsService; audit: AuditService; events: EventsService };

/**
 * Makes a door link for the show: the link (shown once: only the token's hash is kept) and the
 * door's id. Records `door.create` with the door's name, by whom.
 *
 * @throws ApiError 404 for an unknown event or show (or another partner's); 400 on `label`; 409 past the doors a show may have
 */
export async function createDoor(deps: ConsoleDoorsDeps, ctx: AuditContext, partnerId: string, input: { eventId: string; showId: string; label: string }): Promise<{ doorId: string; label: string; link: string; expiresAt: string }> {
  return deps.db.transact(async (tx) => {
    const { show } = await deps.events.findShow(tx, partnerId, input.eventId, input.showId);
    const createdBy = ctx.actor.kind === 'console' ? ctx.actor.email : 'operator token';
    const { door, token } = await deps.doors.create(tx, partnerId, show.id, { label: input.label, createdBy });
    await deps.audit.record(tx, ctx, { action: CONSOLE_DOOR_ACTIONS.create, partnerId, target: `${input.eventId}/${input.showId}/${door.id}`, ...auditChange({}, { label: door.label }) });
    return { doorId: door.id, label: door.label, link: doorLink(deps.config.publicBaseUrl, token), expiresAt: toIso(doorExpiry(show)) };
  });
}

/**
 * Revokes a door of the show: its link stops working at once (a door offline keeps checking
 * with the kit it holds, and its sync is refused: the venue's staff see why). Records
 * `door.revoke` when it changed something.
 *
 * @throws ApiError 404 for an unknown event, show or door (or another partner's, or another show's)
 */
export async function revokeDoor(deps: ConsoleDoorsDeps, ctx: AuditContext, partnerId: string, input: { eventId: string; showId: string; doorId: string }): Promise<{ changed: boolean }> {
  return deps.db.transact(async (tx) => {
    const { show } = await deps.events.findShow(tx, partnerId, input.eventId, input.showId);
    const { before, after } = await deps.doors.revoke(tx, partnerId, show.id, input.doorId);
    const changed = before.revokedAt !== after.revokedAt;
    if (changed) await deps.audit.record(tx, ctx, { action: CONSOLE_DOOR_ACTIONS.revoke, partnerId, target: `${input.eventId}/${input.showId}/${input.doorId}`, ...auditChange({ revokedAt: null }, { revokedAt: toIso(after.revokedAt!) }) });
    return { changed };
  });
}
