import { partnerRow } from '../testing/factories.js';
import { describe, expect, it } from 'vitest';
import { partners } from '../domain/partners/partners.table.js';
import { testDb } from '../testing/harness.js';
import { tempDir } from '../testing/temp-dir.js';
import { createDb } from './client.js';

/**
 * SQLite only: the transaction queue over one better-sqlite3 connection (db/transaction.ts),
 * the embedded default's concurrency. PostgreSQL's transactions are separate connections of a
 * pool, checked by db/postgres.pg.test.ts; here one connection is shared by every caller, so
 * the queue is what keeps their statements apart.
 */

const ids = async (db: ReturnType<typeof testDb>) => (await db.read((tx) => tx.select({ id: partners.id }).from(partners))).map((r) => r.id).sort();

describe('SQLite transactions on one connection', () => {
  it('queues a second transaction until the first, which awaits, has committed: it never sees uncommitted writes', async () => {
    const db = testDb();
    const order: string[] = [];
    let releaseA!: () => void;
    const aWrote = new Promise<void>((r) => (releaseA = r));
    const a = db.transact(async (tx) => {
      await tx.insert(partners).values(partnerRow('p_a'));
      order.push('a wrote');
      releaseA();
      await new Promise((r) => setTimeout(r, 30));
      order.push('a commits');
    });
    await aWrote;
    let seenByB: string[] = [];
    const b = db.transact(async (tx) => {
      order.push('b starts');
      seenByB = (await tx.select({ id: partners.id }).from(partners)).map((r) => r.id);
      await tx.insert(partners).values(partnerRow('p_b'));
    });
    // A read asked for meanwhile waits its turn too.
    const read = db.read((tx) => tx.select({ id: partners.id }).from(partners)).then((rows) => rows.map((r) => r.id).sort());
    await Promise.all([a, b]);
    expect(order).toEqual(['a wrote', 'a commits', 'b starts']);
    expect(seenByB).toEqual(['p_a']);
    expect(await read).toEqual(['p_a', 'p_b']);
  });

  it('rolls the whole transaction back when its callback throws after an await, and frees the queue', async () => {
    const db = testDb();
    await expect(
      db.transact(async (tx) => {
        await tx.insert(partners).values(partnerRow('p_gone'));
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await ids(db)).toEqual([]);
    await db.transact(async (tx) => void (await tx.insert(partners).values(partnerRow('p_next'))));
    expect(await ids(db)).toEqual(['p_next']);
  });

  it('runs tx.transact as a savepoint: its failure undoes only itself', async () => {
    const db = testDb();
    await db.transact(async (tx) => {
      await tx.insert(partners).values(partnerRow('p_outer'));
      await expect(
        tx.transact(async (inner) => {
          await inner.insert(partners).values(partnerRow('p_inner'));
          throw new Error('inner refused');
        }),
      ).rejects.toThrow('inner refused');
      await tx.transact(async (inner) => void (await inner.insert(partners).values(partnerRow('p_kept'))));
    });
    expect(await ids(db)).toEqual(['p_kept', 'p_outer']);
  });

  it('refuses a synchronous transaction started on the connection while an async one is open (it would silently join it)', async () => {
    const db = testDb();
    let inside: unknown;
    await db.transact(async (tx) => {
      await tx.insert(partners).values(partnerRow('p_async'));
      try {
        db.transaction((sync) => sync.insert(partners).values(partnerRow('p_sync')).run());
      } catch (err) {
        inside = err;
      }
    });
    expect(String(inside)).toMatch(/synchronous transaction was started while an async transaction is open/);
    expect(await ids(db)).toEqual(['p_async']);
  });

  it('opens a file database with WAL and durable commits (synchronous FULL), foreign keys on', () => {
    const dir = tempDir('resale-durable');
    const db = createDb(`${dir}/durable.sqlite`);
    expect(db.$client.pragma('journal_mode', { simple: true })).toBe('wal');
    // 2 = FULL: every commit is flushed before it is acknowledged.
    expect(db.$client.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.$client.pragma('foreign_keys', { simple: true })).toBe(1);
    db.$client.close();
  });
});
