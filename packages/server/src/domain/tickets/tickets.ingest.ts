import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { affected } from '../../db/affected.js';
import type { Db, Tx } from '../../db/client.js';
import { serializeOn, sharedByProcesses, tryLockOn, wakeWorkers } from '../../db/dialect.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { TicketBatch, TicketsService, ValidItem } from './tickets.service.js';
import { ticketJobs } from './tickets.table.js';

export type JobRow = typeof ticketJobs.$inferSelect;

/** A job without its items (`TicketsIngest.getJobStatus`). */
export type JobStatus = Omit<JobRow, 'items'>;

/** A job validated and serialized by `TicketsIngest.prepareJob`, stored by `insertJob`. */
export interface PreparedJob {
  /** The job but for what `insertJob` sets when it stores it (id, creation and, for a job with nothing valid, finish time). */
  job: Omit<JobRow, 'id' | 'createdAt' | 'finishedAt'>;
  /** `job.items` and `job.results` as their JSON columns store them. */
  items: string;
  results: string;
}

/**
 * Most jobs `drain` applies in one transaction. More per transaction measured no faster (the
 * commit is not the cost), and keeps the HTTP thread's writes waiting longer.
 */
export const JOBS_PER_TRANSACTION = 2;
/** Most items `drain` applies in one transaction (past its first job), so a transaction holds the write lock for a bounded time. */
export const ITEMS_PER_TRANSACTION = 8_000;

/** What TicketsIngest is built from (see deps.ts): its own transactions run on `db`. */
export interface TicketsIngestDeps {
  db: Db;
  clock: Clock;
  /** The ticket aggregate, which applies the items. */
  tickets: TicketsService;
}

/**
 * The ingestion queue of POST /v1/tickets: the only writer of the ticket_jobs table. A job
 * is validated and stored when the request is answered; a worker (the in-process job,
 * tickets.job.ts, or the worker thread, tickets.worker.ts) applies its items through the
 * ticket aggregate (`TicketsService.applyItems`) and marks it done in the same transaction.
 */
export class TicketsIngest {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly tickets: TicketsService;

  constructor(deps: TicketsIngestDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.tickets = deps.tickets;
  }

  /** POST /v1/tickets: stores the job with its items in the caller's transaction. */
  async enqueue(tx: Tx, partnerId: string, raw: readonly unknown[]): Promise<JobRow> {
    return await this.insertJob(tx, this.prepareJob(partnerId, raw));
  }

  /**
   * The job of POST /v1/tickets, validated and serialized, ready to store, without touching
   * the database: the route builds it before it waits for its turn to write, so the write
   * transaction holds SQLite's single write lock only for the insert (see `insertJob`).
   */
  prepareJob(partnerId: string, raw: readonly unknown[]): PreparedJob {
    const { valid, rejected } = this.tickets.parseItems(raw);
    const job: PreparedJob['job'] = {
      partnerId,
      state: valid.length === 0 ? 'done' : 'queued',
      total: raw.length,
      items: valid,
      results: rejected,
      created: 0,
      updated: 0,
      rejected: rejected.length,
      attempts: 0,
      startedAt: null,
    };
    // The JSON columns as drizzle would encode them (JSON.stringify), made here, outside the transaction.
    return { job, items: JSON.stringify(valid), results: JSON.stringify(rejected) };
  }

  /** Stores a job made by `prepareJob` in the caller's transaction, and wakes the worker thread once it has committed. */
  async insertJob(tx: Tx, prepared: PreparedJob): Promise<JobRow> {
    // The id and creation time are taken here, in the transaction, so that jobs are applied
    // (oldest first) in the order they were stored, as when they were made in one step.
    const now = this.clock.now();
    const job: JobRow = { id: newId('ticketJob'), ...prepared.job, createdAt: now, finishedAt: prepared.job.state === 'done' ? now : null };
    // A worker thread drains the queue: wake it once the caller's transaction has committed
    // (a transaction that waits on no I/O, as POST /v1/tickets's, has committed by the time
    // setImmediate runs; one that commits later is found by the thread's poll).
    if (this.wakeDrainer && job.state === 'queued') setImmediate(this.wakeDrainer);
    // The row is known: reading it back (RETURNING) would parse the items again.
    await tx.insert(ticketJobs)
      .values({ ...job, items: sql`${prepared.items}`, results: sql`${prepared.results}` });
    // Every process's drain starts as this commits (PostgreSQL; see tickets.job.ts).
    if (job.state === 'queued') wakeWorkers(tx, 'tickets');
    return job;
  }

