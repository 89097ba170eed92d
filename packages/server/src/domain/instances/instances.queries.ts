import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { serviceInstances } from './instances.table.js';

/** How long a lease lasts without renewal: a process silent for longer is gone (crashed, killed, cut off). */
export const INSTANCE_LEASE_MS = 10_000;

/** Whether the process `id` still holds its lease at `now` (renewed within {@link INSTANCE_LEASE_MS}). */
export async function instanceAlive(tx: Tx, id: string, now: number): Promise<boolean> {
  const row = (await tx.select({ renewedAt: serviceInstances.renewedAt }).from(serviceInstances).where(eq(serviceInstances.id, id)).limit(1))[0];
  return row !== undefined && row.renewedAt > now - INSTANCE_LEASE_MS;
}
