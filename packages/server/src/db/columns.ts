import { integer, text } from 'drizzle-orm/sqlite-core';

/**
 * Shared column mixins.
 *
 * Naming: `id` is the service's own prefixed id; `<x>Pk` columns reference another
 * table's service id (`showPk` -> shows.id); plain `showId`, `ticketId`, `priceTypeId`
 * columns hold the partner's ids exactly as sent. Instants are UTC epoch milliseconds.
 */
export const timestamps = {
  createdAt: integer().notNull(),
  updatedAt: integer().notNull(),
};

/** Every tenant-owned row carries its partner; every query filters on it. */
export const partnerColumn = () => text().notNull();
