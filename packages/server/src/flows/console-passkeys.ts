import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import type { ConsoleSession, ConsoleService, PasskeyRefusal, PasskeySummary } from '../domain/console/console.service.js';
import type { Kernel } from '../lib/kernel.js';

/** What changing a person's passkeys needs. */
export type PasskeyChangeDeps = Pick<Kernel, 'db'> & { consoleAccess: ConsoleService; audit: AuditService };

/**
 * Checks the browser's answer to a registration and keeps the passkey, audited
 * (`passkey.add`, no partner) in the same transaction. A refused answer writes no passkey and
 * no entry, but its challenge stays spent (the transaction commits the claim).
 */
export async function addPasskey(deps: PasskeyChangeDeps, ctx: AuditContext, session: Pick<ConsoleSession, 'id' | 'user'>, input: { challengeId: string; response: string; name: string }): Promise<{ ok: true; passkey: PasskeySummary } | { ok: false; reason: PasskeyRefusal }> {
  return await deps.db.transact(async (tx) => {
    const done = await deps.consoleAccess.passkeys.register(tx, session, input);
    if (done.ok) await deps.audit.record(tx, ctx, { action: 'passkey.add', target: done.passkey.id, after: { name: done.passkey.name } });
    return done;
  });
}

/** Renames one of the person's passkeys, audited (`passkey.rename`); false when it is not theirs. */
export async function renamePasskey(deps: PasskeyChangeDeps, ctx: AuditContext, userPk: string, input: { passkeyId: string; name: string }): Promise<boolean> {
  return await deps.db.transact(async (tx) => {
    const before = await deps.consoleAccess.passkeys.rename(tx, userPk, input.passkeyId, input.name);
    if (!before) return false;
    if (before.name !== input.name) await deps.audit.record(tx, ctx, { action: 'passkey.rename', target: input.passkeyId, before: { name: before.name }, after: { name: input.name } });
    return true;
  });
}

/** Removes one of the person's passkeys and ends the sessions it signed in, audited (`passkey.remove`); false when it is not theirs. */
export async function removePasskey(deps: PasskeyChangeDeps, ctx: AuditContext, userPk: string, passkeyId: string): Promise<boolean> {
  return await deps.db.transact(async (tx) => {
    const before = await deps.consoleAccess.passkeys.remove(tx, userPk, passkeyId);
    if (!before) return false;
    await deps.audit.record(tx, ctx, { action: 'passkey.remove', target: passkeyId, before: { name: before.name } });
    return true;
  });
}
