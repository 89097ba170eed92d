import { eq, sql } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { partnerRow } from '../testing/factories.js';
import { partners } from '../domain/partners/partners.table.js';
import { createDb, STATEMENT_CACHE_LIMIT } from './client.js';

/**
 * SQLite only: drizzle's queries are prepared once per SQL text and connection (db/client.ts,
 * `cacheStatements`), and what they answer is the same as with a statement prepared each time.
 */

/** The raw connection's `prepare`, counted while `work` runs. */
async function preparations(db: ReturnType<typeof createDb>, work: () => unknown): Promise<number> {
  const spy = vi.spyOn(db.$client as Database.Database, 'prepare');
  try {
    await work();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe('the prepared statements of drizzle’s queries', () => {
  it('prepares a query once and answers as before, in objects or in arrays whichever ran last', async () => {
    const db = createDb(':memory:');
    await db.transact(async (tx) => void (await tx.insert(partners).values(partnerRow('ptr_1', 'Acme'))));
    const byId = () => db.select().from(partners).where(eq(partners.id, 'ptr_1'));
    expect(await preparations(db, async () => void (await byId()))).toBe(1);
    // Again: no preparation, the same rows.
    expect(await preparations(db, async () => expect((await byId())[0]).toMatchObject({ id: 'ptr_1', name: 'Acme' }))).toBe(0);
    // The same SQL text run as arrays (values), then as objects: a statement's row mode does not stick.
    const text = sql`select id, name from partners where id = ${'ptr_1'}`;
    expect(db.values(text)).toEqual([['ptr_1', 'Acme']]);
    expect(db.all(text)).toEqual([{ id: 'ptr_1', name: 'Acme' }]);
    expect(db.values(text)).toEqual([['ptr_1', 'Acme']]);
    expect(db.get(text)).toEqual({ id: 'ptr_1', name: 'Acme' });
    db.$client.close();
  });

  it('keeps at most STATEMENT_CACHE_LIMIT statements, the least recently used out first', async () => {
    const db = createDb(':memory:');
    const run = (n: number) => db.all(sql.raw(`select ${n} as n`));
    expect(await preparations(db, () => run(0))).toBe(1);
    for (let n = 1; n <= STATEMENT_CACHE_LIMIT; n++) run(n);
    // 0 was the least recently used: out, prepared again; the most recent one is still kept.
    expect(await preparations(db, () => run(STATEMENT_CACHE_LIMIT))).toBe(0);
    expect(await preparations(db, () => run(0))).toBe(1);
    db.$client.close();
  });

  it('leaves the statements prepared on the connection itself alone', () => {
    const db = createDb(':memory:');
    const plucked = db.$client.prepare('select 1 as one').pluck();
    expect(plucked.get()).toBe(1);
    // drizzle runs the same text: its own statement, in its own mode.
    expect(db.all(sql.raw('select 1 as one'))).toEqual([{ one: 1 }]);
    expect(plucked.get()).toBe(1);
    db.$client.close();
  });
});
