import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { keyIdOf, SealedSecretError, SecretBox } from '../lib/crypto.js';
import { PartnersService } from '../domain/partners/partners.service.js';
import { partners } from '../domain/partners/partners.table.js';
import { PayoutAccounts } from '../domain/payouts/payouts.accounts.js';
import { payoutAccounts } from '../domain/payouts/payouts.table.js';
import { createTestApp, TEST_SECRET_KEY, type TestApp } from '../testing/harness.js';
import { resealSecrets } from './reseal-secrets.js';

const NEW = 'rotated-secret-key-0123456789abcdef-0001';
const IBAN = 'ES9121000418450200051332';

/** Two partners (one with a platform secret and a webhook secret in its grace) and a payout account, all sealed under the test app's key. */
async function seed(t: TestApp) {
  const acme = await t.partner('Acme', { platformSecret: 'acme-platform-header-secret' });
  const other = await t.partner('Other');
  const rotated = await t.deps.partners.rotateWebhookSecret(acme.id, 3600);
  const user = await t.db.transact(async (tx) => {
    const u = await t.deps.users.resolve(tx, acme.id, { email: 'seller@example.com' });
    await new PayoutAccounts(t.deps).save(tx, acme.id, u.id, { holderName: 'Ana García', iban: IBAN });
    return u;
  });
  return { acme, other, acmeWebhook: rotated.secret, userPk: user.id };
}

/** Every sealed value in the database, as stored. */
async function sealedValues(t: TestApp): Promise<string[]> {
  const rows = await t.db.select().from(partners).orderBy(partners.id);
  const accounts = await t.db.select().from(payoutAccounts).orderBy(payoutAccounts.id);
  return [
    ...rows.flatMap((r) => [r.webhookSecretSealed, r.previousWebhookSecretSealed, r.platformSecretSealed]),
    ...accounts.map((a) => a.accountSealed),
  ].filter((v): v is string => v !== null);
}

describe('flow: reseal every stored secret under the newest key', () => {
  it('after SECRET_KEY=new,old and the reseal, everything opens with the new key alone; a second run rewrites nothing', async () => {
    const t = createTestApp();
    const s = await seed(t);
    expect((await sealedValues(t)).map((v) => v.split('.')[1])).toEqual(Array(5).fill(keyIdOf(TEST_SECRET_KEY)));

    const rotated = { ...t.deps, box: new SecretBox(`${NEW},${TEST_SECRET_KEY}`) };
    const report = await t.db.transact(async (tx) => await resealSecrets(rotated, tx));
    expect(report).toEqual({ partners: { rows: 2, resealed: 2 }, payout_accounts: { rows: 1, resealed: 1 } });
    expect((await sealedValues(t)).map((v) => v.split('.')[1])).toEqual(Array(5).fill(keyIdOf(NEW)));

    // The old key removed: SECRET_KEY=new.
    const newOnly = new SecretBox(NEW);
    const partnersAfter = new PartnersService({ db: t.db, clock: t.clock, box: newOnly });
    const acme = await partnersAfter.get(s.acme.id);
    expect(partnersAfter.webhookSigningSecrets(acme, t.clock.now())).toEqual([s.acmeWebhook, s.acme.webhookSecret]);
    expect(partnersAfter.platformSecret(acme)).toBe('acme-platform-header-secret');
    expect(partnersAfter.webhookSecret(await partnersAfter.get(s.other.id))).toBe(s.other.webhookSecret);
    expect(await t.db.read(async (tx) => await new PayoutAccounts({ ...t.deps, box: newOnly }).reveal(tx, s.userPk))).toBe(IBAN);
    // …and the old key alone no longer opens any of it.
    expect(() => t.deps.partners.webhookSecret(acme)).toThrow(SealedSecretError);

    const before = await sealedValues(t);
    expect(await t.db.transact(async (tx) => await resealSecrets(rotated, tx))).toEqual({ partners: { rows: 2, resealed: 0 }, payout_accounts: { rows: 1, resealed: 0 } });
    expect(await t.db.transact(async (tx) => await resealSecrets({ ...t.deps, box: newOnly }, tx))).toEqual({ partners: { rows: 2, resealed: 0 }, payout_accounts: { rows: 1, resealed: 0 } });
    expect(await sealedValues(t)).toEqual(before);
  });

  it('rolls the whole run back, naming the row, when a value is under a key SECRET_KEY no longer lists', async () => {
    const t = createTestApp();
    const s = await seed(t);
    const lost = 'a-key-nobody-kept-0123456789abcdef-0002';
    await t.db.update(partners).set({ platformSecretSealed: new SecretBox(lost).seal('x') }).where(eq(partners.id, s.other.id));
    const before = await sealedValues(t);

    const rotated = { ...t.deps, box: new SecretBox(`${NEW},${TEST_SECRET_KEY}`) };
    const run = t.db.transact(async (tx) => await resealSecrets(rotated, tx));
    await expect(run).rejects.toThrow(SealedSecretError);
    await expect(t.db.transact(async (tx) => await resealSecrets(rotated, tx))).rejects.toThrow(
      `partners ${s.other.id} (platform_secret_sealed): The secret was sealed under key ${keyIdOf(lost)}, which SECRET_KEY does not list`,
    );
    expect(await sealedValues(t)).toEqual(before);
  });
});
