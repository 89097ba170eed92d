import { createHash } from 'node:crypto';
import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import { applySheet, previewSheet, reportTotals, type ImportReport } from '../domain/events/import/import.js';
import { readSheetBytes, SheetRefusal, type SheetLimits } from '../domain/events/import/sheet.bytes.js';
import { SheetReadError } from '../domain/events/import/sheet.read.js';
import type { EventsService } from '../domain/events/events.service.js';
import { claimLoad, completeLoad, findLoad, stageLoad, type ManualLoad } from '../domain/loads/loads.store.js';
import { partnerById } from '../domain/partners/partners.queries.js';
import type { Kernel } from '../lib/kernel.js';

/**
 * The console's manual load: a sheet uploaded, previewed, then applied, on the one code path of
 * `npm run import` (domain/events/import/import.ts): the same reading, grouping and checks, the
 * same service calls. What the console adds:
 *
 * - limits ({@link LOAD_LIMITS}) and the format told by the content (sheet.bytes.ts);
 * - the preview writes nothing; a sheet with any bad row is refused whole and not kept; a clean
 *   one is kept (domain/loads) so that the apply applies exactly the sheet previewed;
 * - the apply is all or nothing for the whole sheet: every event a savepoint of ONE transaction,
 *   which also claims the load (applied once, however often it is posted) and records
 *   `load.apply` in the audit log. Should anything have changed since the preview so that a row
 *   is now refused, the transaction rolls back: nothing of the sheet is written.
 */

/** The limits of an upload: 5 MB, 5,000 data rows, a workbook of at most 40 MiB once unpacked. */
export const LOAD_LIMITS: SheetLimits = { maxBytes: 5_000_000, maxRows: 5_000, maxUnpackedBytes: 40 * 1024 * 1024 };

/** The audit action of an applied load. */
export const LOAD_APPLY_ACTION = 'load.apply';

/** What a manual load needs: the database and clock, the events service (the API's), the audit log. */
export type ManualLoadDeps = Pick<Kernel, 'db' | 'clock'> & { events: EventsService; audit: AuditService };

/** What became of an upload. */
export type PreviewOutcome =
  /** Read and checked without a bad row: kept, to be applied. */
  | { kind: 'staged'; load: ManualLoad }
  /** Refused before its rows were read: a limit, the wrong type, a file that is no sheet. */
  | { kind: 'refused'; refusal: SheetRefusal | SheetReadError }
  /** Read, with bad rows (each named in `report.errors`): nothing written, nothing kept. */
  | { kind: 'invalid'; report: ImportReport }
  /** The partner does not exist. */
  | { kind: 'no_partner' };

/**
 * Reads and checks an uploaded sheet for the partner, as `npm run import -- --dry-run` does,
 * writing nothing of it; keeps it for the apply when no row is bad.
 *
 * @example const got = await previewLoad(deps, { partnerId, userId, fileName: 'events.csv', data });
 */
export async function previewLoad(deps: ManualLoadDeps, input: { partnerId: string; userId: string; fileName: string; data: Buffer; limits?: SheetLimits }): Promise<PreviewOutcome> {
  if (!(await deps.db.read(async (tx) => await partnerById(tx, input.partnerId)))) return { kind: 'no_partner' };
  let sheet;
  try {
    sheet = await readSheetBytes(input.data, input.limits ?? LOAD_LIMITS);
  } catch (err) {
    if (err instanceof SheetRefusal || err instanceof SheetReadError) return { kind: 'refused', refusal: err };
    throw err;
  }
  const report = await previewSheet(deps, sheet, { partnerId: input.partnerId, file: input.fileName });
  if (report.errors.length > 0) return { kind: 'invalid', report };
  const sha256 = createHash('sha256').update(input.data).digest('hex');
  const load = await deps.db.transact(async (tx) => await stageLoad(deps, tx, { partnerId: input.partnerId, createdBy: input.userId, fileName: input.fileName, sha256, sheet, preview: report }));
  return { kind: 'staged', load };
}

/** What became of an apply. */
export type ApplyOutcome =
  /** Applied now, the whole sheet. */
  | { kind: 'applied'; load: ManualLoad & { result: ImportReport } }
  /** Applied before: nothing was done again. */
  | { kind: 'already'; load: ManualLoad }
  /** A row is refused now (the stored events changed since the preview): nothing was written. */
  | { kind: 'refused'; report: ImportReport }
  /** No such load to apply: unknown, another partner's, or expired. */
  | { kind: 'gone' };

/** Thrown inside the apply's transaction to roll the whole sheet back. */
class SheetRefused extends Error {
  constructor(readonly report: ImportReport) {
    super('sheet refused');
  }
}

/**
 * Applies a previewed load, all or nothing, once: in one transaction the load is claimed, every
 * event of its sheet applied through the events service (each a savepoint), the result kept and
 * `load.apply` audited with the counts (never the sheet). A second apply of the same load finds
 * it applied and does nothing.
 *
 * @example const done = await applyLoad(deps, consoleAuditContext(c, session, partnerId), { partnerId, loadId, userId });
 */
export async function applyLoad(deps: ManualLoadDeps, ctx: AuditContext, input: { partnerId: string; loadId: string; userId: string }): Promise<ApplyOutcome> {
  try {
    return await deps.db.transact(async (tx): Promise<ApplyOutcome> => {
      const load = await findLoad(deps, tx, input.partnerId, input.loadId);
      if (!load) return { kind: 'gone' };
      if (load.state === 'applied' || !(await claimLoad(deps, tx, input.partnerId, input.loadId, input.userId))) {
        // Applied by another request meanwhile (on PostgreSQL the claim waited for its commit).
        const now = await findLoad(deps, tx, input.partnerId, input.loadId);
        return now?.state === 'applied' ? { kind: 'already', load: now } : { kind: 'gone' };
      }
      const result = await applySheet({ ...deps, db: tx }, load.sheet!, { partnerId: input.partnerId, file: load.fileName });
      if (result.errors.length > 0) throw new SheetRefused(result);
      await completeLoad(deps, tx, load.id, result);
      await deps.audit.record(tx, ctx, { action: LOAD_APPLY_ACTION, partnerId: input.partnerId, target: load.id, after: { file: load.fileName, sha256: load.sha256, ...reportTotals(result) } });
      return { kind: 'applied', load: { ...load, state: 'applied', sheet: null, result, appliedBy: input.userId, appliedAt: deps.clock.now() } };
    });
  } catch (err) {
    if (err instanceof SheetRefused) return { kind: 'refused', report: err.report };
    throw err;
  }
}
