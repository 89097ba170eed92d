import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { refusal, sqlExec, sqlRows } from '../../testing/sql.js';
import { auditChange, isSecretField, redact, REDACTED, type AuditContext } from './audit.service.js';
import { auditLog } from './audit.table.js';


const TOKEN: AuditContext = { actor: { kind: 'operator_token' }, clientAddress: '203.0.113.7', requestId: 'req_1' };

describe('redact and auditChange', () => {
  it('hides every field whose name ends in a secret’s word, at any depth, and nothing else', () => {
    for (const name of ['secret', 'webhookSecret', 'platformSecret', 'password', 'token', 'keys', 'key', 'privateKey', 'codeHash', 'iban', 'accountNumber', 'settings.platformSecret']) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of ['oneTimeTokenTtlSeconds', 'platformSecretSet', 'keyboard', 'name', 'settings.webhookUrl', 'graceSeconds', 'kind']) expect(isSecretField(name), name).toBe(false);
    expect(redact({ name: 'Acme', webhookSecret: 'whsec_x', nested: [{ apiKey: 'sk_1', platformSecret: null }], settings: { oneTimeTokenTtlSeconds: 300 } })).toEqual({
      name: 'Acme',
      webhookSecret: REDACTED,
      nested: [{ apiKey: REDACTED, platformSecret: null }],
      settings: { oneTimeTokenTtlSeconds: 300 },
    });
  });

  it('keeps only the fields that differ, as dotted paths, a missing side as null, a secret as changed', () => {
    expect(auditChange({ settings: { a: 1, b: { c: 2 } }, name: 'x' }, { settings: { a: 1, b: { c: 3 } }, name: 'x', added: [1] })).toEqual({
      before: { 'settings.b.c': 2, added: null },
      after: { 'settings.b.c': 3, added: [1] },
    });
    expect(auditChange({ platformSecret: 'old-secret' }, { platformSecret: 'new-secret' })).toEqual({ before: { platformSecret: REDACTED }, after: { platformSecret: REDACTED } });
    expect(auditChange({ a: 1 }, { a: 1 })).toEqual({ before: {}, after: {} });
  });
});

describe('the audit log', () => {
  it('records the actor, the request and the change, redacting again what it is given', async () => {
    const t = createTestApp();
    const row = await t.db.transact(async (tx) => await t.deps.audit.record(tx, TOKEN, { action: 'partner.update', partnerId: 'ptr_1', target: 'ptr_1', before: { token: 'abc-secret-value' }, after: { name: 'B' } }));
    expect(row).toMatchObject({ actorKind: 'operator_token', actorId: null, action: 'partner.update', before: { token: REDACTED }, after: { name: 'B' }, clientAddress: '203.0.113.7', requestId: 'req_1', at: t.clock.now() });
    const stored = await t.db.select().from(auditLog);
    expect(stored).toEqual([row]);
    expect(JSON.stringify(await sqlRows(t.db, 'select * from audit_log'))).not.toContain('abc-secret-value');
  });

  it('is append-only on this engine: the database refuses UPDATE and DELETE, whoever asks', async () => {
    const t = createTestApp();
    const row = await t.db.transact(async (tx) => await t.deps.audit.record(tx, TOKEN, { action: 'partner.create', partnerId: 'ptr_1' }));
    expect(await refusal(t.db.transact(async (tx) => await tx.update(auditLog).set({ action: 'nothing.happened' }).where(eq(auditLog.id, row.id))))).toMatch(/audit_log is append-only/);
    expect(await refusal(t.db.transact(async (tx) => await tx.delete(auditLog).where(eq(auditLog.id, row.id))))).toMatch(/audit_log is append-only/);
    expect(await refusal(sqlExec(t.db, 'update audit_log set partner_id = null'))).toMatch(/audit_log is append-only/);
    expect(await refusal(sqlExec(t.db, 'delete from audit_log'))).toMatch(/audit_log is append-only/);
    expect(await t.db.select().from(auditLog)).toEqual([row]);
  });

  it('lists newest first by time, a page at a time, and refuses a cursor that is no entry', async () => {
    const t = createTestApp();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      // Two entries per instant: the id orders them within it.
      if (i % 2 === 0) t.clock.advance(1000);
      ids.push((await t.db.transact(async (tx) => await t.deps.audit.record(tx, TOKEN, { action: `a.${i}` }))).id);
    }
    const page = (startingAfter?: string) => t.db.read(async (tx) => await t.deps.audit.list(tx, { limit: 2, startingAfter }));
    const first = await page();
    const second = await page(first.nextCursor!);
    const third = await page(second.nextCursor!);
    expect([...first.items, ...second.items, ...third.items].map((r) => r.id)).toEqual([...ids].reverse());
    expect(third.nextCursor).toBeNull();
    await expect(page('aud_unknown')).rejects.toMatchObject({ status: 400, code: 'invalid_value' });
  });
});
