import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ENGINE } from './engine.js';
import { testDb } from '../testing/harness.js';
import { partners } from '../modules/partners/partners.table.js';
import { affected } from './affected.js';
import { selectRows } from './dialect.js';
import { sql } from 'drizzle-orm';

/**
 * The transaction handle on a real PostgreSQL server (the `server-pg` project): the same
 * guarantees db/transaction.test.ts checks on SQLite, through a pool.
 */

const row = (id: string, name = id) => ({ id, name, settings: {} as never, webhookSecretSealed: 'x', platformSecretSealed: null, createdAt: 1, updatedAt: 1 });

describe('PostgreSQL transactions', () => {
  it('runs on PostgreSQL', () => {
    expect(ENGINE).toBe('postgres');
  });

  it('keeps two concurrent transactions that await apart: neither sees the other\'s uncommitted writes', async () => {
    const db = testDb();
    let releaseA!: () => void;
    const aWrote = new Promise<void>((r) => (releaseA = r));
    let seenByB: string[] = [];
    const a = db.transact(async (tx) => {
      await tx.insert(partners).values(row('p_a'));
      releaseA();
      await new Promise((r) => setTimeout(r, 50));
      return (await tx.select({ id: partners.id }).from(partners)).map((r) => r.id);
    });
    await aWrote;
    const b = db.transact(async (tx) => {
      seenByB = (await tx.select({ id: partners.id }).from(partners)).map((r) => r.id);
      await tx.insert(partners).values(row('p_b'));
    });
    await b;
    // READ COMMITTED: A sees B's row once B has committed, and its own uncommitted one.
    expect((await a).sort()).toEqual(['p_a', 'p_b']);
    expect(seenByB).toEqual([]);
    expect((await db.read((tx) => tx.select({ id: partners.id }).from(partners).orderBy(partners.id))).map((r) => r.id)).toEqual(['p_a', 'p_b']);
  });

  it('rolls everything back when the callback throws after an await', async () => {
    const db = testDb();
    await expect(
      db.transact(async (tx) => {
        await tx.insert(partners).values(row('p_1'));
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('after the await');
      }),
    ).rejects.toThrow('after the await');
    expect(await db.read((tx) => tx.select().from(partners))).toEqual([]);
  });

  it('runs tx.transact as a savepoint (its failure undoes only itself), counts affected rows, and maps bigint, jsonb and boolean values', async () => {
    const db = testDb();
    const names = await db.transact(async (tx) => {
      await tx.insert(partners).values({ ...row('p_1'), settings: { allowedOrigins: ['https://a.example'] } as never, createdAt: 1_780_000_000_000 });
      await expect(
        tx.transact(async (sp) => {
          await sp.update(partners).set({ name: 'changed' }).where(eq(partners.id, 'p_1'));
          throw new Error('undo me');
        }),
      ).rejects.toThrow('undo me');
      const changed = affected(await tx.update(partners).set({ updatedAt: 2 }).where(eq(partners.id, 'p_1')));
      return { changed, rows: await tx.select().from(partners) };
    });
    expect(names.changed).toBe(1);
    expect(names.rows).toEqual([expect.objectContaining({ id: 'p_1', name: 'p_1', createdAt: 1_780_000_000_000, updatedAt: 2, settings: { allowedOrigins: ['https://a.example'] } })]);
    const [n] = await db.read((tx) => selectRows<{ n: number }>(tx, sql`select count(*) as n from ${partners}`));
    expect(n).toEqual({ n: 1 });
  });
});
