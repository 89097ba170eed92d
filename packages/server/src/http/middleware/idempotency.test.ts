import { describe, expect, it } from 'vitest';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { count, eq } from 'drizzle-orm';
import { errorResponse } from '../../app.js';
import type { AppDeps, AppEnv } from '../../context.js';
import { InstanceLease } from '../../domain/instances/instances.service.js';
import { INSTANCE_LEASE_MS } from '../../domain/instances/instances.queries.js';
import { purgeIdempotencyJob } from '../../jobs/purge-idempotency.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse } from '../openapi.js';
import { dbTable, integer, text } from '../../db/schema-builders.js';
import { createTestApp } from '../../testing/harness.js';
import { AUTO_ID, sqlExec } from '../../testing/sql.js';
import { partnerKey } from './auth.js';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS, purgeExpiredIdempotencyKeys } from '../../domain/idempotency/idempotency.store.js';
import { idempotencyKeys } from '../../domain/idempotency/idempotency.table.js';
import { idempotency, respondInTransaction } from './idempotency.js';

/** A table only these tests know, created by hand: the work the idempotent route does. */
const things = dbTable('things', {
  id: integer().primaryKey({ autoIncrement: true }),
  partnerId: text().notNull(),
  name: text().notNull(),
});

const ThingInput = z.object({ name: z.string().min(1) });
const Thing = z.object({ id: z.number().int(), name: z.string() });

/**
 * A small app with idempotent POST routes over the real database:
 * - `/v1/things` does its work through respondInTransaction; `name: 'crash'` throws after
 *   writing, inside the transaction; `hooks.conflict` makes it fail with a 409 first;
 *   `hooks.gate` makes the next call wait for a promise the test controls;
 * - `/v1/others` is the same on another path;
 * - `/v1/counters` answers with plain `c.json` (no respondInTransaction).
 */
async function setup(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = createTestApp(overrides);
  await sqlExec(t.db, `create table things (${AUTO_ID}, partner_id text not null, name text not null)`);
  const hooks: { calls: number; conflict: boolean; gate: { entered: () => void; release: Promise<void> } | null } = { calls: 0, conflict: false, gate: null };
  let counter = 0;

  /** The routes over `d` (this process's services; another process's for `otherProcess`). */
  function buildApp(d: AppDeps) {
    const router = createRouter();
    const mw = [partnerKey(t.deps, ['private']), idempotency(d)];
    for (const path of ['/v1/things', '/v1/others'] as const) {
      router.openapi(
        createRoute({
          method: 'post',
          path,
          operationId: `create${path}`,
          tags: ['Test'],
          summary: 'Create a thing',
          middleware: mw,
          request: { body: jsonBody(ThingInput) },
          responses: { 201: jsonResponse(envelope(Thing, 201), 'The thing'), ...errorResponses(409, 422) },
        }),
        async (c) => {
          const body = c.req.valid('json');
          hooks.calls++;
          const gate = hooks.gate;
          hooks.gate = null;
          if (gate) {
            gate.entered();
            await gate.release;
          }
          if (hooks.conflict) throw ApiError.conflict('Not now');
          const partnerId = c.get('auth').partner.id;
          return respondInTransaction(c, t.deps, 201, async (tx) => {
            const row = (await tx.insert(things).values({ partnerId, name: body.name }).returning())[0]!;
            if (body.name === 'crash') throw new Error('disk on fire');
            return { id: row.id, name: row.name };
          });
        },
      );
    }
    // The same work done across an await inside the transaction (a payment provider, the
    // partner's platform): `name: 'late-crash'` throws after the await, after writing.
    router.openapi(
      createRoute({
        method: 'post',
        path: '/v1/async-things',
        operationId: 'createAsyncThing',
        tags: ['Test'],
        summary: 'Create a thing, awaiting in the middle',
        middleware: mw,
        request: { body: jsonBody(ThingInput) },
        responses: { 201: jsonResponse(envelope(Thing, 201), 'The thing'), ...errorResponses(409, 422) },
      }),
      (c) => {
        const body = c.req.valid('json');
        const partnerId = c.get('auth').partner.id;
        return respondInTransaction(c, t.deps, 201, async (tx) => {
          const row = (await tx.insert(things).values({ partnerId, name: body.name }).returning())[0];
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (body.name === 'late-crash') throw new Error('the provider hung up');
          return { id: row!.id, name: row!.name };
        });
      },
    );
    router.openapi(
      createRoute({
        method: 'post',
        path: '/v1/counters',
        operationId: 'createCounter',
        tags: ['Test'],
        summary: 'Count',
        middleware: mw,
        responses: { 200: jsonResponse(envelope(z.object({ n: z.number() })), 'The count'), ...errorResponses() },
      }),
      (c) => c.json(ok({ n: ++counter }), 200),
    );

    const app = new OpenAPIHono<AppEnv>();
    app.onError((e, c) => errorResponse(e, c, t.deps));
    app.route('/', router);
    return app;
  }
  const app = buildApp(t.deps);

  async function send(path: string, opts: { key: string; idem?: string; body?: unknown; via?: OpenAPIHono<AppEnv> }) {
    const headers: Record<string, string> = { authorization: opts.key, 'content-type': 'application/json' };
    if (opts.idem !== undefined) headers['idempotency-key'] = opts.idem;
    const res = await (opts.via ?? app).request(path, { method: 'POST', headers, body: JSON.stringify(opts.body ?? {}) });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text), headers: res.headers };
  }

  /** Makes the next call of `/v1/things` wait until `release()`; `entered` resolves once it waits. */
  function holdNextCall() {
    let release!: () => void;
    let entered!: () => void;
    const reached = new Promise<void>((r) => (entered = r));
    hooks.gate = { entered, release: new Promise<void>((r) => (release = r)) };
    return { reached, release };
  }

  const thingCount = async () => (await t.db.select({ n: count() }).from(things).limit(1))[0]!.n;
  const claims = async () => await t.db.select().from(idempotencyKeys);

  /** The same routes as served by another process over the same database (its own lease). */
  const otherProcess = () => buildApp({ ...t.deps, instance: new InstanceLease(t.clock) });

  return { t, app, hooks, send, holdNextCall, thingCount, claims, otherProcess };
}

