import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type MessagePort } from 'node:worker_threads';
import type { AppConfig } from '../lib/config.js';
import type { AppDeps } from '../context.js';
import type { Db } from '../db/client.js';
import type { Transact } from '../db/transaction.js';
import { autoCheckpointPages, checkpointPassive } from '../db/dialect.js';

/**
 * The ingestion worker thread: drains the queue of POST /v1/tickets on the second core
 * while the main thread serves HTTP.
 *
 * Why: applying a 1,000-ticket job takes tens of milliseconds of SQLite and JavaScript.
 * Drained in-process (tickets.job.ts), that work and the HTTP requests share one thread,
 * so requests wait behind jobs and the second core idles.
 *
 * How:
 * - main.ts starts the thread when the database is a file (an in-memory database cannot be
 *   shared; tests and `:memory:` keep the in-process drain). The thread opens its own
 *   better-sqlite3 connection to the same file (WAL: readers never block; one writer at a
 *   time, `busy_timeout` waits) and builds the same services with `buildDeps`, so it runs
 *   the rounds of `TicketsIngest.drain` the in-process job and the tests run (the same
 *   reads and transactions, on the thread's own connection), with the same crash safety (a job is applied and marked done in one
 *   transaction; after a crash it is still queued, and the next drain applies it whole).
 * - Once the thread is ready, the queue is handed to it (`TicketsIngest.handOffQueue`):
 *   the in-process job stands down, and each enqueue wakes the thread with a message
 *   right after its transaction commits (no 25 ms poll). The thread also polls every
 *   `POLL_MS` as a fallback (a lost wake-up).
 * - SQLite has one writer at a time, and every transaction takes the write lock when it
 *   begins (db/client.ts), so a job holds it for its whole transaction. Left to SQLite's
 *   busy handler (sleeps of 1, 2, 5, 10 … ms), a request's transaction would wake up at
 *   random moments and could lose the lock to job after job for seconds. So while the
 *   thread runs, the main connection's transactions take turns with it (`takeTurns`,
 *   `WriterGate`): a transaction announces itself and waits exactly until the current job
 *   commits; the thread starts no new job while one is announced. Waits are bounded, and
 *   SQLite's locking stays the guarantee: this only schedules. Single statements outside
 *   a transaction still rely on `busy_timeout`.
 * - POST /v1/tickets, the volume path, does not block the event loop for its turn: it
 *   validates and serializes the job first, then awaits `WriterGate.turn` (Atomics.waitAsync)
 *   while the event loop parses and validates the next requests, and its transaction only
 *   inserts the row. Measured with bench/tickets-ingest.ts, blocking waits (`Atomics.wait`)
 *   took ~60% of the main thread's time.
 * - The thread reads and parses the next due jobs before it takes the lock (a read of the
 *   WAL snapshot), which gives the main thread's waiting writes their window without the
 *   thread idling, then applies up to `JOBS_PER_TRANSACTION` jobs per transaction
 *   (`TicketsIngest.drain` with the gate around each transaction).
 * - WAL checkpoints run on the main thread between its transactions, not inside the commits
 *   of either thread (`checkpointOutsideTurns`, tickets.worker.thread.ts).
 * - If the thread dies, the queue is handed back to the in-process job; the job the
 *   thread was applying rolled back with it and is still queued.
 *
 * The thread's entry is `tickets.worker.thread.ts`. The service runs from TypeScript
 * sources under tsx (`tsx src/main.ts`, `node --import tsx`, vitest); loader hooks registered
 * at run time belong to the thread that registered them, so the thread starts from a small
 * ES module that registers tsx first (`tsx/esm/api`) and then imports the entry.
 */

/** How often the thread looks at the queue without being woken. */
export const POLL_MS = 1000;
/** Time budget of one drain in the thread (it serves no HTTP; the budget only bounds a tick). */
const DRAIN_BUDGET_MS = 500;
/** The longest the thread lets a job wait for announced transactions of the main thread. */
const GATE_MAX_WAIT_MS = 50;
/** The longest a main-thread transaction waits for the thread's current job (then SQLite's busy handler takes over). */
const TURN_MAX_WAIT_MS = 1000;
/** How often the main connection checkpoints the WAL while the thread runs (see `checkpointOutsideTurns`). */
const CHECKPOINT_EVERY_MS = 100;
/** The thread's connection checkpoints the WAL only past this many pages (4 KiB each); see tickets.worker.thread.ts. */
export const WORKER_WAL_AUTOCHECKPOINT_PAGES = 16_000;
/** How long main.ts waits for the thread to come up before serving anyway. */
const READY_TIMEOUT_MS = 15_000;
/** How long `stop` waits for the thread to finish its job before terminating it. */
const STOP_TIMEOUT_MS = 30_000;

/** What the thread needs to build its services (plain data: it is copied to the thread). */
export interface IngestionWorkerData {
  databasePath: string;
  secretKey: string;
  logLevel: string;
  config: AppConfig;
  /** The `WriterGate` counters, shared with the main thread. */
  gate: SharedArrayBuffer;
}

