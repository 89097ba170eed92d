import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { showInventory } from './marketdata.table.js';

/**
 * Reads of the marketdata module other modules may use. Only the marketdata module writes the
 * show inventory (marketdata.service.ts) and the leads (leads.service.ts, wishlist.job.ts).
 */
export type ShowInventoryRow = typeof showInventory.$inferSelect;

/** The primary sale of a show as the partner reported it; null fields when not reported. */
export interface PrimarySale {
  soldOut: boolean | null;
  soldPercentage: number | null;
}

/** The primary-sale state of a show as the buy side reads it (null before any inventory PUT). */
export function primarySale(tx: Tx, showPk: string): PrimarySale | null {
  return tx.select({ soldOut: showInventory.soldOut, soldPercentage: showInventory.soldPercentage }).from(showInventory).where(eq(showInventory.showPk, showPk)).get() ?? null;
}

/**
 * {@link primarySale} prepared once on `db`, for a hot path (the buy access layer's snapshots):
 * no SQL is built per call, and it may be called inside a transaction of `db`.
 *
 * @example const primary = primarySaleReader(db); primary(showPk); // { soldOut: true, soldPercentage: null }
 */
export function primarySaleReader(db: Db): (showPk: string) => PrimarySale | null {
  const statement = db
    .select({ soldOut: showInventory.soldOut, soldPercentage: showInventory.soldPercentage })
    .from(showInventory)
    .where(eq(showInventory.showPk, sql.placeholder('showPk')))
    .prepare();
  return (showPk) => statement.get({ showPk }) ?? null;
}
