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
  run: (deps: AppDeps) => Promise<void> | void;
}