type ToThread = { type: 'wake' } | { type: 'stop' };
type FromThread = { type: 'ready' };

/**
 * Turn-taking between the main thread and the worker thread for SQLite's single writer,
 * over two counters in shared memory: transactions announced by the main thread, and
 * whether the worker is in a job. The main thread announces, then waits until the worker
 * is between jobs; the worker marks itself in a job, then backs off while anything is
 * announced (both check after writing their own mark, so one of them always sees the
 * other). Every wait is bounded.
 */
export class WriterGate {
  private readonly cell: Int32Array;
  constructor(buffer: SharedArrayBuffer) {
    this.cell = new Int32Array(buffer);
  }

  static buffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  }

  /** Main thread: a transaction is coming; the worker starts no new job until `withdraw`. */
  announce(): void {
    Atomics.add(this.cell, ANNOUNCED, 1);
  }

  /**
   * Main thread, without blocking it: announces a write and settles (within `maxMs`) once
   * the worker's current job, if any, has committed. The worker starts no new job until the
   * returned function is called. Meanwhile the event loop goes on (parsing and validating
   * other requests), where a blocking wait would stall it for the whole job.
   */
  async turn(maxMs: number): Promise<() => void> {
    this.announce();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.withdraw();
    };
    try {
      const deadline = performance.now() + maxMs;
      while (Atomics.load(this.cell, IN_JOB) === 1) {
        const left = deadline - performance.now();
        if (left <= 0) break;
        const wait = waitAsync(this.cell, IN_JOB, 1, left);
        if (wait.async) await wait.value;
      }
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  /** Main thread: the announced transaction is over (committed or not). */
  withdraw(): void {
    if (Atomics.sub(this.cell, ANNOUNCED, 1) === 1) Atomics.notify(this.cell, ANNOUNCED);
  }

  /** Worker: before a job, lets announced transactions go first (waiting at most `maxMs`), then marks itself in a job. */
  enterJob(maxMs: number): void {
    const deadline = performance.now() + maxMs;
    for (;;) {
      // Mark first, then look: a transaction announced at the same moment sees the mark and waits, or is seen.
      Atomics.store(this.cell, IN_JOB, 1);
      const announced = Atomics.load(this.cell, ANNOUNCED);
      if (announced <= 0) return;
      const left = deadline - performance.now();
      if (left <= 0) return;
      this.leaveJob();
      Atomics.wait(this.cell, ANNOUNCED, announced, left);
    }
  }

  /** Worker: the job committed (or there was none). */
  leaveJob(): void {
    Atomics.store(this.cell, IN_JOB, 0);
    Atomics.notify(this.cell, IN_JOB);
  }
}

const ANNOUNCED = 0;
const IN_JOB = 1;

