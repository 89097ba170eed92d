import { sqlRows } from '../../testing/sql.js';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildDeps } from '../../deps.js';
import { createTestApp, TEST_SECRET_KEY } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';

describe('POST /v1/sync/tickets', () => {
  it('creates tickets, answers each item, and updates (never duplicates) on a repeated ticketId', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const res = await t.request('POST', '/v1/sync/tickets', {
      key: p.keys.private,
      body: [
        ticketBody('t1', { section: 'A', row: '3', seat: '12', orderId: 'order-1' }),
        ticketBody('t2', { buyer: { id: 'user-9', email: 'Other@Example.com', firstName: 'Ana' }, priceTypeId: 'pt-early', price: '39.00' }),
        ticketBody('t3', { buyer: '+34600111222', showId: 'show-2', props: { seating: { section: 'B', row: '1', seat: '2' }, extra: { any: 1 } } }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 3, updated: 0, rejected: 0 });
    expect(res.body.data.results).toEqual([
      { index: 0, ticketId: 't1', status: 'created' },
      { index: 1, ticketId: 't2', status: 'created' },
      { index: 2, ticketId: 't3', status: 'created' },
    ]);

    const t1 = (await t.request('GET', '/v1/tickets/t1', { key: p.keys.private })).body.data;
    expect(t1).toMatchObject({
      ticketId: 't1',
      externalReferenceEventId: 'tour',
      showId: 'show-1',
      ticketOptionId: 'opt-field',
      priceTypeId: null,
      state: 'VALID',
      price: 45.5,
      currency: 'EUR',
      owner: { id: null, email: 'fan@example.com', phone: null },
      seating: { section: 'A', row: '3', seat: '12' },
      orderId: 'order-1',
      admittedAt: null,
    });
    expect(t1.id).toMatch(/^tkt_/);
    const t2 = (await t.request('GET', '/v1/tickets/t2', { key: p.keys.private })).body.data;
    expect(t2).toMatchObject({ priceTypeId: 'pt-early', price: 39, owner: { id: 'user-9', email: 'other@example.com' } });
    const t3 = (await t.request('GET', '/v1/tickets/t3', { key: p.keys.private })).body.data;
    expect(t3).toMatchObject({ showId: 'show-2', owner: { phone: '+34600111222' }, seating: { section: 'B', row: '1', seat: '2' } });
    expect(t3.props.extra).toEqual({ any: 1 });

    const again = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('t1', { price: 50 })] });
    expect(again.body.data.results).toEqual([{ index: 0, ticketId: 't1', status: 'updated' }]);
    const count = (await sqlRows(t.db, 'select count(*) n from tickets'))[0] as { n: number };
    expect(count.n).toBe(3);
    expect((await t.request('GET', '/v1/tickets/t1', { key: p.keys.private })).body.data.price).toBe(50);
  });

  it('rejects a bad item with its reason and leaves nothing of it, while the others are applied', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const res = await t.request('POST', '/v1/sync/tickets', {
      key: p.keys.private,
      body: [
        ticketBody('ok-1'),
        ticketBody('bad-event', { externalReferenceEventId: 'nope' }),
        ticketBody('bad-event-2', { externalReferenceEventId: 'showcase-2026' }),
        ticketBody('bad-show', { showId: 'show-9' }),
        ticketBody('bad-option', { ticketOptionId: 'opt-ghost' }),
        ticketBody('bad-combo', { ticketOptionId: 'opt-vip', priceTypeId: 'pt-early' }),
        ticketBody('bad-price', { price: 10.555 }),
        { ticketId: 'bad-shape', buyer: 'not-an-email' },
        ticketBody('no-show', { externalReferenceEventId: 'tour', showId: undefined }),
        ticketBody('bad-phone', { buyer: { phone: '12' } }),
        ticketBody('ok-2', { showId: 'show-2' }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 2, rejected: 9 });
    const byId = Object.fromEntries(res.body.data.results.map((r: { ticketId: string }) => [r.ticketId, r]));
    expect(byId['ok-1'].status).toBe('created');
    expect(byId['bad-event'].errors[0]).toMatchObject({ path: 'externalReferenceEventId', message: "No event 'nope' was found" });
    // The field comes from which lookup failed, never from the message (this id says "show").
    expect(byId['bad-event-2'].errors[0]).toMatchObject({ path: 'externalReferenceEventId', code: 'invalid_value', message: "No event 'showcase-2026' was found" });
    expect(byId['bad-show'].errors[0]).toMatchObject({ path: 'showId', message: "No show 'show-9' was found" });
    expect(byId['bad-option'].errors[0]).toMatchObject({ path: 'ticketOptionId' });
    expect(byId['bad-combo'].errors[0]).toMatchObject({ path: 'priceTypeId', message: expect.stringMatching(/form no combination/) });
    expect(byId['bad-price'].errors[0]).toMatchObject({ path: 'price', code: 'invalid_value' });
    expect(byId['bad-shape'].errors.map((e: { path: string }) => e.path).sort()).toEqual(['buyer', 'externalReferenceEventId', 'ticketAccess', 'ticketOptionId']);
    expect(byId['no-show'].errors[0]).toMatchObject({ path: 'showId', code: 'missing_field' });
    expect(byId['bad-phone'].errors[0]).toMatchObject({ path: 'buyer.phone' });
    const rows = (await sqlRows(t.db, 'select ticket_id from tickets order by ticket_id')) as { ticket_id: string }[];
    expect(rows.map((r) => r.ticket_id)).toEqual(['ok-1', 'ok-2']);
    // A rejected buyer never became a user.
    const usersCount = (await sqlRows(t.db, 'select count(*) n from users'))[0] as { n: number };
    expect(usersCount.n).toBe(1);
  });

  it('limits the synchronous endpoint to 60 requests per minute per partner, others unaffected', async () => {
    const t = createTestApp();
    const a = await t.partner('A');
    const b = await t.partner('B');
    for (let i = 0; i < 60; i++) expect((await t.request('POST', '/v1/sync/tickets', { key: a.keys.private, body: [{}] })).status).toBe(200);
    const limited = await t.request('POST', '/v1/sync/tickets', { key: a.keys.private, body: [{}] });
    expect(limited.status).toBe(429);
    // Until the first of the 60 leaves the minute (they were all made in the clock's first second).
    expect(limited.headers.get('retry-after')).toBe('61');
    expect(limited.body).toMatchObject({ status: 429, data: null, errors: [{ code: 'rate_limited' }] });
    expect((await t.request('POST', '/v1/sync/tickets', { key: b.keys.private, body: [{}] })).status).toBe(200);
    // The async endpoint is not under that limit.
    expect((await t.request('POST', '/v1/tickets', { key: a.keys.private, body: [{}] })).status).toBe(202);
    // No refill within the minute: the 61st of any minute is refused.
    t.clock.advance(59_000);
    expect((await t.request('POST', '/v1/sync/tickets', { key: a.keys.private, body: [{}] })).status).toBe(429);
    t.clock.advance(2_000);
    expect((await t.request('POST', '/v1/sync/tickets', { key: a.keys.private, body: [{}] })).status).toBe(200);
  });

  it('refuses a request that is not a non-empty array within the item limit, and wrong keys', async () => {
    const t = createTestApp({ maxBodyBytes: 5 * 1024 * 1024 });
    const p = await t.partner();
    expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: {} })).status).toBe(400);
    expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [] })).body.errors[0]).toMatchObject({ code: 'out_of_range' });
    expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [1] })).body.errors[0]).toMatchObject({ code: 'invalid_type', path: '0' });
    const tooMany = Array.from({ length: 501 }, () => ({}));
    expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: tooMany })).body.errors[0]).toMatchObject({ code: 'out_of_range' });
    expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.public, body: [{}] })).status).toBe(403);
    expect((await t.request('POST', '/v1/tickets', { key: p.keys.channels, body: [{}] })).status).toBe(403);
    expect((await t.request('POST', '/v1/tickets', { body: [{}] })).status).toBe(401);
  });
});

