import { describe, expect, it } from 'vitest';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { errorResponse } from '../app.js';
import type { AppEnv } from '../context.js';
import { ManualClock } from '../lib/clock.js';
import { ok } from '../lib/envelope.js';
import { ApiError } from '../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonResponse } from '../lib/openapi.js';
import { createTestApp } from '../testing/harness.js';
import { partnerKey } from './auth.js';
import { RateLimiter } from './rate-limit.js';

/** The error `take` throws, or null when the request passes. */
function refusal(limiter: RateLimiter, key: string, limit: number): ApiError | null {
  try {
    limiter.take(key, limit);
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

describe('RateLimiter', () => {
  it('lets 60 requests through in a minute at 60/min and refuses the 61st with Retry-After 1', () => {
    const limiter = new RateLimiter(new ManualClock());
    for (let i = 0; i < 60; i++) expect(refusal(limiter, 'a', 60), `request ${i + 1}`).toBeNull();
    const err = refusal(limiter, 'a', 60);
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.status).toBe(429);
    expect(err!.entries).toEqual([{ code: 'rate_limited', message: 'Too many requests: at most 60 per minute. Retry in 1 s.' }]);
    expect(err!.headers).toEqual({ 'Retry-After': '1' });
  });

  it('allows one more request each time a slot frees up', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 60; i++) limiter.take('a', 60);
    expect(refusal(limiter, 'a', 60)).not.toBeNull();
    clock.advance(999);
    expect(refusal(limiter, 'a', 60)).not.toBeNull();
    clock.advance(1);
    expect(refusal(limiter, 'a', 60)).toBeNull();
    expect(refusal(limiter, 'a', 60)).not.toBeNull();
    // After a quiet minute the whole burst is available again.
    clock.advance(60_000);
    for (let i = 0; i < 60; i++) expect(refusal(limiter, 'a', 60)).toBeNull();
    expect(refusal(limiter, 'a', 60)).not.toBeNull();
  });

  it('says how long to wait when the interval is longer than a second', () => {
    const limiter = new RateLimiter(new ManualClock());
    for (let i = 0; i < 5; i++) limiter.take('a', 5);
    expect(refusal(limiter, 'a', 5)?.headers).toEqual({ 'Retry-After': '12' });
  });

  it('keeps separate keys independent', () => {
    const limiter = new RateLimiter(new ManualClock());
    for (let i = 0; i < 3; i++) limiter.take('a', 3);
    expect(refusal(limiter, 'a', 3)).not.toBeNull();
    for (let i = 0; i < 3; i++) expect(refusal(limiter, 'b', 3)).toBeNull();
    expect(refusal(limiter, 'b', 3)).not.toBeNull();
  });

  it('does not limit at all when the limit is 0', () => {
    const limiter = new RateLimiter(new ManualClock());
    for (let i = 0; i < 1_000; i++) expect(refusal(limiter, 'a', 0)).toBeNull();
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
    expect(res.headers.get('retry-after')).toBe('12');
    expect(await res.json()).toEqual({
      status: 429,
      data: null,
      errors: [{ code: 'rate_limited', message: 'Too many requests: at most 5 per minute. Retry in 12 s.' }],
    });
    // Every key of the partner counts against the same limit.
    expect((await ping(p.keys.public)).status).toBe(429);

    t.clock.advance(12_000);
    expect((await ping(p.keys.private)).status).toBe(200);
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
