/**
 * How many rows a write changed, whatever the driver: better-sqlite3 answers `changes`,
 * node-postgres `rowCount`. Conditional writes ("only if still PENDING") check it, so this is
 * the one place that knows the driver's name for it.
 *
 * @example if (affected(await tx.update(t).set(v).where(cond)) !== 1) throw conflict();
 */
export function affected(result: { changes: number } | { rowCount: number | null }): number {
  return 'changes' in result ? result.changes : (result.rowCount ?? 0);
}
