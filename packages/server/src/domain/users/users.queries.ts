import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { users } from './users.table.js';

/**
 * Reads of the users module other modules may use. Only `users.service.ts` writes users.
 */
export type UserRow = typeof users.$inferSelect;

/** A user that must exist (its id came from a row that references it). */
export async function userOf(tx: Tx, userPk: string): Promise<UserRow> {
  const row = (await tx.select().from(users).where(eq(users.id, userPk)).limit(1))[0];
  if (!row) throw new Error(`No user ${userPk}`);
  return row;
}

export async function userByPk(tx: Tx, userPk: string): Promise<UserRow | undefined> {
  return (await tx.select().from(users).where(eq(users.id, userPk)).limit(1))[0];
}

/** The user of a partner with this e-mail (stored lowercased: pass it lowercased), or undefined. */
export async function userByEmail(tx: Tx, partnerId: string, email: string): Promise<UserRow | undefined> {
  return (await tx.select().from(users).where(and(eq(users.partnerId, partnerId), eq(users.email, email))).limit(1))[0];
}

/** Several users by primary key, keyed by it. */
export async function usersByPks(tx: Tx, userPks: readonly string[]): Promise<Map<string, UserRow>> {
  if (userPks.length === 0) return new Map();
  return new Map((await tx.select().from(users).where(inArray(users.id, [...new Set(userPks)]))).map((u) => [u.id, u]));
}

/**
 * How the partner knows this user, as webhooks and operator reports name them: the partner's
 * user id, else the e-mail, else the phone (the service's own id only for a user with none).
 */
export function partnerUserId(user: UserRow): string {
  return user.externalId ?? user.email ?? user.phone ?? user.id;
}
