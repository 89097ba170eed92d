import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { leads, type LeadRow } from './leads.table.js';

/** The lead of one buyer identity (`buyerKey`, see leads.service.ts) for a show, whatever its kind, or null. */
export async function leadOfBuyer(tx: Tx, partnerId: string, showPk: string, buyerKey: string): Promise<LeadRow | null> {
  return (await tx.select().from(leads).where(and(eq(leads.partnerId, partnerId), eq(leads.showPk, showPk), eq(leads.buyerKey, buyerKey))).limit(1))[0] ?? null;
}
