import { dbTable, integer, text } from '../db/schema-builders.js';

/**
 * When each deployment-wide periodic job may run next (jobs/scheduler.ts, its only writer): a
 * process runs a `once` job only after moving `dueAt` on with a conditional write, so a scan
 * runs once per period however many processes tick. Times are the database's clock.
 */
export const jobRuns = dbTable('job_runs', {
  name: text().primaryKey(),
  /** Epoch milliseconds (database clock) from which the next run may start. */
  dueAt: integer().notNull(),
  /** The process (service_instances id) that ran it last, for operators. */
  ranBy: text().notNull(),
});
