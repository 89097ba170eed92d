import { describe, expect, it } from 'vitest';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { errorResponse } from '../../app.js';
import type { AppEnv } from '../../context.js';
import { ManualClock } from '../../lib/clock.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonResponse } from '../openapi.js';
import { createTestApp, testDb } from '../../testing/harness.js';
import { partnerKey } from './auth.js';
import { createRateLimiter, DatabaseRateLimiter, MemoryRateLimiter, type RateLimiter } from './rate-limit.js';
import { ENGINE } from '../../db/engine.js';
import { autocommit, selectRows } from '../../db/dialect.js';
import { sql } from 'drizzle-orm';
import { sameDatabase } from '../../testing/postgres.js';

/** The error `take` rejects with, or null when the request passes. */
async function refusal(limiter: RateLimiter, key: string, limit: number): Promise<ApiError | null> {
  try {
    await limiter.take(key, limit);
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

const stores: [string, (clock: ManualClock) => RateLimiter][] = [
  ['in memory', (clock) => new MemoryRateLimiter(clock)],
  // On this run's engine: SQLite in the server project, PostgreSQL in server-pg.
  ['in the database', (clock) => new DatabaseRateLimiter({ db: testDb(), clock })],
];

describe.each(stores)('RateLimiter %s', (_name, make) => {
  it('lets 60 requests through in a minute at 60/min and refuses the 61st, with Retry-After until the first leaves the window', async () => {
    const limiter = make(new ManualClock());
    for (let i = 0; i < 60; i++) expect(await refusal(limiter, 'a', 60), `request ${i + 1}`).toBeNull();
    const err = await refusal(limiter, 'a', 60);
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.status).toBe(429);
    // The 60 were made during the clock's second 0: they count until the end of second 60.
    expect(err!.entries).toEqual([{ code: 'rate_limited', message: 'Too many requests: at most 60 per minute. Retry in 61 s.' }]);
    expect(err!.headers).toEqual({ 'Retry-After': '61' });
  });

  it('refuses the 61st request within any minute, however the 60 before it were spread (no refill during the minute)', async () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    // 60 requests over 59 seconds, one a second: a token bucket would have refilled 59 of them.
    for (let i = 0; i < 60; i++) {
      expect(await refusal(limiter, 'a', 60), `request ${i + 1}`).toBeNull();
      if (i < 59) clock.advance(1_000);
    }
    expect((await refusal(limiter, 'a', 60))?.headers).toEqual({ 'Retry-After': '2' });
    clock.advance(999);
    expect(await refusal(limiter, 'a', 60)).not.toBeNull();
    // Second 61: the request of second 0 has left the window, one fits again, and only one.
    clock.advance(1_001);
    expect(await refusal(limiter, 'a', 60)).toBeNull();
    expect((await refusal(limiter, 'a', 60))?.headers).toEqual({ 'Retry-After': '1' });
    // After a quiet minute the whole limit is available at once again.
    clock.advance(61_000);
    for (let i = 0; i < 60; i++) expect(await refusal(limiter, 'a', 60)).toBeNull();
    expect(await refusal(limiter, 'a', 60)).not.toBeNull();
  });

  it('never lets more than the limit through in any 60 seconds of a steady stream of attempts', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00.250Z'));
    const limiter = make(clock);
    const passed: number[] = [];
    // An attempt every 137 ms for three minutes (about 1,300 attempts at 10/min).
    for (let t = 0; t < 180_000; t += 137) {
      if ((await refusal(limiter, 'steady', 10)) === null) passed.push(clock.now());
      clock.advance(137);
    }
    for (let i = 10; i < passed.length; i++) expect(passed[i]! - passed[i - 10]!, `pass ${i}`).toBeGreaterThanOrEqual(60_000);
    // And it lets the limit through: within a second of a strict 60 s window.
    for (let i = 10; i < passed.length; i++) expect(passed[i]! - passed[i - 10]!).toBeLessThanOrEqual(61_000);
    expect(passed.length).toBeGreaterThanOrEqual(29);
  });

  it('says how long to wait', async () => {
    const clock = new ManualClock();
    const limiter = make(clock);
    for (let i = 0; i < 5; i++) await limiter.take('a', 5);
    clock.advance(12_500);
    expect((await refusal(limiter, 'a', 5))?.headers).toEqual({ 'Retry-After': '49' });
    // Requests spread over several seconds: the wait is until enough of the oldest have left.
    for (let i = 0; i < 3; i++) {
      await limiter.take('b', 3);
      clock.advance(10_000);
    }
    expect((await refusal(limiter, 'b', 3))?.headers).toEqual({ 'Retry-After': '31' });
  });

  it('keeps separate keys independent', async () => {
    const limiter = make(new ManualClock());
    for (let i = 0; i < 3; i++) await limiter.take('a', 3);
    expect(await refusal(limiter, 'a', 3)).not.toBeNull();
    for (let i = 0; i < 3; i++) expect(await refusal(limiter, 'b', 3)).toBeNull();
    expect(await refusal(limiter, 'b', 3)).not.toBeNull();
  });

  it('does not limit at all when the limit is 0', async () => {
    const limiter = make(new ManualClock());
    for (let i = 0; i < 1_000; i++) expect(await refusal(limiter, 'a', 0)).toBeNull();
  });

  it('lets exactly the limit through when the requests come at once', async () => {
    const limiter = make(new ManualClock());
    const answers = await Promise.all(Array.from({ length: 40 }, () => refusal(limiter, 'burst', 25)));
    expect(answers.filter((a) => a === null)).toHaveLength(25);
    expect(answers.filter((a) => a?.status === 429)).toHaveLength(15);
  });
});