/** `Atomics.waitAsync` (Node 16+; typed only in the ES2024 lib, the repo compiles against ES2023). */
const waitAsync = (Atomics as unknown as {
  waitAsync(cell: Int32Array, index: number, value: number, timeout: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync.bind(Atomics);

/** A running ingestion worker thread, as main.ts holds it. */
export interface IngestionWorker {
  /** Settles once the thread drains the queue (or has failed to start: the in-process job keeps it). */
  readonly ready: Promise<void>;
  /** Stops the thread after its current job and gives the queue back to the in-process job. */
  stop(): Promise<void>;
}

/**
 * Starts the ingestion worker thread over the file database at `databasePath`.
 *
 * @example
 * const ingestion = startIngestionWorker(deps, { databasePath: env.DATABASE_PATH, secretKey: env.SECRET_KEY, logLevel: env.LOG_LEVEL });
 * await ingestion.ready;
 * // … on shutdown
 * await ingestion.stop();
 */
export function startIngestionWorker(deps: AppDeps, opts: { databasePath: string; secretKey: string; logLevel: string }): IngestionWorker {
  const buffer = WriterGate.buffer();
  const gate = new WriterGate(buffer);
  const data: IngestionWorkerData = { ...opts, config: deps.config, gate: buffer };
  const worker = new Worker(entryUrl(), { workerData: data, name: 'tickets-ingestion' });
  let stopping = false;
  let handedOff = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  let restoreTransactions = () => {};
  const giveBack = () => {
    if (handedOff) deps.ticketsIngest.handOffQueue(null);
    handedOff = false;
    restoreTransactions();
    restoreTransactions = () => {};
  };
  const ready = new Promise<void>((resolve) => {
    worker.on('message', (m: FromThread) => {
      if (m.type !== 'ready' || stopping) return;
      const undoTurns = takeTurns(deps.db, gate);
      const undoCheckpoints = checkpointOutsideTurns(deps, CHECKPOINT_EVERY_MS);
      restoreTransactions = () => {
        undoCheckpoints();
        undoTurns();
      };
      deps.ticketsIngest.handOffQueue(
        () => worker.postMessage({ type: 'wake' } satisfies ToThread),
        () => gate.turn(TURN_MAX_WAIT_MS),
      );
      handedOff = true;
      deps.logger.info('ticket ingestion drains on a worker thread');
      resolve();
    });
    void exited.then(resolve);
    // A thread that never comes up must not hold the service's start: the in-process job drains meanwhile.
    setTimeout(resolve, READY_TIMEOUT_MS).unref();
  });
  worker.on('error', (err) => deps.logger.error({ err: { message: err.message, stack: err.stack } }, 'ingestion worker failed'));
  worker.once('exit', (code) => {
    giveBack();
    if (!stopping) deps.logger.error({ code }, 'ingestion worker stopped; the queue is drained in-process');
  });

  return {
    ready,
    stop: async () => {
      if (stopping) return;
      stopping = true;
      giveBack();
      worker.postMessage({ type: 'stop' } satisfies ToThread);
      const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Makes the main connection's transactions take turns with the worker thread (see
 * `WriterGate`): each outermost `db.transact` announces itself, waits without blocking the
 * event loop for the worker's current job to commit (`WriterGate.turn`), runs, and holds its
 * turn until it has committed or rolled back, awaits included. Only the root's `transact` is
 * replaced: a transaction's handle has its own (savepoints of a transaction that already has
 * its turn). Installed on the database object while the thread runs; returns the function
 * that removes it.
 */
export function takeTurns(db: Db, gate: WriterGate): () => void {
  const originalTransact = db.transact;
  db.transact = (<T>(fn: (tx: Db) => T | Promise<T>): Promise<T> => gate.turn(TURN_MAX_WAIT_MS).then((release) => originalTransact(fn).finally(release))) as Transact<Db>;
  return () => {
    db.transact = originalTransact;
  };
}

/**
 * Moves the main connection's WAL checkpoints out of its write transactions while the thread
 * runs: SQLite runs an automatic checkpoint inside the COMMIT that crosses its threshold
 * (1,000 pages by default), so the main thread's short accept transactions would copy
 * megabytes of the thread's pages back into the database file while the thread waits for
 * them to end (`WriterGate`). Instead the main connection checkpoints every `everyMs`
 * (PASSIVE: it takes no write lock and never blocks the thread's writes), on its own core;
 * the thread's connection checkpoints only past `WORKER_WAL_AUTOCHECKPOINT_PAGES`. Returns
 * the function that restores the connection's automatic checkpoints.
 */
export function checkpointOutsideTurns(deps: AppDeps, everyMs: number): () => void {
  const client = deps.db.$client;
  const before = autoCheckpointPages(deps.db);
  autoCheckpointPages(deps.db, 0);
  const timer = setInterval(() => {
    try {
      checkpointPassive(deps.db);
    } catch (err) {
      deps.logger.warn({ err: { message: (err as Error).message } }, 'WAL checkpoint failed');
    }
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (client.open) autoCheckpointPages(deps.db, before);
  };
}

/**
 * The thread's entry (src/tickets.worker.thread.ts, an entry point like main.ts): compiled, a
 * bundle beside the one this code is part of (dist/); from sources, a bootstrap that registers
 * tsx and imports it from src/.
 */
function entryUrl(): URL {
  const ext = extname(fileURLToPath(import.meta.url));
  const entry = new URL(ext === '.ts' ? '../tickets.worker.thread.ts' : './tickets.worker.thread.js', import.meta.url);
  if (ext !== '.ts') return entry;
  const code = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\nregister();\nawait import(${JSON.stringify(entry.href)});\n`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

/**
 * The thread's loop (called by tickets.worker.thread.ts with the services it built).
 * Drains when woken, when the poll fires, and again while jobs keep coming.
 */
export function runIngestionThread(port: MessagePort, deps: AppDeps, gate: WriterGate, close: () => void): void {
  let scheduled = false;
  let stopping = false;
  // The drain in progress: `stop` waits for it, so the connection never closes under a job.
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    scheduled = false;
    if (stopping) return;
    let jobs = 0;
    try {
      // The gate is taken blocking (Atomics.wait): nothing else runs on this thread meanwhile.
      jobs = await deps.ticketsIngest.drain(DRAIN_BUDGET_MS, { beforeJob: () => gate.enterJob(GATE_MAX_WAIT_MS), afterJob: () => gate.leaveJob() });
    } catch (err) {
      deps.logger.error({ job: 'tickets-ingestion', err: { message: (err as Error).message, stack: (err as Error).stack } }, 'job failed');
    }
    if (jobs > 0) schedule();
  };
  const schedule = () => {
    if (scheduled || stopping) return;
    scheduled = true;
    setImmediate(() => {
      running = tick();
    });
  };
  const poll = setInterval(schedule, POLL_MS);
  port.on('message', (m: ToThread) => {
    if (m.type === 'wake') schedule();
    else if (m.type === 'stop') {
      stopping = true;
      clearInterval(poll);
      void running.finally(() => {
        close();
        port.close();
      });
    }
  });
  port.postMessage({ type: 'ready' } satisfies FromThread);
  schedule();
}