describe('POST /v1/tickets (asynchronous)', () => {
  it('answers at once with a job, then the worker stores every ticket; the job reports per item', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const items = [ticketBody('a1'), ticketBody('a2', { ticketOptionId: 'opt-ghost' }), { nonsense: true }, ticketBody('a3')];
    const res = await t.request('POST', '/v1/tickets', { key: p.keys.private, body: items });
    expect(res.status).toBe(202);
    const job = res.body.data;
    expect(job).toMatchObject({ state: 'queued', total: 4, created: 0, rejected: 1 });
    expect(job.results).toHaveLength(1);
    expect(job.results[0]).toMatchObject({ index: 2, ticketId: null, status: 'rejected' });
    expect(((await sqlRows(t.db, 'select count(*) n from tickets'))[0] as { n: number }).n).toBe(0);

    expect(await t.deps.ticketsIngest.drain()).toBe(1);
    const done = await t.request('GET', `/v1/tickets/jobs/${job.jobId}`, { key: p.keys.private });
    expect(done.body.data).toMatchObject({ state: 'done', total: 4, created: 2, updated: 0, rejected: 2, finishedAt: '2026-03-01T12:00:00.000Z' });
    expect(done.body.data.results.map((r: { index: number; status: string }) => `${r.index}:${r.status}`)).toEqual(['0:created', '1:rejected', '2:rejected', '3:created']);
    expect(await t.deps.ticketsIngest.drain()).toBe(0);

    const other = await t.partner('Other');
    expect((await t.request('GET', `/v1/tickets/jobs/${job.jobId}`, { key: other.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/tickets/jobs/job_unknown', { key: p.keys.private })).status).toBe(404);
  });

  it('survives a worker that died mid-job: nothing of its transaction stays, the job is applied whole by the next drain, every ticket stored once', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const items = Array.from({ length: 50 }, (_, i) => ticketBody(`c${i}`, { buyer: `fan${i % 7}@example.com` }));
    const job = (await t.request('POST', '/v1/tickets', { key: p.keys.private, body: items })).body.data;

    // A worker reads the job and dies before its transaction commits (here: before it begins).
    await expect(t.deps.ticketsIngest.drain(200, { beforeJob: () => Promise.reject(new Error('killed')) })).rejects.toThrow('killed');
    expect((await t.request('GET', `/v1/tickets/jobs/${job.jobId}`, { key: p.keys.private })).body.data).toMatchObject({ state: 'queued' });
    expect(((await sqlRows(t.db, 'select count(*) n from tickets'))[0] as { n: number }).n).toBe(0);
    expect(await t.deps.ticketsIngest.drain()).toBe(1);
    expect(await t.deps.ticketsIngest.drain()).toBe(0);

    const state = (await t.request('GET', `/v1/tickets/jobs/${job.jobId}`, { key: p.keys.private })).body.data;
    expect(state).toMatchObject({ state: 'done', created: 50, rejected: 0 });
    expect(((await sqlRows(t.db, 'select count(*) n, count(distinct ticket_id) d from tickets'))[0] as { n: number; d: number })).toEqual({ n: 50, d: 50 });
    expect(((await sqlRows(t.db, 'select count(*) n from users'))[0] as { n: number }).n).toBe(7);
  });

  /** An app with event `tour`, and calls to queue tickets (POST /v1/tickets) and read a job back. */
  async function queue() {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const post = async (items: unknown[]) => (await t.request('POST', '/v1/tickets', { key: p.keys.private, body: items })).body.data;
    const job = async (id: string) => (await t.request('GET', `/v1/tickets/jobs/${id}`, { key: p.keys.private })).body.data;
    return { t, p, post, job };
  }

  it('applies several queued jobs in one transaction, each with its own results, as if one after the other', async () => {
    const { t, p, post, job } = await queue();
    const a = await post([ticketBody('m1'), ticketBody('m2')]);
    const b = await post([ticketBody('m1', { seat: '9' }), { nonsense: true }, ticketBody('m3', { buyer: 'other@example.com' })]);
    const c = await post([ticketBody('m3', { buyer: 'other@example.com', seat: '1' })]);

    expect(await t.deps.ticketsIngest.drain()).toBe(3);
    expect(await job(a.jobId)).toMatchObject({ state: 'done', created: 2, updated: 0, rejected: 0 });
    const second = await job(b.jobId);
    expect(second).toMatchObject({ state: 'done', total: 3, created: 1, updated: 1, rejected: 1 });
    expect(second.results.map((r: { index: number; ticketId: string | null; status: string }) => `${r.index}:${r.ticketId}:${r.status}`)).toEqual(['0:m1:updated', '1:null:rejected', '2:m3:created']);
    expect(await job(c.jobId)).toMatchObject({ state: 'done', created: 0, updated: 1, rejected: 0 });
    expect((await sqlRows(t.db, 'select count(*) n, count(distinct ticket_id) d from tickets'))[0]).toEqual({ n: 3, d: 3 });
    expect(((await sqlRows(t.db, 'select count(*) n from users'))[0] as { n: number }).n).toBe(2);
    expect((await t.request('GET', '/v1/tickets/m3', { key: p.keys.private })).body.data).toMatchObject({ seating: { seat: '1' } });
    expect(await t.deps.ticketsIngest.drain()).toBe(0);
  });

  it('keeps nothing of a transaction that fails midway (as a crash would): its jobs stay queued and are applied whole later, each ticket once', async () => {
    const { t, p, post, job } = await queue();
    const a = await post([ticketBody('r1'), ticketBody('r2')]);
    // The second job gives r1 a new owner, which raises ticket.invalidated: the failure happens there, after the first job's writes.
    const b = await post([ticketBody('r1', { buyer: 'new-owner@example.com' })]);
    let fail = true;
    t.deps.bus.on('ticket.invalidated', () => {
      if (fail) throw new Error('power cut');
    });

    await expect(t.deps.ticketsIngest.drain()).rejects.toThrow('power cut');
    expect(((await sqlRows(t.db, 'select count(*) n from tickets'))[0] as { n: number }).n).toBe(0);
    expect((await job(a.jobId)).state).toBe('queued');
    expect((await job(b.jobId)).state).toBe('queued');

    fail = false;
    expect(await t.deps.ticketsIngest.drain()).toBe(2);
    expect(await job(a.jobId)).toMatchObject({ state: 'done', created: 2, updated: 0 });
    expect(await job(b.jobId)).toMatchObject({ state: 'done', created: 0, updated: 1 });
    expect((await sqlRows(t.db, 'select count(*) n, count(distinct ticket_id) d from tickets'))[0]).toEqual({ n: 2, d: 2 });
    expect((await t.request('GET', '/v1/tickets/r1', { key: p.keys.private })).body.data).toMatchObject({ owner: { email: 'new-owner@example.com' } });
  });

  it('skips a job that another drain applied after this one read it', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const queued = (await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('s1')] })).body.data;
    // drain reads the due jobs before its transaction; another drain (another process, the
    // worker thread) applies the job in between.
    let other: number | null = null;
    expect(await t.deps.ticketsIngest.drain(200, { beforeJob: async () => void (other ??= await t.deps.ticketsIngest.drain()) })).toBe(0);
    expect(other).toBe(1);
    expect(((await sqlRows(t.db, 'select count(*) n from tickets'))[0] as { n: number }).n).toBe(1);

    const done = (await t.request('GET', `/v1/tickets/jobs/${queued.jobId}`, { key: p.keys.private })).body.data;
    expect(done).toMatchObject({ state: 'done', created: 1 });
    expect(done).not.toHaveProperty('items');
    expect(await t.deps.ticketsIngest.drain()).toBe(0);
  });

  it('several workers draining at once (processes on PostgreSQL) apply each job once, in queue order per ticket', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const prices = [10, 20, 30, 40, 50, 60];
    const jobIds: string[] = [];
    for (const price of prices) jobIds.push((await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('w1', { price }), ticketBody(`w-${price}`)] })).body.data.jobId);
    // Three services over the same database, as three processes would run them.
    const workers = [t.deps, ...Array.from({ length: 2 }, () => buildDeps({ db: t.db, clock: t.clock, config: t.deps.config, logger: pino({ level: 'silent' }), secretKey: TEST_SECRET_KEY }))];
    const applied = await Promise.all(workers.map((w) => w.ticketsIngest.drain(5_000)));
    expect(applied.reduce((a, b) => a + b, 0)).toBe(prices.length);
    for (const [i, id] of jobIds.entries()) {
      expect((await t.request('GET', `/v1/tickets/jobs/${id}`, { key: p.keys.private })).body.data).toMatchObject({ state: 'done', created: i === 0 ? 2 : 1, updated: i === 0 ? 0 : 1 });
    }
    expect((await t.request('GET', '/v1/tickets/w1', { key: p.keys.private })).body.data.price).toBe(60);
    expect((await sqlRows(t.db, 'select count(*) as n from tickets'))[0]).toEqual({ n: prices.length + 1 });
  });

  it('replays the answer for a repeated Idempotency-Key instead of queueing twice', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const headers = { 'idempotency-key': 'batch-0001' };
    const first = await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('i1')], headers });
    const second = await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('i1')], headers });
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(((await sqlRows(t.db, 'select count(*) n from ticket_jobs'))[0] as { n: number }).n).toBe(1);
    const other = await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('i2')], headers });
    expect(other.status).toBe(422);
  });
});

