import { dbTable, integer, real, text } from '../../db/schema-builders.js';
import { partnerColumn } from '../../db/columns.js';
import { shows } from '../events/events.table.js';

/** One inventory item: a ticket option (and price type) of the show. */
export interface InventoryItem {
  ticketOptionId: string;
  priceTypeId?: string | undefined;
  capacity?: number | undefined;
  releasedTickets?: number | undefined;
  reservedSpace?: number | undefined;
  soldOut?: boolean | undefined;
  soldPercentage?: number | undefined;
}

/** The primary-sale inventory of a show, as the partner reports it. */
export const showInventory = dbTable('show_inventory', {
  showPk: text()
    .primaryKey()
    .references(() => shows.id, { onDelete: 'cascade' }),
  partnerId: partnerColumn(),
  capacity: integer(),
  releasedTickets: integer(),
  reservedSpace: integer(),
  soldOut: integer({ mode: 'boolean' }),
  soldPercentage: real(),
  items: text({ mode: 'json' }).$type<InventoryItem[]>().notNull(),
  updatedAt: integer().notNull(),
});
