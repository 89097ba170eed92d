import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { autocommit, sharedByProcesses } from '../db/dialect.js';
import { ApiError } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import { rateLimits } from './rate-limit.table.js';

/**
 * Per-key limits of `limit` requests per minute, as a GCRA (generic cell rate algorithm, the
 * token bucket in one number per key, its "theoretical arrival time"): a burst of `limit` is
 * allowed, then one request every `60s / limit`. The 61st request in a minute at 60/min is
 * refused, and `Retry-After` says exactly when the next one is allowed.
 *
 * Two stores with the same arithmetic ({@link gcra}):
 * - {@link MemoryRateLimiter}: one process (SQLite, the embedded default), no I/O;
 * - {@link DatabaseRateLimiter}: the deployment's processes share one row per key in
 *   `rate_limits` (PostgreSQL), so a limit holds for the deployment, not per process.
 *
 * Why not rate-limiter-flexible's PostgreSQL store: it counts fixed windows (a client may send
 * twice the limit across a window's edge), reads `Date.now()` where our rules read an injectable
 * clock, and creates its own table outside our migrations. GCRA is one conditional upsert here.
 */
export interface RateLimiter {
  /**
   * Takes one request for `key`; rejects with a 429 `rate_limited` ApiError (with
   * `Retry-After`) when over the limit.
   * @param limit requests per minute; 0 or less disables the limit.
   */
  take(key: string, limit: number): Promise<void>;
}

/** The period every limit counts over. */
const MINUTE = 60_000;

/**
 * One GCRA step: whether a request at `now` fits when the key's arrival time is `tat` (null: a
 * new key), and the arrival time to store when it does.
 */
export function gcra(tat: number | null, now: number, limit: number): { allowed: true; tat: number } | { allowed: false; retryAfterSeconds: number } {
  const interval = MINUTE / limit;
  const next = Math.max(tat ?? now, now) + interval;
  if (next - now > MINUTE + 1e-6) return { allowed: false, retryAfterSeconds: retryAfter(next - MINUTE - now) };
  return { allowed: true, tat: next };
}

function retryAfter(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function refusal(limit: number, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'rate_limited', `Too many requests: at most ${limit} per minute. Retry in ${retryAfterSeconds} s.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** The limits in this process's memory: for a service that runs as one process (SQLite). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly tat = new Map<string, number>();
  private checks = 0;

  constructor(private readonly clock: Clock) {}

  take(key: string, limit: number): Promise<void> {
    if (limit <= 0) return Promise.resolve();
    const now = this.clock.now();
    const step = gcra(this.tat.get(key) ?? null, now, limit);
    if (!step.allowed) return Promise.reject(refusal(limit, step.retryAfterSeconds));
    this.tat.set(key, step.tat);
    if (++this.checks % 10_000 === 0) this.prune(now);
    return Promise.resolve();
  }

  private prune(now: number): void {
    for (const [key, t] of this.tat) if (t <= now) this.tat.delete(key);
  }
}

/**
 * The limits in the database, shared by every process of the deployment (`rate_limits`, this
 * class its only writer). A take is one statement outside any transaction: an upsert that moves
 * the key's arrival time on only when the request fits (the `where` of its conflict clause), so
 * concurrent takes from any process are serialised by the row's lock and never both pass the
 * last slot. A refusal reads the stored time once more to say when to retry. Keys whose bucket
 * is full again are deleted every 10,000 takes.
 */
export class DatabaseRateLimiter implements RateLimiter {
  private checks = 0;

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async take(key: string, limit: number): Promise<void> {
    if (limit <= 0) return;
    const now = this.deps.clock.now();
    const interval = MINUTE / limit;
    // One statement committing on its own: no transaction, no change notification (a limit's
    // state is no cache's business).
    const taken = await autocommit(this.deps.db, async (db) => {
      const moved = sql`(case when ${rateLimits.tat} > ${now} then ${rateLimits.tat} else ${now} end) + ${interval}`;
      return await db
        .insert(rateLimits)
        .values({ key, tat: now + interval })
        .onConflictDoUpdate({ target: rateLimits.key, set: { tat: moved }, setWhere: sql`${moved} - ${now} <= ${MINUTE + 1e-6}` })
        .returning({ tat: rateLimits.tat });
    });
    if (++this.checks % 10_000 === 0) await this.prune(now);
    if (taken.length === 1) return;
    const stored = await this.deps.db.read(async (db) => (await db.select({ tat: rateLimits.tat }).from(rateLimits).where(eq(rateLimits.key, key)))[0]);
    const step = gcra(stored?.tat ?? null, now, limit);
    // The bucket emptied between the two statements: this request was refused all the same.
    throw refusal(limit, step.allowed ? 1 : step.retryAfterSeconds);
  }

  private async prune(now: number): Promise<void> {
    await autocommit(this.deps.db, async (db) => await db.delete(rateLimits).where(sql`${rateLimits.tat} <= ${now}`));
  }
}

/** The rate limiter for the service's database: shared by the processes of a deployment when they can be several. */
export function createRateLimiter(deps: { db: Db; clock: Clock }): RateLimiter {
  return sharedByProcesses ? new DatabaseRateLimiter(deps) : new MemoryRateLimiter(deps.clock);
}