  /**
   * Applies a job's items and marks it done, in the caller's transaction, if it is still
   * queued. False, with nothing kept, when it is not (the caller rolls back).
   */
  private async complete(tx: Tx, job: JobRow, batch: TicketBatch): Promise<boolean> {
    // The items column holds what `prepareJob` validated (ValidItem[]), as JSON.
    const results = await this.tickets.applyItems(tx, job.partnerId, job.items as ValidItem[], batch);
    const all = [...job.results, ...results].sort((a, b) => a.index - b.index);
    let created = 0;
    let updated = 0;
    let rejected = 0;
    for (const r of all) {
      if (r.status === 'created') created++;
      else if (r.status === 'updated') updated++;
      else rejected++;
    }
    const now = this.clock.now();
    const done = await tx
      .update(ticketJobs)
      .set({
        state: 'done',
        results: all,
        items: [],
        created,
        updated,
        rejected,
        finishedAt: now,
        // This transaction is the job's attempt (one that rolled back left no trace).
        attempts: sql`${ticketJobs.attempts} + 1`,
        startedAt: now,
      })
      .where(and(eq(ticketJobs.id, job.id), eq(ticketJobs.state, 'queued')));
    return affected(done) === 1;
  }

  /**
   * The next queued jobs, oldest first, read whole (items parsed), in `tx`: a transaction, or a
   * read outside one (see `drain`). At most `maxJobs` jobs and, past the first, `maxItems`
   * items.
   */
  private async dueJobs(tx: Tx, maxJobs: number, maxItems: number, partnerId?: string): Promise<JobRow[]> {
    const ofPartner = partnerId === undefined ? undefined : eq(ticketJobs.partnerId, partnerId);
    // Queue order: creation time, then id (ids of one process sort in creation order within a
    // millisecond); rows are read whole only once chosen.
    const due = await tx
      .select({ id: ticketJobs.id, createdAt: ticketJobs.createdAt, total: ticketJobs.total })
      .from(ticketJobs)
      .where(and(eq(ticketJobs.state, 'queued'), ofPartner))
      .orderBy(asc(ticketJobs.createdAt), asc(ticketJobs.id))
      .limit(maxJobs);
    const jobs: JobRow[] = [];
    let items = 0;
    for (const candidate of due) {
      if (jobs.length >= maxJobs || (jobs.length > 0 && items + candidate.total > maxItems)) break;
      const job = (await tx.select().from(ticketJobs).where(eq(ticketJobs.id, candidate.id)).limit(1))[0];
      if (job) jobs.push(job);
      items += candidate.total;
    }
    return jobs;
  }

  /**
   * Applies jobs read by `dueJobs` in the caller's transaction, skipping any applied since it
   * was read (by another drain: another process, or the worker thread). A job's items never
   * change while it is queued, so what was read of them before the transaction is what it
   * holds. Returns how many it applied.
   */
  private async applyJobs(tx: Tx, jobs: readonly JobRow[]): Promise<number> {
    let n = 0;
    // Jobs of one partner share a batch (the show, option and user lookups, the tickets it
    // wrote): applying them one after the other in one transaction is applying their items
    // in sequence, which a batch does (`applyItems` ends each job with a flush).
    const batches = new Map<string, TicketBatch>();
    // One drain at a time per partner (processes on PostgreSQL drain in parallel): the jobs of
    // a partner are applied in the order they were queued, and the check below sees what an
    // earlier drain committed. Partners in a fixed order, so two drains never wait on each other.
    for (const partnerId of [...new Set(jobs.map((j) => j.partnerId))].sort()) await serializeOn(tx, `ticket-jobs:${partnerId}`);
    for (const job of jobs) {
      const now = (await tx.select({ state: ticketJobs.state }).from(ticketJobs).where(eq(ticketJobs.id, job.id)).limit(1))[0];
      if (now?.state !== 'queued') continue;
      let batch = batches.get(job.partnerId);
      if (!batch) batches.set(job.partnerId, (batch = this.tickets.openBatch(tx, job.partnerId)));
      // Cannot fail: the transaction holds the write lock (SQLite) or the partner's lock since the check above.
      if (!(await this.complete(tx, job, batch))) throw new Error(`tickets: job ${job.id} changed while it was applied`);
      n++;
    }
    return n;
  }

