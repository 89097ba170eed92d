/**
 * Every time-dependent rule reads a Clock, so tests move time instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch, UTC. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock tests control.
 *
 * @example
 * const clock = new ManualClock('2026-01-01T00:00:00Z');
 * clock.advance(60_000); // one minute later
 */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: number | string = '2026-01-01T00:00:00Z') {
    this.t = typeof start === 'string' ? Date.parse(start) : start;
  }
  now(): number {
    return this.t;
  }
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.t += ms;
  }
  /** Sets the time to an instant. */
  set(at: number | string): void {
    this.t = typeof at === 'string' ? Date.parse(at) : at;
  }
}

/** ISO 8601 in UTC (`2026-05-01T19:00:00.000Z`), the wire form of every instant we store. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Parses an ISO 8601 string with offset to epoch milliseconds (validated upstream by zod). */
export function fromIso(iso: string): number {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new RangeError(`Not an ISO 8601 instant: ${iso}`);
  return t;
}
