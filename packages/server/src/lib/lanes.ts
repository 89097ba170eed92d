/**
 * Slots for outside calls shared between keys (partners): at most `perKey` calls of one key and
 * `overall` calls in all in flight at once. A key whose calls hang holds its own `perKey` slots
 * and nothing else, so the other keys go on with the rest of `overall`.
 *
 * Synchronous bookkeeping only (no timers, no queue of waiters): callers take a slot with
 * `tryTake`, give it back with the function it returns, and wait for `nextRelease()` when
 * they want to try again.
 *
 * @example
 * const lanes = new Lanes({ perKey: 4, overall: 32 });
 * const release = lanes.tryTake(partnerId);
 * if (release) void send(message).finally(release);
 * else await lanes.nextRelease();
 */
export class Lanes {
  readonly perKey: number;
  readonly overall: number;
  private readonly busy = new Map<string, number>();
  private total = 0;
  private released: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(opts: { perKey: number; overall: number }) {
    this.perKey = Math.max(1, Math.floor(opts.perKey));
    this.overall = Math.max(1, Math.floor(opts.overall));
  }

  /** Calls in flight: of `key`, or in all. */
  inFlight(key?: string): number {
    return key === undefined ? this.total : (this.busy.get(key) ?? 0);
  }

  /** Whether a call of `key` could start now. */
  canTake(key: string): boolean {
    return this.total < this.overall && this.inFlight(key) < this.perKey;
  }

  /** Takes a slot of `key`; returns its release (harmless twice), or null when `key` or the whole is full. */
  tryTake(key: string): (() => void) | null {
    if (!this.canTake(key)) return null;
    this.busy.set(key, this.inFlight(key) + 1);
    this.total++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = this.inFlight(key) - 1;
      if (left > 0) this.busy.set(key, left);
      else this.busy.delete(key);
      this.total--;
      const released = this.released;
      this.released = null;
      released?.resolve();
    };
  }

  /** Settles at the next release of any slot. */
  nextRelease(): Promise<void> {
    if (!this.released) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.released = { promise, resolve };
    }
    return this.released.promise;
  }
}

/**
 * Settles after `ms` milliseconds of real time, at the next release of `lanes`, or when `signal`
 * aborts, whichever comes first; the timer is cleared either way (and never keeps the process up).
 */
export async function untilReleaseOr(lanes: Lanes, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      lanes.nextRelease(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, ms));
        timer.unref();
      }),
      new Promise<void>((resolve) => {
        if (!signal) return;
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
