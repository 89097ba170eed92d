import type { AppDeps } from '../context.js';

/**
 * A piece of scheduled work. `run` must never assume it is the only process (see README).
 *
 * In its own file so that a job imports the type without importing the scheduler, which
 * imports every job (no cycle).
 */
export interface Job {
  name: string;
  /** How often the job is looked at, in milliseconds. */
  everyMs: number;
  run: (deps: AppDeps, ctx?: JobContext) => Promise<void> | void;
}

/** What the scheduler hands a run besides the deps. */
export interface JobContext {
  /**
   * Aborted when the scheduler stops (the shutdown). A run that keeps going while it has work in
   * hand (webhook deliveries, feed polls) starts nothing new from then on and returns once what
   * it started has finished; `stop()` waits for that.
   */
  signal: AbortSignal;
}
