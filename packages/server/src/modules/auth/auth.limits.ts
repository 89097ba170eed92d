import type { Clock } from '../../lib/clock.js';

/**
 * At most `limit` events per key within any `windowMs` (a sliding log: the instants of the
 * last `limit` events per key). Used for the one-time-password limits, which are counted
 * over 15 minutes: the shared `RateLimiter` (middleware/rate-limit.ts) counts per minute
 * with a burst of one minute, so it cannot say "20 per 15 minutes" (a fractional
 * per-minute limit refuses even the first request).
 *
 * In memory, per process, like the shared limiter; the per-identifier limit of one-time
 * passwords is counted in the database instead (see AuthService.requestOtp), so it holds
 * across processes.
 */
export class SlidingWindowLimiter {
  private readonly log = new Map<string, number[]>();
  private takes = 0;
  /** The longest window asked for: pruning never forgets an event another key still counts. */
  private longest = 0;

  constructor(private readonly clock: Clock) {}

  /**
   * Records one event for `key` when allowed. Returns 0 when allowed, otherwise the
   * milliseconds until the next event would be allowed (nothing is recorded then).
   */
  take(key: string, limit: number, windowMs: number): number {
    const now = this.clock.now();
    this.longest = Math.max(this.longest, windowMs);
    const since = now - windowMs;
    const times = (this.log.get(key) ?? []).filter((t) => t > since);
    if (times.length >= limit) {
      this.log.set(key, times);
      return Math.max(1, times[times.length - limit]! + windowMs - now);
    }
    times.push(now);
    this.log.set(key, times);
    if (++this.takes % 5_000 === 0) this.prune(now);
    return 0;
  }

  private prune(now: number): void {
    for (const [key, times] of this.log) if ((times[times.length - 1] ?? 0) <= now - this.longest) this.log.delete(key);
  }
}