  /**
   * Applies due jobs until none is left or `budgetMs` is spent. Returns how many.
   * `beforeJob` and `afterJob` bracket each write transaction.
   *
   * Each round reads and parses the next due jobs first, outside the transaction (a read
   * of the WAL snapshot takes no lock), so that work does not hold the write lock; the
   * transaction then checks that each job is still due as read and applies it
   * (`applyJobs`). The worker thread passes its gate as `beforeJob`/`afterJob` (taken
   * blocking: nothing else runs on that thread).
   */
  async drain(budgetMs = 200, opts: { beforeJob?: () => void | Promise<void>; afterJob?: () => void } = {}): Promise<number> {
    if (sharedByProcesses) return await this.drainShared(budgetMs, opts);
    const started = performance.now();
    let n = 0;
    for (let round = 0; round === 0 || performance.now() - started < budgetMs; round++) {
      const jobs = await this.db.read(async (tx) => await this.dueJobs(tx, JOBS_PER_TRANSACTION, ITEMS_PER_TRANSACTION));
      if (jobs.length === 0) break;
      await opts.beforeJob?.();
      try {
        n += await this.db.transact(async (tx) => await this.applyJobs(tx, jobs));
      } finally {
        opts.afterJob?.();
      }
    }
    return n;
  }

  /**
   * `drain` when several processes share the queue (PostgreSQL): each round takes the partner
   * whose due job is oldest among those no other process is draining now (a lock per partner,
   * tried without waiting), and applies that partner's next due jobs in one transaction. So
   * processes drain different partners' queues in parallel, each job once, and one partner's
   * jobs strictly in queue order (a job may name any of the partner's tickets, so order per
   * ticket needs order per partner). Returns once nothing is due that nobody else is draining,
   * or the budget is spent.
   */
  private async drainShared(budgetMs: number, opts: { beforeJob?: () => void | Promise<void>; afterJob?: () => void }): Promise<number> {
    const started = performance.now();
    let n = 0;
    for (let round = 0; round === 0 || performance.now() - started < budgetMs; round++) {
      const partners = await this.db.read(async (tx) => await this.partnersWithDueJobs(tx));
      if (partners.length === 0) break;
      await opts.beforeJob?.();
      let applied: number | null;
      try {
        applied = await this.db.transact(async (tx) => {
          for (const partnerId of partners) {
            if (!(await tryLockOn(tx, `ticket-jobs:${partnerId}`))) continue;
            // Read under the partner's lock: what an earlier drain committed is seen.
            const jobs = await this.dueJobs(tx, JOBS_PER_TRANSACTION, ITEMS_PER_TRANSACTION, partnerId);
            if (jobs.length > 0) return await this.applyJobs(tx, jobs);
          }
          return null;
        });
      } finally {
        opts.afterJob?.();
      }
      // Every partner with due jobs is in another process's hands.
      if (applied === null) break;
      n += applied;
    }
    return n;
  }

  /** Partners with queued jobs, the one whose oldest is oldest first; at most 32. */
  private async partnersWithDueJobs(tx: Tx): Promise<string[]> {
    const oldest = sql<number>`min(${ticketJobs.createdAt})`;
    const rows = await tx
      .select({ partnerId: ticketJobs.partnerId, oldest })
      .from(ticketJobs)
      .where(eq(ticketJobs.state, 'queued'))
      .groupBy(ticketJobs.partnerId)
      .orderBy(oldest)
      .limit(32);
    return rows.map((r) => r.partnerId);
  }

  private wakeDrainer: (() => void) | null = null;
  private writeTurn: (() => Promise<() => void>) | null = null;

  /**
   * Hands the queue to a worker thread (tickets.worker.ts), or back with null. While handed
   * off, the in-process job does not drain (`drainsHere` is false) and each enqueue calls
   * `wake` once its transaction has ended.
   */
  handOffQueue(wake: (() => void) | null, turn: (() => Promise<() => void>) | null = null): void {
    this.wakeDrainer = wake;
    this.writeTurn = wake ? turn : null;
  }

  /**
   * Waits, without blocking the event loop, for a turn to write beside the worker thread
   * (`WriterGate.turn`); call the function it returns once the write transaction is over.
   * Settles at once when no thread drains the queue.
   */
  awaitWriteTurn(): Promise<() => void> {
    return this.writeTurn ? this.writeTurn() : Promise.resolve(noop);
  }

  /** False while a worker thread drains the queue. */
  get drainsHere(): boolean {
    return this.wakeDrainer === null;
  }

  /**
   * What GET /v1/tickets/jobs/:jobId shows of a job: all but its items, which are not read
   * (an unfinished job holds up to 1,000 of them as JSON, and clients poll). 404 for
   * unknown and foreign alike.
   */
  async getJobStatus(partnerId: string, jobId: string): Promise<JobStatus> {
    const { items: _items, ...columns } = getTableColumns(ticketJobs);
    const job = await this.db.read(async (tx) => (await tx.select(columns).from(ticketJobs).where(and(eq(ticketJobs.partnerId, partnerId), eq(ticketJobs.id, jobId))).limit(1))[0]);
    if (!job) throw ApiError.notFound('job', jobId);
    return job;
  }
}

function noop(): void {}