describe('PUT and DELETE /v1/tickets/:ticketId', () => {
  it('replaces the fields sent, changes the owner (raising ticket.invalidated), keeps the rest', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('u1', { section: 'A', tags: ['gate:3'] })] });
    const seen: string[] = [];
    t.deps.bus.on('ticket.invalidated', (_tx, e) => void seen.push(e.reason));
    t.clock.advance(1000);
    const res = await t.request('PUT', '/v1/tickets/u1', {
      key: p.keys.private,
      body: { buyer: 'new-owner@example.com', ticketAccess: { type: 'OTHER', locator: 'CODE-778' }, flags: { vip: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      ticketId: 'u1',
      owner: { email: 'new-owner@example.com' },
      ticketAccess: { type: 'OTHER', locator: 'CODE-778' },
      flags: { vip: true },
      seating: { section: 'A' },
      tags: ['gate:3'],
      price: 45.5,
      updatedAt: '2026-03-01T12:00:01.000Z',
    });
    expect(seen).toEqual(['owner_changed']);
    const same = await t.request('PUT', '/v1/tickets/u1', { key: p.keys.private, body: { price: 47 } });
    expect(same.body.data.price).toBe(47);
    expect(seen).toEqual(['owner_changed']);
  });

  it('refuses bad changes and unknown or foreign tickets', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const other = await t.partner('Other');
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('u1')] });
    expect((await t.request('PUT', '/v1/tickets/u1', { key: p.keys.private, body: { ticketOptionId: 'opt-ghost' } })).body.errors[0]).toMatchObject({ path: 'ticketOptionId' });
    expect((await t.request('PUT', '/v1/tickets/u1', { key: p.keys.private, body: { ticketId: 'renamed' } })).status).toBe(400);
    expect((await t.request('PUT', '/v1/tickets/u1', { key: p.keys.private, body: { colour: 'red' } })).body.errors[0].code).toBe('unknown_field');
    expect((await t.request('PUT', '/v1/tickets/u1', { key: other.keys.private, body: { price: 1 } })).status).toBe(404);
    expect((await t.request('DELETE', '/v1/tickets/u1', { key: other.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/tickets/u1', { key: other.keys.private })).status).toBe(404);
    expect((await t.request('PUT', '/v1/tickets/nope', { key: p.keys.private, body: { price: 1 } })).status).toBe(404);
    expect((await t.request('PUT', '/v1/tickets/u1', { key: p.keys.public, body: { price: 1 } })).status).toBe(403);
  });

  it('deletes for good: later PUT, DELETE, sync or admission answer a clear error', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('d1')] });
    const seen: string[] = [];
    t.deps.bus.on('ticket.invalidated', (_tx, e) => void seen.push(e.reason));
    const del = await t.request('DELETE', '/v1/tickets/d1', { key: p.keys.private });
    expect(del.status).toBe(200);
    expect(del.body.data.state).toBe('DELETED');
    expect(seen).toEqual(['deleted']);
    const again = await t.request('DELETE', '/v1/tickets/d1', { key: p.keys.private });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].message).toMatch(/already deleted/);
    expect((await t.request('PUT', '/v1/tickets/d1', { key: p.keys.private, body: { price: 1 } })).status).toBe(409);
    const resync = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('d1')] });
    expect(resync.body.data.results[0]).toMatchObject({ status: 'rejected', errors: [{ code: 'conflict', message: expect.stringMatching(/deletion is final/) }] });
    expect((await t.request('POST', '/v1/tickets/d1/eventAdmission', { key: p.keys.private })).status).toBe(409);
  });
});

