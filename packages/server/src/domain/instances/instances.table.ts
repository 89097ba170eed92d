import { dbTable, integer, text } from '../../db/schema-builders.js';

/**
 * The service processes that are alive: each renews its row while it runs (`InstanceLease`),
 * so work it claimed (an Idempotency-Key being processed) can be taken over as soon as its
 * lease lapses, instead of waiting out a fixed lock after a crash.
 */
export const serviceInstances = dbTable('service_instances', {
  id: text().primaryKey(),
  startedAt: integer().notNull(),
  renewedAt: integer().notNull(),
});
