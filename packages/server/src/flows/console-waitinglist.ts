import { serializeOn } from '../db/dialect.js';
import type { Kernel } from '../lib/kernel.js';
import { auditChange, type AuditContext, type AuditService } from '../domain/audit/audit.service.js';
import type { SettingsInput, WaitingListSettings } from '../domain/waitinglist/waitinglist.model.js';
import { waitingListLockKey, type WaitingListService } from '../domain/waitinglist/waitinglist.service.js';

/**
 * The console's changes to a show's waiting list (http/pages/console/console.waitinglist.tsx):
 * the organiser's settings, written by the owner's command (`WaitingListService.putSettings`,
 * the one PUT /v1/waitinglist/settings uses) and audited in the same transaction, as
 * flows/console-events.ts does for the events section. A change refused (404, 400) writes
 * nothing and records nothing.
 */

/** The stable action names of these changes in the audit log. */
export const CONSOLE_WAITINGLIST_ACTIONS = {
  /**
   * A show's waiting-list settings set: each field that changed (`enabled`, `offerMinutes`,
   * `quietHours.start|end|timeZone`, `priceCap`), before → after; the target is `<eventId>/<showId>`.
   */
  setSettings: 'waitinglist.settings.set',
} as const;

/** What these changes need: the database, the waiting list and the audit log. */
export type ConsoleWaitingListDeps = Pick<Kernel, 'db'> & { waitingList: WaitingListService; audit: AuditService };

/** The settings as the audit log compares them: what the organiser sets, not the line's counters nor the stamp. */
function audited(s: WaitingListSettings): Record<string, unknown> {
  return { enabled: s.enabled, offerMinutes: s.offerMinutes, quietHours: s.quietHours, priceCap: s.priceCap };
}

/**
 * Sets a show's waiting list whole, as PUT /v1/waitinglist/settings does (an absent
 * `offerMinutes` is the default, absent `quietHours` none; quiet hours without a time zone take
 * the venue's), and records `waitinglist.settings.set` with what changed. The show's lock is
 * taken before the settings are read, so the entry's "before" is what this write replaced even
 * when two people save at once. Turning the list on offers what is on sale now to the line, in
 * this transaction (the service's `waitinglist.enabled`).
 *
 * @throws ApiError 404 for an unknown (or another partner's) event or show; 400 naming every
 *   invalid field (`offerMinutes`, `quietHours.start`, `quietHours.end`, `quietHours.timeZone`,
 *   `priceCap`), nothing written nor recorded
 * @example await setWaitingListSettings(deps, ctx, 'ptr_…', { eventId: 'tour-2026', showId: 'show-1' }, { enabled: true, offerMinutes: 20, priceCap: 'FACE_VALUE' });
 */
export async function setWaitingListSettings(
  deps: ConsoleWaitingListDeps,
  ctx: AuditContext,
  partnerId: string,
  show: { eventId: string; showId: string },
  input: SettingsInput,
): Promise<{ settings: WaitingListSettings; changed: boolean }> {
  const key = { externalReferenceEventId: show.eventId, showId: show.showId };
  return deps.db.transact(async (tx) => {
    // Finds the show (404 before anything else) and names its lock.
    const found = await deps.waitingList.getSettings(tx, partnerId, key);
    await serializeOn(tx, waitingListLockKey(found.showPk));
    const before = await deps.waitingList.getSettings(tx, partnerId, key);
    const settings = await deps.waitingList.putSettings(tx, partnerId, key, input);
    const change = auditChange(audited(before), audited(settings));
    await deps.audit.record(tx, ctx, { action: CONSOLE_WAITINGLIST_ACTIONS.setSettings, partnerId, target: `${show.eventId}/${show.showId}`, ...change });
    // Never set before is a change even when the values are the defaults: the organiser chose them.
    return { settings, changed: Object.keys(change.after).length > 0 || before.updatedAt === null };
  });
}