describe('Idempotency-Key', () => {
  it('without a key, runs every request (two requests, two things) and stores nothing', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const a = await s.send('/v1/things', { key: p.keys.private, body: { name: 'A' } });
    const b = await s.send('/v1/things', { key: p.keys.private, body: { name: 'A' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.id).not.toBe(b.body.data.id);
    expect(await s.thingCount()).toBe(2);
    expect(await s.claims()).toEqual([]);
  });

  it('replays the first answer byte for byte for the same key and body, without running the handler again', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const first = await s.send('/v1/things', { key: p.keys.private, idem: 'order-1', body: { name: 'A' } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ status: 201, data: { id: 1, name: 'A' }, errors: null });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The middleware read the body for the hash; the validator still parsed it (Hono caches it).
    expect(first.body.data.name).toBe('A');

    s.t.clock.advance(60 * 60 * 1000);
    const again = await s.send('/v1/things', { key: p.keys.private, idem: 'order-1', body: { name: 'A' } });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(s.hooks.calls).toBe(1);
    expect(await s.thingCount()).toBe(1);
    expect(await s.claims()).toMatchObject([{ partnerId: p.id, key: 'order-1', state: 'done', responseStatus: 201, responseBody: first.text }]);
  });

  it('answers 422 for the same key with another body or on another path, and writes nothing', async () => {
    const s = await setup();
    const p = await s.t.partner();
    await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    for (const [path, body] of [
      ['/v1/things', { name: 'B' }],
      ['/v1/others', { name: 'A' }],
    ] as const) {
      const res = await s.send(path, { key: p.keys.private, idem: 'k', body });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ status: 422, data: null, errors: [{ code: 'idempotency_key_reused', path: 'Idempotency-Key', in: 'header' }] });
    }
    expect(s.hooks.calls).toBe(1);
    expect(await s.thingCount()).toBe(1);
    // The stored answer is untouched: the right request still replays.
    const replay = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 409 while the first request with the key is still running, then replays its answer', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const hold = s.holdNextCall();
    const first = s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    await hold.reached;

    const concurrent = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    expect(concurrent.status).toBe(409);
    expect(concurrent.body).toMatchObject({ status: 409, data: null, errors: [{ code: 'idempotency_in_progress' }] });
    expect(await s.claims()).toMatchObject([{ state: 'processing' }]);

    hold.release();
    const done = await first;
    expect(done.status).toBe(201);
    const after = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    expect(after.text).toBe(done.text);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(await s.thingCount()).toBe(1);
  });

  it('takes over a claim abandoned past its lock; the late first request can then store nothing', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const hold = s.holdNextCall();
    const stuck = s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    await hold.reached;

    s.t.clock.advance(IDEMPOTENCY_LOCK_MS - 1);
    expect((await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } })).status).toBe(409);
    s.t.clock.advance(1);
    const holdTakeover = s.holdNextCall();
    const takingOver = s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    await holdTakeover.reached;

    // The first request wakes up while the takeover still runs: its claim is no longer its
    // own, so its work rolls back with a 409 instead of storing a second answer.
    hold.release();
    const late = await stuck;
    expect(late.status).toBe(409);
    expect(late.body.errors[0].code).toBe('idempotency_in_progress');
    expect(await s.thingCount()).toBe(0);

    holdTakeover.release();
    const takeover = await takingOver;
    expect(takeover.status).toBe(201);
    expect(await s.thingCount()).toBe(1);
    const replay = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    expect(replay.text).toBe(takeover.text);
  });

  it('takes over, within the lease, the claim of a process that died mid-request (not only after the lock); a live one answers 409', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const other = s.otherProcess();
    // Process A registered its lease when it started (main.ts); it takes the key and hangs
    // (killed: it never answers, never renews its lease).
    await s.t.db.transact((tx) => s.t.deps.instance.renew(tx, { force: true }));
    const hold = s.holdNextCall();
    void s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    await hold.reached;
    expect(await s.claims()).toMatchObject([{ state: 'processing', owner: s.t.deps.instance.id }]);

    // The retry lands on process B: A's lease is still live, so it is still running.
    s.t.clock.advance(INSTANCE_LEASE_MS - 1);
    expect((await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' }, via: other })).status).toBe(409);
    // A's lease lapses (well before the minute of the lock): B takes the claim over and does the work once.
    s.t.clock.advance(1);
    const retried = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' }, via: other });
    expect(retried.status).toBe(201);
    expect(await s.thingCount()).toBe(1);
    expect((await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' }, via: other })).text).toBe(retried.text);
  });

  it('forgets a key after 24 hours', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const first = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    s.t.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    const replay = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    expect(replay.text).toBe(first.text);
    s.t.clock.advance(1);
    const fresh = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'B' } });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.data).toEqual({ id: 2, name: 'B' });
    expect(await s.claims()).toHaveLength(1);
  });

  it('scopes keys per partner', async () => {
    const s = await setup();
    const p1 = await s.t.partner('One');
    const p2 = await s.t.partner('Two');
    const a = await s.send('/v1/things', { key: p1.keys.private, idem: 'shared', body: { name: 'A' } });
    const b = await s.send('/v1/things', { key: p2.keys.private, idem: 'shared', body: { name: 'A' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await s.thingCount()).toBe(2);
    expect((await s.claims()).map((r) => r.partnerId).sort()).toEqual([p1.id, p2.id].sort());
  });

  it('stores nothing for a failed request, so a retry with the same key runs', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const invalid = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: '' } });
    expect(invalid.status).toBe(400);
    expect(await s.claims()).toEqual([]);

    s.hooks.conflict = true;
    const conflict = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.errors[0].code).toBe('conflict');
    expect(await s.claims()).toEqual([]);

    s.hooks.conflict = false;
    const retry = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'A' } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await s.thingCount()).toBe(1);
  });

  it('leaves neither the work nor a stored answer when the handler throws inside the transaction', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const res = await s.send('/v1/things', { key: p.keys.private, idem: 'k', body: { name: 'crash' } });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ status: 500, data: null, errors: [{ code: 'internal_error' }] });
    expect(res.text).not.toContain('disk on fire');
    expect(await s.thingCount()).toBe(0);
    expect(await s.claims()).toEqual([]);
  });

  it('stores the answer in the transaction of async work: both commit together, or neither', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const first = await s.send('/v1/async-things', { key: p.keys.private, idem: 'async-1', body: { name: 'A' } });
    expect(first.status).toBe(201);
    expect(await s.thingCount()).toBe(1);
    expect(await s.claims()).toMatchObject([{ key: 'async-1', state: 'done', responseStatus: 201, responseBody: first.text }]);
    const again = await s.send('/v1/async-things', { key: p.keys.private, idem: 'async-1', body: { name: 'A' } });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await s.thingCount()).toBe(1);

    // Work that fails after its await leaves neither the thing nor an answer: the key is free again.
    const crashed = await s.send('/v1/async-things', { key: p.keys.private, idem: 'async-2', body: { name: 'late-crash' } });
    expect(crashed.status).toBe(500);
    expect(await s.thingCount()).toBe(1);
    expect((await s.claims()).map((c) => c.key)).toEqual(['async-1']);
  });

  it('runs concurrent async work one transaction at a time, each with its own answer', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const answers = await Promise.all(['A', 'B', 'C', 'D'].map((name, i) => s.send('/v1/async-things', { key: p.keys.private, idem: `many-${i}`, body: { name } })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(answers.map((a) => a.body.data.name)).toEqual(['A', 'B', 'C', 'D']);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(4);
    const stored = new Map((await s.claims()).map((c) => [c.key, c.responseBody]));
    answers.forEach((a, i) => expect(stored.get(`many-${i}`)).toBe(a.text));
  });

  it('stores the answer of a handler that does not use respondInTransaction', async () => {
    const s = await setup();
    const p = await s.t.partner();
    const first = await s.send('/v1/counters', { key: p.keys.private, idem: 'c' });
    const again = await s.send('/v1/counters', { key: p.keys.private, idem: 'c' });
    expect(first.body.data).toEqual({ n: 1 });
    expect(again.text).toBe(first.text);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await s.send('/v1/counters', { key: p.keys.private, idem: 'd' })).body.data).toEqual({ n: 2 });
  });

  it('refuses a malformed key with 400 naming the header', async () => {
    const s = await setup();
    const p = await s.t.partner();
    for (const idem of ['x'.repeat(256), '', 'has space', 'clé']) {
      const res = await s.send('/v1/things', { key: p.keys.private, idem, body: { name: 'A' } });
      expect(res.status, JSON.stringify(idem)).toBe(400);
      expect(res.body).toEqual({
        status: 400,
        data: null,
        errors: [{ code: 'invalid_value', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters', path: 'Idempotency-Key', in: 'header' }],
      });
    }
    expect(await s.thingCount()).toBe(0);
    expect((await s.send('/v1/things', { key: p.keys.private, idem: 'x'.repeat(255), body: { name: 'A' } })).status).toBe(201);
  });
});

describe('purge of expired Idempotency-Keys', () => {
  it('deletes only the rows whose 24 hours are over', async () => {
    const { t } = await setup();
    const now = t.clock.now();
    const row = (key: string, expiresAt: number) => ({
      partnerId: 'ptr_x',
      key,
      requestHash: 'h',
      state: 'done' as const,
      responseStatus: 201,
      responseBody: '{}',
      lockedUntil: expiresAt - IDEMPOTENCY_TTL_MS + IDEMPOTENCY_LOCK_MS,
      createdAt: expiresAt - IDEMPOTENCY_TTL_MS,
      expiresAt,
    });
    await t.db.insert(idempotencyKeys).values([row('old', now - 1), row('edge', now), row('young', now + 1)]);

    expect(await purgeExpiredIdempotencyKeys(t.deps)).toBe(2);
    expect(await t.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).toEqual([{ key: 'young' }]);

    t.clock.advance(1);
    await purgeIdempotencyJob.run(t.deps);
    expect(await t.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, 'young'))).toEqual([]);
  });
});
