import { and, desc, eq, gt, lte } from 'drizzle-orm';
import { affected } from '../../db/affected.js';
import type { Tx } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import type { Kernel } from '../../lib/kernel.js';
import type { ImportReport } from '../events/import/import.js';
import type { CellValue, Sheet } from '../events/import/sheet.read.js';
import { manualLoads } from './loads.table.js';

/**
 * The console's manual loads kept between the preview and the apply (table `manual_loads`,
 * written by this module only). A load is staged when its preview found no bad row, may be
 * applied once while it is fresh ({@link LOAD_PREVIEW_MS}), and is claimed in the transaction
 * that applies it, so applying the same preview twice, even at the same moment from two
 * processes, applies it once. Applied loads keep their result (not their sheet) for
 * {@link LOAD_KEPT_MS} to answer a second apply; expired rows are deleted whenever a new load
 * is staged.
 */

/** How long a preview may be applied after the upload. */
export const LOAD_PREVIEW_MS = 30 * 60_000;

/** How long an applied load's result is kept (a second apply answers it). */
export const LOAD_KEPT_MS = 24 * 3_600_000;

/** A manual load as the console shows it. */
export interface ManualLoad {
  id: string;
  partnerId: string;
  createdBy: string;
  fileName: string;
  format: Sheet['format'];
  sha256: string;
  rows: number;
  state: 'previewed' | 'applied';
  /** The sheet as read; null once applied. */
  sheet: Sheet | null;
  preview: ImportReport;
  result: ImportReport | null;
  appliedBy: string | null;
  appliedAt: number | null;
  createdAt: number;
  expiresAt: number;
}

/** A load in a list: no sheet, no reports. */
export type ManualLoadItem = Pick<ManualLoad, 'id' | 'fileName' | 'rows' | 'state' | 'createdAt' | 'appliedAt' | 'expiresAt'>;

type StoredCell = string | number | boolean | null | { d: string };

/** The sheet as JSON: cells as read, a date as `{ d: <ISO 8601> }`. */
function encodeSheet(sheet: Sheet): string {
  return JSON.stringify({ ...sheet, rows: sheet.rows.map((r) => ({ row: r.row, cells: r.cells.map((c): StoredCell => (c instanceof Date ? { d: c.toISOString() } : c)) })) });
}

function decodeSheet(text: string): Sheet {
  const stored = JSON.parse(text) as Omit<Sheet, 'rows'> & { rows: { row: number; cells: StoredCell[] }[] };
  return { ...stored, rows: stored.rows.map((r) => ({ row: r.row, cells: r.cells.map((c): CellValue => (c !== null && typeof c === 'object' ? new Date(c.d) : c)) })) };
}

function toLoad(row: typeof manualLoads.$inferSelect): ManualLoad {
  return {
    ...row,
    sheet: row.sheet === null ? null : decodeSheet(row.sheet),
    preview: JSON.parse(row.preview) as ImportReport,
    result: row.result === null ? null : (JSON.parse(row.result) as ImportReport),
  };
}

/**
 * Keeps a previewed sheet for {@link LOAD_PREVIEW_MS}, and deletes every expired load.
 *
 * @example const load = await stageLoad(deps, tx, { partnerId, createdBy: userId, fileName: 'events.csv', sha256, sheet, preview });
 */
export async function stageLoad(
  deps: Pick<Kernel, 'clock'>,
  tx: Tx,
  input: { partnerId: string; createdBy: string; fileName: string; sha256: string; sheet: Sheet; preview: ImportReport },
): Promise<ManualLoad> {
  const now = deps.clock.now();
  await tx.delete(manualLoads).where(lte(manualLoads.expiresAt, now));
  const row = {
    id: newId('manualLoad'),
    partnerId: input.partnerId,
    createdBy: input.createdBy,
    fileName: input.fileName,
    format: input.sheet.format,
    sha256: input.sha256,
    rows: input.sheet.rows.length,
    state: 'previewed' as const,
    sheet: encodeSheet(input.sheet),
    preview: JSON.stringify(input.preview),
    result: null,
    appliedBy: null,
    appliedAt: null,
    createdAt: now,
    expiresAt: now + LOAD_PREVIEW_MS,
  };
  await tx.insert(manualLoads).values(row);
  return toLoad(row);
}

/** The partner's load `id`, or null when there is none (unknown, another partner's, or expired). */
export async function findLoad(deps: Pick<Kernel, 'clock'>, tx: Tx, partnerId: string, id: string): Promise<ManualLoad | null> {
  const row = (
    await tx
      .select()
      .from(manualLoads)
      .where(and(eq(manualLoads.id, id), eq(manualLoads.partnerId, partnerId), gt(manualLoads.expiresAt, deps.clock.now())))
      .limit(1)
  )[0];
  return row ? toLoad(row) : null;
}

/** The partner's loads that have not expired, newest first. */
export async function recentLoads(deps: Pick<Kernel, 'clock'>, tx: Tx, partnerId: string, limit = 10): Promise<ManualLoadItem[]> {
  return await tx
    .select({ id: manualLoads.id, fileName: manualLoads.fileName, rows: manualLoads.rows, state: manualLoads.state, createdAt: manualLoads.createdAt, appliedAt: manualLoads.appliedAt, expiresAt: manualLoads.expiresAt })
    .from(manualLoads)
    .where(and(eq(manualLoads.partnerId, partnerId), gt(manualLoads.expiresAt, deps.clock.now())))
    .orderBy(desc(manualLoads.createdAt), desc(manualLoads.id))
    .limit(limit);
}

/**
 * Takes a previewed, fresh load for applying, in the transaction that applies it: one
 * conditional update, so of two applies of the same load only one gets it (on PostgreSQL
 * the second waits for the first's transaction, then finds the load applied). False when the
 * load is not there to apply (applied already, expired, unknown).
 */
export async function claimLoad(deps: Pick<Kernel, 'clock'>, tx: Tx, partnerId: string, id: string, userId: string): Promise<boolean> {
  const now = deps.clock.now();
  const claimed = await tx
    .update(manualLoads)
    .set({ state: 'applied', appliedBy: userId, appliedAt: now })
    .where(and(eq(manualLoads.id, id), eq(manualLoads.partnerId, partnerId), eq(manualLoads.state, 'previewed'), gt(manualLoads.expiresAt, now)));
  return affected(claimed) === 1;
}

/** Records a claimed load's result; its sheet is no longer kept, its result for {@link LOAD_KEPT_MS}. */
export async function completeLoad(deps: Pick<Kernel, 'clock'>, tx: Tx, id: string, result: ImportReport): Promise<void> {
  await tx
    .update(manualLoads)
    .set({ result: JSON.stringify(result), sheet: null, expiresAt: deps.clock.now() + LOAD_KEPT_MS })
    .where(eq(manualLoads.id, id));
}
