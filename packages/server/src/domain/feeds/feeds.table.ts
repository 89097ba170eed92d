import { dbTable, index, integer, text } from '../../db/schema-builders.js';

/** One poll of a partner's events feed or cancelled feed, kept for operators. */
export const feedRuns = dbTable(
  'feed_runs',
  {
    id: text().primaryKey(),
    partnerId: text().notNull(),
    feed: text({ enum: ['events', 'cancelled'] }).notNull(),
    startedAt: integer().notNull(),
    finishedAt: integer().notNull(),
    ok: integer({ mode: 'boolean' }).notNull(),
    applied: integer().notNull(),
    skipped: integer().notNull(),
    /** Why the feed failed, or the reasons items were skipped (no personal data). */
    problems: text({ mode: 'json' }).$type<string[]>().notNull(),
  },
  (t) => [index('feed_runs_partner_idx').on(t.partnerId, t.startedAt)],
);
