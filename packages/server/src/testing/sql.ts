import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { selectRows } from '../db/dialect.js';

/**
 * Rows of a query written as SQL, read from a test's database on either engine: SQL text
 * (no parameters), or drizzle's `sql` template when it needs values. For assertions about
 * stored rows; keep the SQL to what SQLite and PostgreSQL both run.
 *
 * @example expect((await sqlRows<{ n: number }>(t.db, 'select count(*) as n from tickets'))[0]!.n).toBe(3);
 */
export async function sqlRows<T extends Record<string, unknown> = Record<string, any>>(db: Db, query: string | SQL): Promise<T[]> {
  const q = typeof query === 'string' ? sql.raw(query) : query;
  return db.read((tx) => selectRows<T>(tx, q));
}
