import { dbTable, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { priceTypes, shows, ticketOptions } from '../events/events.table.js';

/**
 * Resale rules per ticket option (and optionally per combination), one row per
 * rule type and scope. `COMBINATION` items are not stored here: they are combinations.
 */
export const rules = dbTable(
  'rules',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    ticketOptionPk: text()
      .notNull()
      .references(() => ticketOptions.id, { onDelete: 'cascade' }),
    priceTypePk: text().references(() => priceTypes.id, { onDelete: 'cascade' }),
    /** `priceTypePk` or '' (SQL treats NULLs as distinct, so uniqueness needs a key). */
    scopeKey: text().notNull(),
    ruleType: text().notNull(),
    rules: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('rules_scope_type_uq').on(t.ticketOptionPk, t.scopeKey, t.ruleType)],
);
