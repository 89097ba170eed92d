import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { partners } from '../domain/partners/partners.table.js';
import { partnerRow } from '../testing/factories.js';
import { testDb } from '../testing/harness.js';
import { GroupCommit } from './group-commit.js';
import type { Db } from './client.js';

/**
 * Group commit (db/group-commit.ts), grouped on both engines here (the service groups on SQLite
 * only): pieces that arrive while a group is written share the next group's transaction, each
 * in its savepoint.
 */

const names = async (db: Db) => (await db.select({ name: partners.name }).from(partners)).map((r) => r.name).sort();
const insert = (name: string) => async (tx: Db) => {
  await tx.insert(partners).values(partnerRow(`ptr_${name}`, name));
  return name;
};

describe('group commit', () => {
  it('writes what arrives during a group in the next one, in order; a refusal undoes only its own piece', async () => {
    const db = testDb();
    let transactions = 0;
    const group = new GroupCommit({ transact: (work) => (transactions++, db.transact(work)) }, 64, true);
    const order: string[] = [];
    const piece = (name: string) => async (tx: Db) => {
      order.push(name);
      return await insert(name)(tx);
    };
    // The first starts a group after this turn, and holds it open until `open` is called; the
    // four sent meanwhile form the second.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = group.transact(async (tx) => {
      await gate;
      return await piece('a')(tx);
    });
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [
      group.transact(piece('b')),
      group.transact(async (tx) => {
        order.push('refused');
        await insert('half')(tx);
        throw new Error('this buy is refused');
      }),
      group.transact(async (tx) => {
        order.push('c');
        // It sees the piece before it in its group (the same transaction), not the refused one's write.
        expect(await names(tx)).toEqual(['a', 'b']);
        return await insert('c')(tx);
      }),
      group.transact(piece('d')),
    ];
    open();
    expect(await first).toBe('a');
    const settled = await Promise.allSettled(rest);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual(['b', 'this buy is refused', 'c', 'd']);
    expect(order).toEqual(['a', 'b', 'refused', 'c', 'd']);
    expect(await names(db)).toEqual(['a', 'b', 'c', 'd']);
    expect([group.groups, transactions]).toEqual([2, 2]);
  });

  it('tells nobody of a group that did not commit: every piece refused, nothing of it written', async () => {
    const db = testDb();
    // The database fails the group after its pieces ran (as a commit that fails, or a crash before it).
    const failing = { transact: async <T>(work: (tx: Db) => T | Promise<T>) => await db.transact(async (tx) => {
      await work(tx);
      throw new Error('the commit failed');
    }) } as Pick<Db, 'transact'>;
    const group = new GroupCommit(failing, 64, true);
    const results = await Promise.allSettled([group.transact(insert('x')), group.transact(insert('y'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(results.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['the commit failed', 'the commit failed']);
    expect(await names(db)).toEqual([]);
    expect(group.groups).toBe(0);
    // The next piece is written again in a group of its own.
    const healthy = new GroupCommit(db, 64, true);
    expect(await healthy.transact(insert('z'))).toBe('z');
    expect(await db.select().from(partners).where(eq(partners.name, 'z'))).toHaveLength(1);
  });

  it('holds at most its size per group, and groups what arrives in one turn', async () => {
    const db = testDb();
    const group = new GroupCommit(db, 2, true);
    await Promise.all(['p', 'q', 'r', 's', 't'].map((n) => group.transact(insert(n))));
    // Sent in one turn: two per group.
    expect(group.groups).toBe(3);
    expect(await names(db)).toEqual(['p', 'q', 'r', 's', 't']);
  });
});
