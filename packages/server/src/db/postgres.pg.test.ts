import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ENGINE } from './engine.js';
import { createTestApp, OPERATOR_TOKEN, testDb } from '../testing/harness.js';
import { eventBody, showBody, withEvent, partnerRow } from '../testing/factories.js';
import { sameDatabase } from '../testing/postgres.js';
import { partners } from '../domain/partners/partners.table.js';
import { affected } from './affected.js';
import { selectRows } from './dialect.js';
import { changeCounter } from './change-counter.js';
import { sql } from 'drizzle-orm';

/**
 * The transaction handle on a real PostgreSQL server (the `server-pg` project): the same
 * guarantees db/transaction.sqlite-only.test.ts checks on SQLite, through a pool.
 */


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
      await tx.insert(partners).values(partnerRow('p_a'));
      releaseA();
      await new Promise((r) => setTimeout(r, 50));
      return (await tx.select({ id: partners.id }).from(partners)).map((r) => r.id);
    });
    await aWrote;
    const b = db.transact(async (tx) => {
      seenByB = (await tx.select({ id: partners.id }).from(partners)).map((r) => r.id);
      await tx.insert(partners).values(partnerRow('p_b'));
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
        await tx.insert(partners).values(partnerRow('p_1'));
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('after the await');
      }),
    ).rejects.toThrow('after the await');
    expect(await db.read((tx) => tx.select().from(partners))).toEqual([]);
  });

  it('runs tx.transact as a savepoint (its failure undoes only itself), counts affected rows, and maps bigint, jsonb and boolean values', async () => {
    const db = testDb();
    const names = await db.transact(async (tx) => {
      await tx.insert(partners).values({ ...partnerRow('p_1'), settings: { allowedOrigins: ['https://a.example'] } as never, createdAt: 1_780_000_000_000 });
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

  it('commits durably on every connection, whatever the server default (the test server runs with synchronous_commit off)', async () => {
    const db = testDb();
    const [setting] = await db.transact((tx) => selectRows<{ synchronous_commit: string }>(tx, sql`show synchronous_commit`));
    expect(setting).toEqual({ synchronous_commit: 'on' });
  });

  it('tells a second process of a change at once: its access-layer cache answers from memory until the other process writes', async () => {
    const a = createTestApp();
    const b = createTestApp({}, { db: sameDatabase(a.db) });
    const p = await a.partner();
    await withEvent(a, p, eventBody('tour', { shows: [showBody('show-1')] }));
    const buyOnB = () => b.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1', { key: p.keys.public });
    const cache = async () => {
      const text = (await (await b.app.request('/metrics', { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text()).split('\n');
      const value = (name: string) => Number(text.find((l: string) => l.startsWith(`resale_buy_accesslayer_cache_${name}_total `))?.split(' ')[1] ?? NaN);
      return { hits: value('hits'), misses: value('rebuilds') + value('checks') };
    };
    /** Calls B until `done` holds (notifications arrive a few milliseconds after a commit). */
    const until = async (done: (c: { hits: number; misses: number }) => boolean) => {
      const deadline = Date.now() + 2_000;
      for (;;) {
        expect((await buyOnB()).status).toBe(200);
        const c = await cache();
        if (done(c) || Date.now() > deadline) return c;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    // B builds its snapshot, then answers from memory: nothing was written meanwhile.
    const warm = await until((c) => c.hits >= 1);
    expect(warm.hits).toBeGreaterThanOrEqual(1);
    expect((await buyOnB()).status).toBe(200);
    expect(await cache()).toEqual({ hits: warm.hits + 1, misses: warm.misses });

    // Process A changes the show; B hears it (a notification on commit) and looks again.
    const put = await a.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [showBody('show-1', { title: 'Renamed' })] } });
    expect(put.status).toBe(200);
    expect((await until((c) => c.misses > warm.misses)).misses).toBe(warm.misses + 1);
  });

  it('calls a change listener when this process commits and when it hears another’s commit (the live stock streams push on it)', async () => {
    const a = createTestApp();
    const b = createTestApp({}, { db: sameDatabase(a.db) });
    await a.partner('Warm-up');
    const counter = changeCounter(b.db, b.clock);
    let heard: (() => void) | null = null;
    const unlisten = counter.onChange!(() => heard?.());
    const next = () =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no change heard within 5 s')), 5_000);
        heard = () => {
          clearTimeout(timer);
          heard = null;
          resolve();
        };
      });
    try {
      let change = next();
      await a.partner('Another process');
      await change;
      change = next();
      await b.partner('This process');
      await change;
    } finally {
      unlisten();
    }
  });
});
