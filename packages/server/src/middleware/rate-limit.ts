import { ApiError } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';

/**
 * A per-key limit of `limit` requests per minute, as a GCRA (generic cell rate
 * algorithm, the token bucket in one number per key): a burst of `limit` is allowed,
 * then one request every `60s / limit`. The 61st request in a minute at 60/min is
 * refused, and `Retry-After` says exactly when the next one is allowed.
 *
 * The state lives in memory because it is read on every request; with several server
 * processes each process limits on its own (documented in the README). The interface is
 * the seam for a shared store.
 */
export class RateLimiter {
  private readonly tat = new Map<string, number>();
  private checks = 0;

  constructor(private readonly clock: Clock) {}

  /**
   * Takes one request for `key`; throws a 429 `rate_limited` ApiError when over the limit.
   * @param limit requests per minute; 0 or less disables the limit.
   */
  take(key: string, limit: number): void {
    if (limit <= 0) return;
    const now = this.clock.now();
    const interval = 60_000 / limit;
    const burst = 60_000; // limit * interval
    const tat = Math.max(this.tat.get(key) ?? now, now);
    const next = tat + interval;
    if (next - now > burst + 1e-6) {
      const retryMs = next - burst - now;
      const retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
      throw new ApiError(429, 'rate_limited', `Too many requests: at most ${limit} per minute. Retry in ${retryAfter} s.`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    this.tat.set(key, next);
    if (++this.checks % 10_000 === 0) this.prune(now);
  }

  private prune(now: number): void {
    for (const [key, t] of this.tat) if (t <= now) this.tat.delete(key);
  }
}
