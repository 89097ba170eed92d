import type { AppDeps } from '../context.js';

/**
 * A piece of scheduled work. `run` must never assume it is the only process (docs/operating.md, "Several processes on PostgreSQL").
 *
 * In its own file so that a job imports the type without importing the scheduler, which
 * imports every job (no cycle).
 */
export interface Job {
  name: string;
  /** How often the job is looked at, in milliseconds. */
  everyMs: number;
  run: (deps: AppDeps, ctx?: JobContext) => Promise<void> | void;
  /**
   * Who runs it when the service runs as several processes:
   * - `process` (the default): every process on its own timer. For queue consumers whose rows
   *   are claimed one by one (ingestion, webhooks, e-mail, feed polls: more processes drain
   *   faster) and for a process's own lease.
   * - `deployment`: once per period in the whole deployment, by whichever process ticks first
   *   after it is due (jobs/job-runs.ts). For scans over the tables (expiries, purges, unlocks,
   *   payouts, wishlists), which N processes would otherwise run N times over the same rows.
   */
  scope?: 'process' | 'deployment';
  /**
   * A topic that starts a run at once, besides the timer: a transaction that gives the job new
   * work names it (`wakeWorkers(tx, topic)`, db/dialect.ts), and every process's scheduler hears
   * it as the transaction commits (PostgreSQL). A wake during a run starts another run as soon
   * as that one ends. The timer stays, for work a lost notification or a lapsed lease left.
   */
  wakeOn?: string;
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
