import { eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { users } from './users.table.js';

/**
 * Reads of the users module other modules may use. Only `users.service.ts` writes users.
 */
export type UserRow = typeof users.$inferSelect;

/** A user that must exist (its id came from a row that references it). */
export function userOf(tx: Tx, userPk: string): UserRow {
  const row = tx.select().from(users).where(eq(users.id, userPk)).get();
  if (!row) throw new Error(`No user ${userPk}`);
  return row;
}

export function userByPk(tx: Tx, userPk: string): UserRow | undefined {
  return tx.select().from(users).where(eq(users.id, userPk)).get();
}

/** Several users by primary key, keyed by it. */
export function usersByPks(tx: Tx, userPks: readonly string[]): Map<string, UserRow> {
  if (userPks.length === 0) return new Map();
  return new Map(tx.select().from(users).where(inArray(users.id, [...new Set(userPks)])).all().map((u) => [u.id, u]));
}
