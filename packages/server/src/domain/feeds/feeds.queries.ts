import { and, desc, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { feedRuns } from './feeds.table.js';

/** A poll of a feed as stored (see feeds.table.ts). */
export type FeedRunRow = typeof feedRuns.$inferSelect;

/** The partner's latest runs of both feeds, newest first (the operator API's list and the console's feeds panel). */
export async function latestFeedRuns(tx: Tx, partnerId: string, limit: number): Promise<FeedRunRow[]> {
  return await tx.select().from(feedRuns).where(eq(feedRuns.partnerId, partnerId)).orderBy(desc(feedRuns.startedAt), desc(feedRuns.id)).limit(limit);
}

/** The partner's last run of one feed, or null when it never ran. */
export async function lastFeedRun(tx: Tx, partnerId: string, feed: FeedRunRow['feed']): Promise<FeedRunRow | null> {
  const [row] = await tx.select().from(feedRuns).where(and(eq(feedRuns.partnerId, partnerId), eq(feedRuns.feed, feed))).orderBy(desc(feedRuns.startedAt), desc(feedRuns.id)).limit(1);
  return row ?? null;
}
