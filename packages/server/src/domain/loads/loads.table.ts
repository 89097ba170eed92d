import { dbTable, index, integer, text } from '../../db/schema-builders.js';
import { partnerColumn } from '../../db/columns.js';

/** Where a load is: previewed (may be applied until it expires) or applied (kept to answer a second apply). */
export const LOAD_STATES = ['previewed', 'applied'] as const;

/**
 * The console's manual loads between the preview and the apply: a sheet uploaded, read and
 * checked, kept server-side for a short time so the person can apply exactly what they saw.
 * Only sheets without a bad row are kept. The sheet, the preview and the result are JSON
 * written as plain text (not `jsonb`: the cells are kept exactly as read, any character
 * included). `partnerId` and `createdBy` are plain text, as in the audit log.
 */
export const manualLoads = dbTable(
  'manual_loads',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    /** The console user who uploaded it. */
    createdBy: text().notNull(),
    /** The name the browser gave the file (shown only; its format is told by its content). */
    fileName: text().notNull(),
    format: text({ enum: ['csv', 'xlsx'] }).notNull(),
    /** SHA-256 (hex) of the file as uploaded. */
    sha256: text().notNull(),
    /** Data rows of the sheet. */
    rows: integer().notNull(),
    state: text({ enum: LOAD_STATES }).notNull(),
    /** The sheet as read (headers and cells, JSON); null once applied. */
    sheet: text(),
    /** The preview's report (JSON). */
    preview: text().notNull(),
    /** The apply's report (JSON); null until applied. */
    result: text(),
    appliedBy: text(),
    appliedAt: integer(),
    createdAt: integer().notNull(),
    /** A previewed load can no longer be applied from then; an applied one is deleted after it. */
    expiresAt: integer().notNull(),
  },
  (t) => [index('manual_loads_partner_idx').on(t.partnerId, t.createdAt), index('manual_loads_expires_idx').on(t.expiresAt)],
);
