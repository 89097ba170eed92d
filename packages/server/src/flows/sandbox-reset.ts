import type { Kernel } from '../lib/kernel.js';
import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import { liveListingsOfPartner } from '../domain/listings/listings.queries.js';
import type { ListingsService } from '../domain/listings/listings.service.js';
import { partnerById } from '../domain/partners/partners.queries.js';
import { isSandboxPartner } from '../domain/partners/partners.service.js';

/** The audit log's name of a sandbox reset: `after` holds how many listings it ended. */
export const SANDBOX_RESET_ACTION = 'sandbox.reset';

/** The most listings one reset ends (one transaction); a bigger market is reset by pressing again. */
export const SANDBOX_RESET_BATCH = 2_000;

/** What a reset needs: the database, the listings it ends, the audit log. */
export type SandboxResetDeps = Pick<Kernel, 'db'> & { listings: ListingsService; audit: AuditService };

/**
 * Resets the sandbox's market so a developer can try the flows again from the start: every
 * live listing of the sandbox partner ends (TERMINATED, `endReason` `sandbox_reset`), which
 * ends the checkouts holding them (`listing.ended`: the intentions are CANCELLED) and tells
 * the partner as any ended listing does (`listing.updated`, `listing.deleted` webhooks). In
 * one transaction with its audit entry.
 *
 * What it does not undo, by design: paid resales, refunds and payouts (the ledger is
 * append-only, and the sandbox's money history is what a developer reconciles against), the
 * tickets' owners (the partner's platform is their authority: it receives `ticket.update`),
 * events and rules (the partner's own data, changed through the API or the events tab).
 *
 * @returns how many listings ended and whether more remain (over {@link SANDBOX_RESET_BATCH}),
 *   or null when the partner is unknown or not the sandbox (nothing written)
 */
export async function resetSandbox(deps: SandboxResetDeps, ctx: AuditContext, partnerId: string): Promise<{ listingsEnded: number; more: boolean } | null> {
  return await deps.db.transact(async (tx) => {
    const partner = await partnerById(tx, partnerId);
    if (!partner || !isSandboxPartner(partner)) return null;
    const live = await liveListingsOfPartner(tx, partnerId, SANDBOX_RESET_BATCH + 1);
    const now = live.slice(0, SANDBOX_RESET_BATCH);
    for (const listing of now) await deps.listings.end(tx, listing, 'TERMINATED', 'sandbox_reset');
    await deps.audit.record(tx, ctx, { action: SANDBOX_RESET_ACTION, partnerId, target: partnerId, after: { listingsEnded: now.length } });
    return { listingsEnded: now.length, more: live.length > SANDBOX_RESET_BATCH };
  });
}
