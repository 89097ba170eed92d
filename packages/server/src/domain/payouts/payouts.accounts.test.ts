import { sqlRows } from '../../testing/sql.js';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { PayoutAccounts } from './payouts.accounts.js';

describe('payout accounts', () => {
  it('stores an IBAN sealed, shows only its last four characters, and replaces it', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'seller@example.com' }));
    const accounts = new PayoutAccounts(t.deps);
    expect(await accounts.view(t.db, user.id)).toBeNull();
    const saved = await t.db.transact(async (tx) => await accounts.save(tx, p.id, user.id, { holderName: '  Ana   García ', iban: 'es91 2100 0418 4502 0005 1332' }));
    expect(saved).toEqual({ holderName: 'Ana García', accountHint: '1332' });
    const raw = JSON.stringify((await sqlRows(t.db, 'select * from payout_accounts')));
    expect(raw).not.toContain('ES9121000418450200051332');
    expect(raw).not.toContain('2100 0418');
    expect(await accounts.reveal(t.db, user.id)).toBe('ES9121000418450200051332');
    await t.db.transact(async (tx) => await accounts.save(tx, p.id, user.id, { holderName: 'Ana García', iban: 'DE89370400440532013000' }));
    expect(await accounts.view(t.db, user.id)).toEqual({ holderName: 'Ana García', accountHint: '3000' });
    expect(((await sqlRows(t.db, 'select count(*) n from payout_accounts'))[0] as { n: number }).n).toBe(1);
  });

  it('refuses an invalid IBAN or holder name, naming the field', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'seller@example.com' }));
    const accounts = new PayoutAccounts(t.deps);
    await expect(accounts.save(t.db, p.id, user.id, { holderName: 'Ana', iban: 'ES91 2100 0418 4502 0005 1333' })).rejects.toThrow(/valid IBAN/);
    await expect(accounts.save(t.db, p.id, user.id, { holderName: ' ', iban: 'ES9121000418450200051332' })).rejects.toThrow(/holder/);
    for (const holderName of ['-1', '99999999999999999999', '<script>alert(1)</script>', 'https://evil.example/', 'Ana\u0007García']) {
      await expect(accounts.save(t.db, p.id, user.id, { holderName, iban: 'ES9121000418450200051332' })).rejects.toThrow(/holder/);
    }
    expect(await accounts.view(t.db, user.id)).toBeNull();
    // Names in any script, with the punctuation of names and companies.
    for (const holderName of ['Łukasz Żółć', "Seán O'Brien-Núñez", 'Müller & Söhne GmbH', '山田 太郎', 'J. P. Smith (Jr.)']) {
      expect((await t.db.transact(async (tx) => await accounts.save(tx, p.id, user.id, { holderName, iban: 'ES9121000418450200051332' }))).holderName).toBe(holderName);
    }
  });
});
