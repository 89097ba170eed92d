import { lt, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { INSTANCE_LEASE_MS } from './instances.queries.js';
import { serviceInstances } from './instances.table.js';

/** How often a running process renews its lease (a third of its length: two renewals may fail before it lapses). */
export const INSTANCE_RENEW_MS = Math.floor(INSTANCE_LEASE_MS / 3);

/**
 * This process's lease (the `service_instances` table's only writer): an id made at start,
 * registered when the service starts serving (main.ts), renewed by the `instance-lease` job,
 * removed at a clean stop. Leases lapsed for an hour are deleted by whoever renews. Claims
 * name the id (idempotency keys); another process takes a claim over once its lease lapses.
 */
export class InstanceLease {
  /** This process's id, stored with what it claims. */
  readonly id = newId('instance');
  private renewedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: Clock) {}

  /** Renews the lease in `tx` when it was last renewed more than {@link INSTANCE_RENEW_MS} ago, or at once with `force`. */
  async renew(tx: Tx, opts: { force?: boolean } = {}): Promise<void> {
    const now = this.clock.now();
    if (!opts.force && now - this.renewedAt < INSTANCE_RENEW_MS) return;
    await tx
      .insert(serviceInstances)
      .values({ id: this.id, startedAt: now, renewedAt: now })
      .onConflictDoUpdate({ target: serviceInstances.id, set: { renewedAt: now } });
    // Leases of processes gone for an hour: nothing refers to them any more.
    await tx.delete(serviceInstances).where(lt(serviceInstances.renewedAt, now - 60 * 60 * 1000));
    this.renewedAt = now;
  }

  /** Gives the lease up at a clean stop: what this process still holds can be taken over at once. */
  async retire(tx: Tx): Promise<void> {
    await tx.delete(serviceInstances).where(eq(serviceInstances.id, this.id));
    this.renewedAt = Number.NEGATIVE_INFINITY;
  }
}
