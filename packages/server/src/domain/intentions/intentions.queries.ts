import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { buyIntentions } from './intentions.table.js';

/**
 * Reads of the intentions module other modules may use. Only `intentions.service.ts` writes
 * buy intentions.
 */
export type IntentionRow = typeof buyIntentions.$inferSelect;

/** A buy intention by id, of any partner (the id came from a row of ours). */
export async function intentionById(tx: Tx, intentionId: string): Promise<IntentionRow | undefined> {
  return (await tx.select().from(buyIntentions).where(eq(buyIntentions.id, intentionId)).limit(1))[0];
}

/** The ids of the PAID intentions of a show (whose buyers a cancellation refunds). */
export async function paidIntentionIdsOfShow(tx: Tx, showPk: string): Promise<string[]> {
  return (await tx
    .select({ id: buyIntentions.id })
    .from(buyIntentions)
    .where(and(eq(buyIntentions.showPk, showPk), eq(buyIntentions.state, 'PAID'))))
    .map((r) => r.id);
}

/** Of these intentions, the ids of those no longer PENDING (paid, expired, failed or cancelled). */
export async function endedIntentionIds(tx: Tx, intentionIds: readonly string[]): Promise<Set<string>> {
  if (intentionIds.length === 0) return new Set();
  const rows = await tx.select({ id: buyIntentions.id }).from(buyIntentions).where(and(inArray(buyIntentions.id, [...intentionIds]), ne(buyIntentions.state, 'PENDING')));
  return new Set(rows.map((r) => r.id));
}
