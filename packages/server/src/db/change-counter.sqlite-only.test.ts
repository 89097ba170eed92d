import { join } from 'node:path';
import { partnerRow } from '../testing/factories.js';
import { describe, expect, it } from 'vitest';
import { partners } from '../domain/partners/partners.table.js';
import { ManualClock } from '../lib/clock.js';
import { tempDir } from '../testing/temp-dir.js';
import { changeCounter, SqliteChangeCounter } from './change-counter.js';
import { createDb } from './client.js';

/**
 * SQLite only: the change counter the buy access layer's caches compare (db/change-counter.ts):
 * this connection's `total_changes()` for its own writes, at once, and `PRAGMA data_version` for
 * another connection's commits to the same file, read at most once per millisecond of the clock.
 * PostgreSQL's counter follows the commit notifications (db/postgres.pg.test.ts).
 */


describe('the SQLite change counter', () => {
  it('moves at once with this connection’s writes, and not for reads or forgiven writes', async () => {
    const dir = tempDir('resale-counter');
    const db = createDb(join(dir, 'db.sqlite'));
    const clock = new ManualClock();
    const counter = changeCounter(db, clock);
    expect(counter).toBeInstanceOf(SqliteChangeCounter);
    const v0 = counter.read();
    await db.read((tx) => tx.select().from(partners));
    expect(counter.same(v0, counter.read())).toBe(true);
    await db.transact(async (tx) => void (await tx.insert(partners).values(partnerRow('p_1'))));
    const v1 = counter.read();
    expect(counter.same(v0, v1)).toBe(false);
    // Writes no cache reads (tokens, users) can be forgiven: they do not count as a change.
    await db.transact(async (tx) => counter.forgive(() => tx.insert(partners).values(partnerRow('p_forgiven')).run()));
    expect(counter.same(v1, counter.read())).toBe(true);
    db.$client.close();
  });

  it('sees another connection’s commit once the clock has moved a millisecond (data_version is read at most once per millisecond)', async () => {
    const dir = tempDir('resale-counter');
    const path = join(dir, 'db.sqlite');
    const service = createDb(path);
    const other = createDb(path, { migrate: false });
    const clock = new ManualClock();
    const counter = changeCounter(service, clock);
    const before = counter.read();
    await other.transact(async (tx) => void (await tx.insert(partners).values(partnerRow('p_other'))));
    // Within the same millisecond the cached data_version stands.
    expect(counter.same(before, counter.read())).toBe(true);
    clock.advance(1);
    expect(counter.same(before, counter.read())).toBe(false);
    other.$client.close();
    service.$client.close();
  });
});
