import { describe, expect, it } from 'vitest';
import { tryLockOn } from '../../db/dialect.js';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { sameDatabase } from '../../testing/postgres.js';
import { sqlRows } from '../../testing/sql.js';

/**
 * The ingestion queue drained by several processes on PostgreSQL (`TicketsIngest.drainShared`):
 * different partners' queues in parallel, one partner's jobs once each and in queue order.
 */
describe('ticket ingestion drained by several processes', () => {
  it('drains another partner while one partner’s queue is in a process’s hands, then each job once, in order', async () => {
    const a = createTestApp();
    const b = createTestApp({}, { db: sameDatabase(a.db) });
    const first = await a.partner('First');
    const second = await a.partner('Second');
    await withEvent(a, first);
    await withEvent(a, second);
    // The same ticket of the first partner changes hands three times, one job each; the second partner has two jobs.
    const owners = ['one@example.com', 'two@example.com', 'three@example.com'];
    for (const buyer of owners) expect((await a.request('POST', '/v1/tickets', { key: first.keys.private, body: [ticketBody('t1', { buyer })] })).status).toBe(202);
    for (const id of ['u1', 'u2']) expect((await b.request('POST', '/v1/tickets', { key: second.keys.private, body: [ticketBody(id)] })).status).toBe(202);

    // A third process is applying the first partner's jobs (it holds that partner's lock).
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const isHeld = new Promise<void>((resolve) => (held = resolve));
    const third = sameDatabase(a.db);
    const holder = third.transact(async (tx) => {
      expect(await tryLockOn(tx, `ticket-jobs:${first.id}`)).toBe(true);
      held();
      await holding;
    });
    await isHeld;
    // Process b does not wait for it: it applies the second partner's jobs and stops.
    expect(await b.deps.ticketsIngest.drain()).toBe(2);
    const states = async () => (await sqlRows<{ partner_id: string; state: string; n: number }>(a.db, 'select partner_id, state, count(*)::int as n from ticket_jobs group by partner_id, state order by partner_id, state'));
    expect(await states()).toEqual([
      { partner_id: first.id, state: 'queued', n: 3 },
      { partner_id: second.id, state: 'done', n: 2 },
    ].sort((x, y) => (x.partner_id < y.partner_id ? -1 : 1)));

    release();
    await holder;
    // Both processes drain at once: each of the first partner's jobs is applied once, in order.
    const applied = await Promise.all([a.deps.ticketsIngest.drain(), b.deps.ticketsIngest.drain()]);
    expect(applied[0] + applied[1]).toBe(3);
    const jobs = await sqlRows<{ created: number; updated: number }>(a.db, `select created, updated from ticket_jobs where partner_id = '${first.id}' order by created_at, id`);
    expect(jobs).toEqual([{ created: 1, updated: 0 }, { created: 0, updated: 1 }, { created: 0, updated: 1 }]);
    const t1 = (await a.request('GET', '/v1/tickets/t1', { key: first.keys.private })).body.data;
    expect(t1.owner.email).toBe('three@example.com');
    expect((await sqlRows<{ n: number }>(a.db, 'select count(*)::int as n from tickets'))[0]!.n).toBe(3);
  });
});
