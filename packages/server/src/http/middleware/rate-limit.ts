import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { autocommit, jsonPairs, jsonPairsAgg, sharedByProcesses } from '../../db/dialect.js';
import { ApiError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import { rateLimits } from './rate-limit.table.js';

/**
 * Per-key limits of `limit` requests per minute, exactly as partners read them: **at most
 * `limit` requests in any 60 seconds**. A burst of `limit` passes at once; the next request
 * passes once the oldest of them has left the window. At 60/min the 61st request within any
 * minute is refused, however the 60 before it were spread, and `Retry-After` says when the
 * next one fits.
 *
 * A sliding window counted in whole seconds of the clock: each key keeps how many requests it
 * let through in each second (`[second, count]` pairs, at most 61 of them, whatever the
 * limit), and a request made during second `c` passes when seconds `c - 60` to `c` hold fewer
 * than `limit`. A request therefore counts until the end of the 60th second after its own:
 * never less than 60 s (the limit is never exceeded), at most 1 s more (the rounding, which
 * is all a `Retry-After` in whole seconds can say anyway). A log of every request's time
 * would be exact to the millisecond but grows with the limit (1,200 a minute per partner by
 * default); the per-second counts stay under 1 KB per key.
 *
 * Why not the GCRA (token bucket) this replaced: a bucket of `limit` refilled at `limit` per
 * minute lets `limit` through at once and then one more per refill, so up to twice the limit
 * passed within a minute (the 61st sync of a minute answered 200 when the first 60 took over
 * a second). Why not rate-limiter-flexible's PostgreSQL store: it counts fixed windows (twice
 * the limit across a window's edge), reads `Date.now()` where our rules read an injectable
 * clock, and creates its own table outside our migrations.
 *
 * Two stores with the same arithmetic ({@link takeFromWindow}):
 * - {@link MemoryRateLimiter}: one process (SQLite, the embedded default), no I/O;
 * - {@link DatabaseRateLimiter}: the deployment's processes share one row per key in
 *   `rate_limits` (PostgreSQL), so a limit holds for the deployment, not per process.
 */
export interface RateLimiter {
  /**
   * Takes one request for `key`; rejects with a 429 `rate_limited` ApiError (with
   * `Retry-After`) when over the limit.
   * @param limit requests per minute; 0 or less disables the limit.
   */
  take(key: string, limit: number): Promise<void>;
}

/** How many whole seconds of the clock a window spans: the current one and the 60 before it. */
const WINDOW_SECONDS = 61;

/** Requests let through per second of the clock: `[epoch second, count]`, oldest first. */
export type WindowHits = [second: number, count: number][];

/**
 * One request at `now` against a key's window (`hits`, changed in place): expired seconds are
 * dropped, and the request is counted when fewer than `limit` are in the window. When it does
 * not fit, how many whole seconds until it would (the oldest seconds leaving the window).
 *
 * @example
 * const hits: WindowHits = [];
 * takeFromWindow(hits, Date.parse('2026-01-01T00:00:00Z'), 1); // { allowed: true }
 * takeFromWindow(hits, Date.parse('2026-01-01T00:00:30Z'), 1); // { allowed: false, retryAfterSeconds: 31 }
 */
export function takeFromWindow(hits: WindowHits, now: number, limit: number): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
  const second = Math.floor(now / 1000);
  let expired = 0;
  while (expired < hits.length && hits[expired]![0] <= second - WINDOW_SECONDS) expired++;
  if (expired > 0) hits.splice(0, expired);
  let inWindow = 0;
  for (const [, count] of hits) inWindow += count;
  if (inWindow < limit) {
    const last = hits[hits.length - 1];
    if (last && last[0] === second) last[1]++;
    else hits.push([second, 1]);
    return { allowed: true };
  }
  // The oldest seconds leave the window one by one; the request fits once the window holds fewer than `limit`.
  for (const [s, count] of hits) {
    inWindow -= count;
    if (inWindow < limit) return { allowed: false, retryAfterSeconds: Math.max(1, s + WINDOW_SECONDS - second) };
  }
  return { allowed: false, retryAfterSeconds: 1 };
}