describe('DatabaseRateLimiter shared by two processes', () => {
  it('holds one limit for both: what one took, the other cannot', async () => {
    const clock = new ManualClock();
    const db = testDb();
    // On PostgreSQL a second pool and change feed, as another process has; on SQLite the same handle.
    const other = ENGINE === 'postgres' ? sameDatabase(db) : db;
    const a = new DatabaseRateLimiter({ db, clock });
    const b = new DatabaseRateLimiter({ db: other, clock });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => refusal(i % 2 ? a : b, 'sync-tickets:p1', 20)));
    expect(answers.filter((x) => x === null)).toHaveLength(20);
    expect((await refusal(a, 'sync-tickets:p1', 20))?.headers).toEqual({ 'Retry-After': '61' });
    clock.advance(61_000);
    const again = await Promise.all(Array.from({ length: 30 }, (_, i) => refusal(i % 2 ? a : b, 'sync-tickets:p1', 20)));
    expect(again.filter((x) => x === null)).toHaveLength(20);
  });

  it('commits without waiting for the WAL flush on PostgreSQL (its own small pool), through the single writer on SQLite', async () => {
    const db = testDb();
    const setting = await autocommit(db, async (tx) => await selectRows<{ value: string }>(tx, ENGINE === 'postgres' ? sql`select current_setting('synchronous_commit') as value` : sql`select 'single writer' as value`));
    expect(setting).toEqual([{ value: ENGINE === 'postgres' ? 'off' : 'single writer' }]);
    // The service's own connections keep durable commits.
    if (ENGINE === 'postgres') expect(await db.read(async (tx) => await selectRows(tx, sql`select current_setting('synchronous_commit') as value`))).toEqual([{ value: 'on' }]);
  });

  it('is the store of a deployment whose processes share the database', () => {
    const limiter = createRateLimiter({ db: testDb(), clock: new ManualClock() });
    expect(limiter).toBeInstanceOf(ENGINE === 'postgres' ? DatabaseRateLimiter : MemoryRateLimiter);
  });
});

describe('per-partner API rate limit over HTTP', () => {
  /** A small app with one partner route behind partnerKey, which applies the limit. */
  function setup() {
    const t = createTestApp({ rateLimitPerMinute: 5 });
    const router = createRouter();
    router.openapi(
      createRoute({
        method: 'get',
        path: '/v1/ping',
        operationId: 'ping',
        tags: ['Test'],
        summary: 'Ping',
        middleware: [partnerKey(t.deps, ['private', 'public'])],
        responses: { 200: jsonResponse(envelope(z.literal('pong')), 'Pong'), ...errorResponses() },
      }),
      (c) => c.json(ok('pong' as const), 200),
    );
    const app = new OpenAPIHono<AppEnv>();
    app.onError((e, c) => errorResponse(e, c, t.deps));
    app.route('/', router);
    const ping = (key: string) => app.request('/v1/ping', { headers: { authorization: key } });
    return { t, ping };
  }

  it('answers the 6th request in a minute with 429, Retry-After and the envelope', async () => {
    const { t, ping } = setup();
    const p = await t.partner();
    for (let i = 0; i < 5; i++) expect((await ping(p.keys.private)).status).toBe(200);
    const res = await ping(p.keys.private);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('61');
    expect(await res.json()).toEqual({
      status: 429,
      data: null,
      errors: [{ code: 'rate_limited', message: 'Too many requests: at most 5 per minute. Retry in 61 s.' }],
    });
    // Every key of the partner counts against the same limit.
    expect((await ping(p.keys.public)).status).toBe(429);

    t.clock.advance(60_000);
    expect((await ping(p.keys.private)).status).toBe(429);
    t.clock.advance(1_000);
    for (let i = 0; i < 5; i++) expect((await ping(p.keys.private)).status).toBe(200);
    expect((await ping(p.keys.private)).status).toBe(429);
  });

  it('limits each partner on its own', async () => {
    const { t, ping } = setup();
    const busy = await t.partner('Busy');
    const calm = await t.partner('Calm');
    for (let i = 0; i < 6; i++) await ping(busy.keys.private);
    expect((await ping(busy.keys.private)).status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await ping(calm.keys.private)).status).toBe(200);
  });

  it('uses the partner’s own setting, where 0 disables the limit', async () => {
    const { t, ping } = setup();
    const unlimited = await t.partner('Unlimited', { rateLimitPerMinute: 0 });
    for (let i = 0; i < 50; i++) expect((await ping(unlimited.keys.private)).status).toBe(200);
    const generous = await t.partner('Generous', { rateLimitPerMinute: 10 });
    for (let i = 0; i < 10; i++) expect((await ping(generous.keys.private)).status).toBe(200);
    expect((await ping(generous.keys.private)).status).toBe(429);
  });

  it('does not count requests refused before authentication', async () => {
    const { t, ping } = setup();
    const p = await t.partner();
    for (let i = 0; i < 10; i++) expect((await ping('sk_unknown')).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await ping(p.keys.private)).status).toBe(200);
  });
});
