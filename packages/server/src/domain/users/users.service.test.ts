import { describe, expect, it } from 'vitest';
import { ENGINE } from '../../db/engine.js';
import { createTestApp } from '../../testing/harness.js';
import { sqlRows } from '../../testing/sql.js';

describe('users: resolving a fan', () => {
  it('finds one user when two first requests of the same new fan resolve it at once (no unique violation, no 500)', async () => {
    const t = createTestApp();
    const p = await t.partner();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The first creates the fan and holds its transaction open; the second finds nobody (not
    // committed yet) and inserts too, which on PostgreSQL waits on the first's row lock.
    const first = t.db.transact(async (tx) => {
      const user = await t.deps.users.resolve(tx, p.id, { email: 'New.Fan@Example.com' });
      await gate;
      return user;
    });
    const second = t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'new.fan@example.com', firstName: 'Ana' }));
    if (ENGINE === 'postgres') {
      // Let the first commit only once the second is blocked behind it (seen from a third connection).
      for (let i = 0; i < 500; i++) {
        const waiting = await sqlRows<{ n: number }>(t.db, `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`);
        if (Number(waiting[0]!.n) > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.id).toBe(a.id);
    const rows = await sqlRows<{ n: number }>(t.db, `select count(*) as n from users where email = 'new.fan@example.com'`);
    expect(Number(rows[0]!.n)).toBe(1);
    // What the second request learnt (the first name) was added to that one user.
    expect((await t.db.read(async (tx) => await t.deps.users.find(tx, p.id, 'new.fan@example.com')))!.firstName).toBe('Ana');
  });
});