function refusal(limit: number, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'rate_limited', `Too many requests: at most ${limit} per minute. Retry in ${retryAfterSeconds} s.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** The limits in this process's memory: for a service that runs as one process (SQLite). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, WindowHits>();
  private checks = 0;

  constructor(private readonly clock: Clock) {}

  take(key: string, limit: number): Promise<void> {
    if (limit <= 0) return Promise.resolve();
    const now = this.clock.now();
    let hits = this.windows.get(key);
    if (!hits) this.windows.set(key, (hits = []));
    const step = takeFromWindow(hits, now, limit);
    if (++this.checks % 10_000 === 0) this.prune(now);
    return step.allowed ? Promise.resolve() : Promise.reject(refusal(limit, step.retryAfterSeconds));
  }

  /** Forgets the keys whose window holds nothing any more. */
  private prune(now: number): void {
    const oldest = Math.floor(now / 1000) - WINDOW_SECONDS;
    for (const [key, hits] of this.windows) if (hits.length === 0 || hits[hits.length - 1]![0] <= oldest) this.windows.delete(key);
  }
}

/**
 * The limits in the database, shared by every process of the deployment (`rate_limits`, this
 * class its only writer). A take is one statement outside any transaction: an upsert that
 * counts the request in the key's window only when the window holds fewer than `limit` (the
 * `where` of its conflict clause, evaluated on the row as the lock gives it), so concurrent
 * takes from any process are serialised by the row's lock and never both pass the last slot.
 * A refusal reads the stored window once more to say when to retry. Keys whose window is
 * empty again are deleted every 10,000 takes.
 */
export class DatabaseRateLimiter implements RateLimiter {
  private checks = 0;

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async take(key: string, limit: number): Promise<void> {
    if (limit <= 0) return;
    const now = this.deps.clock.now();
    const second = Math.floor(now / 1000);
    // One statement committing on its own: no transaction, no change notification (a limit's
    // state is no cache's business).
    const taken = await autocommit(this.deps.db, async (db) => await takeStatement(db).execute({ key, hits: [[second, 1]], second, oldest: second - WINDOW_SECONDS, limit }));
    if (++this.checks % 10_000 === 0) await this.prune(second);
    if (taken.length === 1) return;
    const stored = await this.deps.db.read(async (db) => (await db.select({ hits: rateLimits.hits }).from(rateLimits).where(eq(rateLimits.key, key)))[0]);
    const step = takeFromWindow(stored?.hits ?? [], now, limit);
    // The window emptied between the two statements: this request was refused all the same.
    throw refusal(limit, step.allowed ? 1 : step.retryAfterSeconds);
  }

  /** Deletes the keys whose newest counted second has left the window. */
  private async prune(second: number): Promise<void> {
    const oldest = sql.raw(String(second - WINDOW_SECONDS));
    await autocommit(this.deps.db, async (db) => await db.delete(rateLimits).where(sql`coalesce((select max(s) from ${jsonPairs(rateLimits.hits)}), 0) <= ${oldest}`));
  }
}

/**
 * The take as a prepared statement, named: PostgreSQL plans it once per connection (planning
 * its subqueries cost more than running them: 0.1 ms of 0.2 ms, measured), SQLite keeps the
 * compiled statement. Parameters: `key`; `hits`, the window of a new key (`[[second, 1]]`);
 * `second`, the clock's; `oldest`, the last second already out of the window; `limit`.
 */
function takeStatement(db: Tx) {
  let prepared = takeStatements.get(db);
  if (!prepared) takeStatements.set(db, (prepared = prepareTake(db)));
  return prepared;
}

/**
 * The prepared take per database handle, built once: on PostgreSQL the relaxed pool's handle
 * lives as long as the process, so the statement's SQL is not rebuilt per request (SQLite's
 * handles are per transaction there, and only tests use this class on SQLite).
 */
const takeStatements = new WeakMap<Tx, ReturnType<typeof prepareTake>>();

function prepareTake(db: Tx) {
  const second = sql`cast(${sql.placeholder('second')} as bigint)`;
  const live = sql`(select s, n from ${jsonPairs(rateLimits.hits)} where s > cast(${sql.placeholder('oldest')} as bigint))`;
  const counted = sql`(select s, sum(n) as n from (select s, n from ${live} as live union all select ${second}, cast(1 as bigint)) as added group by s order by s) as counted`;
  const query = db
    .insert(rateLimits)
    .values({ key: sql.placeholder('key'), hits: sql.placeholder('hits') })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: { hits: sql`(select ${jsonPairsAgg(sql`s`, sql`n`)} from ${counted})` },
      // Evaluated on the row as its lock gives it: a concurrent take's count is seen.
      setWhere: sql`(select coalesce(sum(n), 0) from ${live} as live) < cast(${sql.placeholder('limit')} as bigint)`,
    })
    .returning({ key: rateLimits.key });
  // The builders are typed as SQLite's (db/schema-builders.ts), whose prepare takes no name; PostgreSQL's needs one.
  return (query.prepare as (name: string) => ReturnType<typeof query.prepare>).call(query, 'rate_limit_take');
}

/** The rate limiter for the service's database: shared by the processes of a deployment when they can be several. */
export function createRateLimiter(deps: { db: Db; clock: Clock }): RateLimiter {
  return sharedByProcesses ? new DatabaseRateLimiter(deps) : new MemoryRateLimiter(deps.clock);
}
