// SQLite only: the SQLite implementation of `transact`/`read` (db/transaction.ts: one connection's queue, BEGIN IMMEDIATE, savepoints, drizzle's synchronous transactions); PostgreSQL's is tested in db/postgres.pg.test.ts.
import { Hono } from 'hono';
import { count, eq } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDb, type Db } from './client.js';
import { QUEUE_WAIT_MS } from './transaction.js';
import { listen } from '../testing/harness.js';
import { tempDir } from '../testing/temp-dir.js';

/** A table only these tests know, created by hand. */
const notes = sqliteTable('notes', {
  id: integer().primaryKey({ autoIncrement: true }),
  owner: text().notNull(),
  step: text().notNull(),
});

function database(path = ':memory:'): Db {
  const db = createDb(path);
  db.$client.exec('create table notes (id integer primary key autoincrement, owner text not null, step text not null)');
  return db;
}

/** A promise the test resolves when it wants: a transaction waits on it between statements. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('db.transact', () => {
  it('queues a second transaction while the first awaits: no interleaved statements, no uncommitted reads', async () => {
    const db = database();
    const log: string[] = [];
    const first = gate();
    const a = db.transact(async (tx) => {
      tx.insert(notes).values({ owner: 'a', step: 'a1' }).run();
      log.push('a: wrote a1');
      await first.opened;
      tx.insert(notes).values({ owner: 'a', step: 'a2' }).run();
      log.push('a: wrote a2');
      return 'a';
    });
    const b = db.transact(async (tx) => {
      const seen = tx.select({ n: count() }).from(notes).get()!.n;
      log.push(`b: saw ${seen}`);
      await tick();
      tx.insert(notes).values({ owner: 'b', step: 'b1' }).run();
      log.push('b: wrote b1');
      return 'b';
    });
    await tick();
    await tick();
    // a is waiting in the middle of its transaction; b has not started.
    expect(log).toEqual(['a: wrote a1']);
    first.open();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    // b began only after a committed, and saw both of a's rows, never just one.
    expect(log).toEqual(['a: wrote a1', 'a: wrote a2', 'b: saw 2', 'b: wrote b1']);
    expect(db.select().from(notes).all().map((n) => n.step)).toEqual(['a1', 'a2', 'b1']);
  });

  it('rolls everything back when the callback throws after an await, and lets the next one run', async () => {
    const db = database();
    await expect(
      db.transact(async (tx) => {
        tx.insert(notes).values({ owner: 'a', step: 'before' }).run();
        await tick();
        tx.insert(notes).values({ owner: 'a', step: 'after' }).run();
        throw new Error('payment provider said no');
      }),
    ).rejects.toThrow('payment provider said no');
    expect(db.select().from(notes).all()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
    await db.transact((tx) => tx.insert(notes).values({ owner: 'b', step: 'next' }).run());
    expect(db.select().from(notes).all().map((n) => n.step)).toEqual(['next']);
  });

  it('runs tx.transact as a savepoint: its failure undoes only itself', async () => {
    const db = database();
    await db.transact(async (tx) => {
      tx.insert(notes).values({ owner: 'outer', step: 'kept' }).run();
      await expect(
        tx.transact(async (inner) => {
          inner.insert(notes).values({ owner: 'inner', step: 'undone' }).run();
          await tick();
          throw new Error('inner failed');
        }),
      ).rejects.toThrow('inner failed');
      await tx.transact((inner) => inner.insert(notes).values({ owner: 'inner', step: 'released' }).run());
    });
    expect(db.select().from(notes).all().map((n) => n.step)).toEqual(['kept', 'released']);
  });

  it('fails, instead of hanging, when a root transact inside a transaction would wait for itself', async () => {
    vi.useFakeTimers();
    try {
      const db = database();
      const outer = db.transact(async (tx) => {
        tx.insert(notes).values({ owner: 'outer', step: 'x' }).run();
        await db.transact((wrong) => wrong.insert(notes).values({ owner: 'inner', step: 'y' }).run());
      });
      const settled = outer.catch((err: Error) => err.message);
      await vi.advanceTimersByTimeAsync(QUEUE_WAIT_MS);
      expect(await settled).toMatch(/stayed busy/);
      expect(db.select().from(notes).all()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a synchronous transaction started while an async one awaits, instead of joining it', async () => {
    const db = database();
    const first = gate();
    const a = db.transact(async (tx) => {
      tx.insert(notes).values({ owner: 'a', step: 'a1' }).run();
      await first.opened;
    });
    await tick();
    expect(() => db.transaction((tx) => tx.insert(notes).values({ owner: 'sync', step: 'x' }).run())).toThrow(/use db.transact/);
    first.open();
    await a;
    expect(db.select().from(notes).all().map((n) => n.owner)).toEqual(['a']);
  });

  it('keeps two concurrent HTTP requests, each awaiting inside its transaction, apart (file database, real server)', async () => {
    const dir = tempDir('tx');
    const db = database(`${dir}/tx.sqlite`);
    closers.push(async () => void db.$client.close());
    const app = new Hono();
    // Each request writes, waits for the network (another fetch), reads what it can see, writes again.
    app.post('/work/:owner', async (c) => {
      const owner = c.req.param('owner');
      const seen = await db.transact(async (tx) => {
        tx.insert(notes).values({ owner, step: 'start' }).run();
        await fetch(`${server.base}/ping`);
        const mine = tx.select({ n: count() }).from(notes).where(eq(notes.owner, owner)).get()!.n;
        const all = tx.select({ n: count() }).from(notes).get()!.n;
        tx.insert(notes).values({ owner, step: 'end' }).run();
        return { mine, all };
      });
      return c.json(seen);
    });
    app.get('/ping', (c) => c.text('pong'));
    const server = await listen(app);
    closers.push(server.close);
    const answers = await Promise.all(['x', 'y', 'z'].map(async (o) => (await fetch(`${server.base}/work/${o}`, { method: 'POST' })).json() as Promise<{ mine: number; all: number }>));
    // Each saw its own first row, and only the complete pairs of those before it.
    expect(answers.map((a) => a.mine)).toEqual([1, 1, 1]);
    expect(answers.map((a) => a.all).sort()).toEqual([1, 3, 5]);
    const rows = db.select().from(notes).all();
    // Statements never interleaved: every start is followed by its own end.
    for (let i = 0; i < rows.length; i += 2) expect([rows[i]!.owner, rows[i]!.step, rows[i + 1]!.owner, rows[i + 1]!.step]).toEqual([rows[i]!.owner, 'start', rows[i]!.owner, 'end']);
  });
});

describe('db.read', () => {
  it('waits for an open transaction instead of reading its uncommitted writes', async () => {
    const db = database();
    const first = gate();
    const writing = db.transact(async (tx) => {
      tx.insert(notes).values({ owner: 'a', step: 'a1' }).run();
      await first.opened;
      tx.insert(notes).values({ owner: 'a', step: 'a2' }).run();
    });
    await tick();
    const reading = db.read((tx) => tx.select({ n: count() }).from(notes).get()!.n);
    let seen: number | null = null;
    void reading.then((n) => (seen = n));
    await tick();
    expect(seen).toBeNull();
    first.open();
    await writing;
    expect(await reading).toBe(2);
  });

  it('reads at once when nothing is open, and through tx inside a transaction as part of it', async () => {
    const db = database();
    expect(await db.read((tx) => tx.select({ n: count() }).from(notes).get()!.n)).toBe(0);
    await db.transact(async (tx) => {
      tx.insert(notes).values({ owner: 'a', step: 'a1' }).run();
      await tick();
      expect(await tx.read((r) => r.select({ n: count() }).from(notes).get()!.n)).toBe(1);
    });
    // A read that awaits holds one snapshot and leaves no transaction open.
    expect(await db.read(async (tx) => {
      await tick();
      return tx.select({ n: count() }).from(notes).get()!.n;
    })).toBe(1);
    expect(db.$client.inTransaction).toBe(false);
  });
});