describe('admissions', () => {
  it('records one admission (data: true) and refuses a second', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('e1')] });
    const res = await t.request('POST', '/v1/tickets/e1/eventAdmission', { key: p.keys.private });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200, data: true, errors: null });
    expect((await t.request('GET', '/v1/tickets/e1', { key: p.keys.private })).body.data).toMatchObject({ state: 'ADMITTED', admittedAt: '2026-03-01T12:00:00.000Z' });
    const twice = await t.request('POST', '/v1/tickets/e1/eventAdmission', { key: p.keys.private });
    expect(twice.status).toBe(409);
    expect((await t.request('POST', '/v1/tickets/none/eventAdmission', { key: p.keys.private })).status).toBe(404);
  });

  it('admits a ticket scanned at several gates at once exactly once (one 200, the others 409)', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('g1')] });
    // Concurrent requests: on PostgreSQL each its own pooled connection, all reading VALID together.
    const answers = await Promise.all(Array.from({ length: 8 }, async () => await t.request('POST', '/v1/tickets/g1/eventAdmission', { key: p.keys.private })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body.errors[0].message).toMatch(/already admitted/);
    expect((await t.request('GET', '/v1/tickets/g1', { key: p.keys.private })).body.data.state).toBe('ADMITTED');
  });

  it('records a batch and lists what it could not record, with the reason', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', {
      key: p.keys.private,
      body: [ticketBody('b1'), ticketBody('b2'), ticketBody('b3'), ticketBody('b4', { showId: 'show-2' })],
    });
    await t.request('DELETE', '/v1/tickets/b2', { key: p.keys.private });
    await t.request('POST', '/v1/tickets/b3/eventAdmission', { key: p.keys.private });
    await t.request('POST', '/v1/events/tour/cancellation?showId=show-2', { key: p.keys.private });
    const res = await t.request('POST', '/v1/tickets/batch/eventAdmission', {
      key: p.keys.private,
      body: [
        { ticketId: 'b1', entryDate: '2023-09-01T12:00:00Z' },
        { ticketId: 'b2', entryDate: '2023-09-01T12:00:00Z' },
        { ticketId: 'b3', entryDate: '2023-09-01T12:00:00Z' },
        { ticketId: 'b4', entryDate: '2023-09-01T12:00:00Z' },
        { ticketId: 'zz', entryDate: '2023-09-01T12:00:00Z' },
        { ticketId: 'b1', entryDate: '2023-09-01T12:00:00Z' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.allRecorded).toBe(false);
    expect(res.body.data.recorded).toBe(1);
    expect(res.body.data.failed.map((f: { ticketId: string; reason: string }) => `${f.ticketId}:${f.reason}`)).toEqual([
      'b2:deleted',
      'b3:already_admitted',
      'b4:cancelled',
      'zz:unknown',
      'b1:duplicate',
    ]);
    expect((await t.request('GET', '/v1/tickets/b1', { key: p.keys.private })).body.data.admittedAt).toBe('2023-09-01T12:00:00.000Z');
    const all = await t.request('POST', '/v1/tickets/batch/eventAdmission', { key: p.keys.private, body: [{ ticketId: 'b1', entryDate: 'yesterday' }] });
    expect(all.body.errors[0]).toMatchObject({ code: 'invalid_format', path: '0.entryDate' });
  });
});

describe('show cancellation', () => {
  it('invalidates every live ticket of the show, leaves other shows alone, and stores later tickets as CANCELLED', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('x1'), ticketBody('x2'), ticketBody('y1', { showId: 'show-2' })] });
    await t.request('DELETE', '/v1/tickets/x2', { key: p.keys.private });
    const seen: string[] = [];
    t.deps.bus.on('ticket.invalidated', (_tx, e) => void seen.push(e.reason));
    await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private });
    const state = async (id: string) => (await t.request('GET', `/v1/tickets/${id}`, { key: p.keys.private })).body.data.state;
    expect([await state('x1'), await state('x2'), await state('y1')]).toEqual(['CANCELLED', 'DELETED', 'VALID']);
    expect(seen).toEqual(['cancelled']);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('x3')] });
    expect(await state('x3')).toBe('CANCELLED');
  });
});
