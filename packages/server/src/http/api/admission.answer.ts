import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../db/client.js';
import type { VerifyBody } from '../../domain/admission/admission.schemas.js';
import type { EventsService } from '../../domain/events/events.service.js';
import { admitScan, type AdmitScanDeps, type ScanAnswer } from '../../flows/admit-scan.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';

/**
 * What the scan endpoints share, the partner's (admission.routes.ts) and a door's
 * (door.routes.ts): a verdict as the API answers it, and the times a sync of offline scans
 * accepts.
 */

/** A scan's verdict as the API answers it (`AdmissionVerifyResult`). */
export function verdictToApi(r: ScanAnswer) {
  return { valid: r.valid, reason: r.reason, repeat: r.repeat, ticket: r.ticket, admittedAt: r.admittedAt === null ? null : toIso(r.admittedAt) };
}

/**
 * A partner's online scan (`POST /v1/tickets/admission/verify`), its body validated: the door's
 * show when it names one (404 when the partner has no such show), the scan, and its verdict as
 * the API answers it. The route and its fast path (admission.verify.fast.ts) both answer this.
 */
export async function verifyAnswer(deps: AdmitScanDeps & { events: EventsService }, tx: Tx, partnerId: string, body: z.output<typeof VerifyBody>) {
  const door = body.showId === undefined || body.externalReferenceEventId === undefined ? undefined : await deps.events.findShow(tx, partnerId, body.externalReferenceEventId, body.showId);
  return verdictToApi(await admitScan(deps, tx, partnerId, body.text, { showPk: door?.show.id }));
}

/** How far a door's clock may run ahead of the service's (its kit corrects it; a little drift remains). */
export const SYNC_AHEAD_MS = 5 * 60_000;
/** How old a synced scan may be: a door offline through a whole show, and then some. */
export const SYNC_BEHIND_MS = 24 * 3_600_000;

/**
 * The scans of a sync request with their times read, every `scannedAt` out of range named at
 * once (400, nothing recorded).
 *
 * @throws ApiError 400 `out_of_range` on `scans.<i>.scannedAt`
 */
export function syncedScans(scans: readonly { text: string; scannedAt: string }[], now: number): { text: string; scannedAt: number }[] {
  const read = scans.map((s) => ({ text: s.text, scannedAt: Date.parse(s.scannedAt) }));
  const wrong = read.flatMap((s, i) =>
    s.scannedAt > now + SYNC_AHEAD_MS || s.scannedAt < now - SYNC_BEHIND_MS
      ? [{ code: 'out_of_range' as const, message: 'scannedAt must be within the last 24 hours and at most 5 minutes ahead', path: `scans.${i}.scannedAt`, in: 'body' as const }]
      : [],
  );
  if (wrong.length) throw ApiError.invalid(wrong);
  return read;
}
