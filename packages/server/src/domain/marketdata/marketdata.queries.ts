import { and, count, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { perConnection, prepared } from '../../db/statements.js';
import { showInventory } from './marketdata.table.js';
import { leads } from './leads.table.js';

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
export async function primarySale(tx: Tx, showPk: string): Promise<PrimarySale | null> {
  return (await tx.select({ soldOut: showInventory.soldOut, soldPercentage: showInventory.soldPercentage }).from(showInventory).where(eq(showInventory.showPk, showPk)).limit(1))[0] ?? null;
}

/**
 * {@link primarySale} prepared once per connection, for a hot path (the buy access layer's
 * snapshots): no SQL is built per call; it runs on the connection of the handle given.
 *
 * @example await primarySaleReader(tx)(showPk); // { soldOut: true, soldPercentage: null }
 */
export const primarySaleReader = perConnection((db: Tx): ((showPk: string) => Promise<PrimarySale | null>) => {
  const statement = prepared(db
    .select({ soldOut: showInventory.soldOut, soldPercentage: showInventory.soldPercentage })
    .from(showInventory)
    .where(eq(showInventory.showPk, sql.placeholder('showPk'))), 'marketdata_statement');
  return async (showPk) => (await statement.execute({ showPk }))[0] ?? null;
});

/**
 * How many leads each show of a partner's event has (a show with none is absent), by the
 * leads' identity index (partner, event, show …): the console's view of a show's demand.
 */
export async function leadCountsOfEvent(tx: Tx, partnerId: string, eventPk: string): Promise<Map<string, number>> {
  const rows = await tx
    .select({ showPk: leads.showPk, n: count() })
    .from(leads)
    .where(and(eq(leads.partnerId, partnerId), eq(leads.eventPk, eventPk)))
    .groupBy(leads.showPk);
  return new Map(rows.map((r) => [r.showPk, Number(r.n)]));
}
