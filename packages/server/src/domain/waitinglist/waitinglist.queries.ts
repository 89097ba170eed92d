import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { waitinglistOffers, waitinglistSettings, type WaitinglistOfferRow, type WaitinglistSettingsRow } from './waitinglist.table.js';

/**
 * Reads of the waiting list other modules and flows may use. Only `waitinglist.service.ts`
 * writes its tables. Lock-free reads: what must not change between the read and a write is
 * read again by the service under the show's lock.
 */

export type { WaitinglistOfferRow, WaitinglistSettingsRow };

/**
 * A show's settings row, or undefined when the organiser never set any (the list is off). One
 * primary-key read: what a publish of a show without the feature pays.
 */
export async function waitingListSettingsOf(tx: Tx, showPk: string): Promise<WaitinglistSettingsRow | undefined> {
  return (await tx.select().from(waitinglistSettings).where(eq(waitinglistSettings.showPk, showPk)).limit(1))[0];
}

/** The offer a buy intention holds for the waiting list, whatever its state, or undefined for an ordinary checkout. */
export async function offerOfIntention(tx: Tx, intentionId: string): Promise<WaitinglistOfferRow | undefined> {
  return (await tx.select().from(waitinglistOffers).where(eq(waitinglistOffers.intentionId, intentionId)).limit(1))[0];
}

/** The LIVE offer of an entry, or undefined. */
export async function liveOfferOfEntry(tx: Tx, entryId: string): Promise<WaitinglistOfferRow | undefined> {
  return (await tx
    .select()
    .from(waitinglistOffers)
    .where(and(eq(waitinglistOffers.entryId, entryId), eq(waitinglistOffers.state, 'LIVE')))
    .limit(1))[0];
}
