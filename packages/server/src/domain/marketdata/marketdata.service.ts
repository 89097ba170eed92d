import { inOrder } from '../../lib/in-order.js';
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { priceTypeOfShow, ticketOptionOfShow } from '../events/events.queries.js';
import { showInventory, type InventoryItem } from './marketdata.table.js';
import type { Kernel } from '../../lib/kernel.js';
import type { EventsService } from '../events/events.service.js';

export { primarySale } from './marketdata.queries.js';

export interface InventoryCounts {
  capacity?: number | null | undefined;
  releasedTickets?: number | null | undefined;
  reservedSpace?: number | null | undefined;
  soldOut?: boolean | null | undefined;
  soldPercentage?: number | null | undefined;
}

/**
 * From this share sold in the primary sale (`soldPercentage`), a show counts as (nearly) sold out.
 * The spec is silent; 90 % is where a partner's own page typically says "last tickets".
 */
export const PRIMARY_SCARCE_PERCENTAGE = 90;

/**
 * Whether the show's primary sale is sold out or nearly (the partner reported `soldOut: true`,
 * or `soldPercentage` ≥ {@link PRIMARY_SCARCE_PERCENTAGE}): resale is then the official way to
 * get tickets, so the buy side makes it prominent (a configured buyBanner is shown, the market
 * page says so). Unknown inventory (no PUT yet, or null fields) is not scarce.
 *
 * @example isPrimaryScarce({ soldOut: null, soldPercentage: 92.5 }) // true
 */
export function isPrimaryScarce(inv: { soldOut: boolean | null; soldPercentage: number | null } | null | undefined): boolean {
  if (!inv) return false;
  return inv.soldOut === true || (inv.soldPercentage !== null && inv.soldPercentage >= PRIMARY_SCARCE_PERCENTAGE);
}

/**
 * Primary-sale inventory per show. The show-level PUT replaces the fields sent and keeps the
 * others; the details PUT replaces the items (per ticket option, optionally per price type),
 * each checked against the show.
 */
export class MarketDataService {
  constructor(private readonly deps: Pick<Kernel, 'clock'> & { events: EventsService }) {}

  async setInventory(tx: Tx, partnerId: string, eventRef: string, showId: string | undefined, counts: InventoryCounts) {
    const { show } = await this.deps.events.findShow(tx, partnerId, eventRef, showId);
    const current = await this.row(tx, show.id);
    const next = { ...current, ...Object.fromEntries(Object.entries(counts).filter(([, v]) => v !== undefined)) };
    return await this.save(tx, partnerId, show.id, show.showId, next, current?.items ?? []);
  }

  async setDetails(tx: Tx, partnerId: string, eventRef: string, showId: string | undefined, items: InventoryItem[]) {
    const { show } = await this.deps.events.findShow(tx, partnerId, eventRef, showId);
    await inOrder(items, async (item, i) => {
      const option = await ticketOptionOfShow(tx, show.id, item.ticketOptionId);
      if (!option) throw ApiError.field('invalid_value', `items.${i}.ticketOptionId`, `items.${i}.ticketOptionId '${item.ticketOptionId}' is not a ticket option of show '${show.showId}'`);
      if (item.priceTypeId && !(await priceTypeOfShow(tx, show.id, item.priceTypeId))) {
        throw ApiError.field('invalid_value', `items.${i}.priceTypeId`, `items.${i}.priceTypeId '${item.priceTypeId}' is not a price type of show '${show.showId}'`);
      }
    });
    const current = await this.row(tx, show.id);
    return await this.save(tx, partnerId, show.id, show.showId, current ?? {}, items);
  }

  async get(tx: Tx, partnerId: string, eventRef: string, showId: string | undefined) {
    const { show } = await this.deps.events.findShow(tx, partnerId, eventRef, showId);
    const row = await this.row(tx, show.id);
    if (!row) throw ApiError.notFound('inventory of show', show.showId);
    return toApi(show.showId, row);
  }

  private async row(tx: Tx, showPk: string) {
    return (await tx.select().from(showInventory).where(eq(showInventory.showPk, showPk)).limit(1))[0];
  }

  private async save(tx: Tx, partnerId: string, showPk: string, showId: string, counts: InventoryCounts, items: InventoryItem[]) {
    const values = {
      capacity: counts.capacity ?? null,
      releasedTickets: counts.releasedTickets ?? null,
      reservedSpace: counts.reservedSpace ?? null,
      soldOut: counts.soldOut ?? null,
      soldPercentage: counts.soldPercentage ?? null,
      items,
      updatedAt: this.deps.clock.now(),
    };
    const row = (await tx.insert(showInventory).values({ showPk, partnerId, ...values }).onConflictDoUpdate({ target: showInventory.showPk, set: values }).returning())[0]!;
    return toApi(showId, row);
  }
}

function toApi(showId: string, row: typeof showInventory.$inferSelect) {
  return {
    showId,
    capacity: row.capacity,
    releasedTickets: row.releasedTickets,
    reservedSpace: row.reservedSpace,
    soldOut: row.soldOut,
    soldPercentage: row.soldPercentage,
    items: row.items,
    updatedAt: toIso(row.updatedAt),
  };
}
