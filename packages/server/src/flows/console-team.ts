import type { Lang } from '@resale/shared/lang';
import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import type { ConsoleService } from '../domain/console/console.service.js';
import type { ConsoleRole } from '../domain/console/console.model.js';
import { partnerById } from '../domain/partners/partners.queries.js';
import type { Kernel } from '../lib/kernel.js';

/** What changing a partner's team needs. */
export type TeamDeps = Pick<Kernel, 'db'> & { consoleAccess: ConsoleService; audit: AuditService };

/** What became of a change to a team. */
export type TeamChange = { ok: true } | { ok: false; reason: 'not_found' | 'exists' };

/**
 * Gives `email` a role at the partner and e-mails them the console's address, audited
 * (`team.invite`) in the same transaction. `exists` when they already have a role there.
 */
export async function inviteToTeam(deps: TeamDeps, ctx: AuditContext, input: { partnerId: string; email: string; role: ConsoleRole; consoleUrl: string; lang: Lang }): Promise<TeamChange> {
  const invitedBy = ctx.actor.kind === 'console' ? ctx.actor.userId : null;
  return await deps.db.transact(async (tx) => {
    const partner = await partnerById(tx, input.partnerId);
    if (!partner) return { ok: false, reason: 'not_found' };
    const done = await deps.consoleAccess.invite(tx, { ...input, partnerName: partner.name, invitedBy });
    if (!done.ok) return done;
    await deps.audit.record(tx, ctx, { action: 'team.invite', partnerId: input.partnerId, target: done.membership.id, after: { email: input.email, role: input.role } });
    return { ok: true };
  });
}

/** Changes a membership's role, audited (`team.role.change`). */
export async function changeTeamRole(deps: TeamDeps, ctx: AuditContext, input: { partnerId: string; membershipId: string; role: ConsoleRole }): Promise<TeamChange> {
  return await deps.db.transact(async (tx) => {
    const before = await deps.consoleAccess.membership(tx, input.partnerId, input.membershipId);
    if (!before) return { ok: false, reason: 'not_found' };
    if (before.role === input.role) return { ok: true };
    await deps.consoleAccess.changeRole(tx, input.partnerId, input.membershipId, input.role);
    await deps.audit.record(tx, ctx, { action: 'team.role.change', partnerId: input.partnerId, target: input.membershipId, before: { email: before.email, role: before.role }, after: { email: before.email, role: input.role } });
    return { ok: true };
  });
}

/** Removes a membership (and ends that person's sessions), audited (`team.remove`). */
export async function removeFromTeam(deps: TeamDeps, ctx: AuditContext, input: { partnerId: string; membershipId: string }): Promise<TeamChange> {
  return await deps.db.transact(async (tx) => {
    const before = await deps.consoleAccess.membership(tx, input.partnerId, input.membershipId);
    if (!before) return { ok: false, reason: 'not_found' };
    await deps.consoleAccess.removeMembership(tx, input.partnerId, input.membershipId);
    await deps.audit.record(tx, ctx, { action: 'team.remove', partnerId: input.partnerId, target: input.membershipId, before: { email: before.email, role: before.role } });
    return { ok: true };
  });
}
