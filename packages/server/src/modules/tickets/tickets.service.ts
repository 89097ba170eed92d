import { and, asc, eq, getTableColumns, inArray, isNull, lte, ne, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { toIso } from '../../lib/clock.js';
import type { DomainEvents } from '../../lib/domain-events.js';
import { ApiError, type ErrorEntry } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { isCurrency, toMajor, toMinor } from '../../lib/money.js';
import { issuesToEntries } from '../../lib/validation.js';
import type { EventsService, ShowRef } from '../events/events.service.js';
import { events, priceTypes, shows, ticketOptions } from '../events/events.table.js';
import { userToApi, type UserBatch, type UserIdentity, type UserRow, type UsersService } from '../users/users.service.js';
import { users } from '../users/users.table.js';
import { TicketInputSchema, type TicketInput, type TicketRecord, type TicketUpdate } from './tickets.schemas.js';
import { TicketBulkWriter, type TicketRow } from './tickets.bulk.js';
import { fastTicketInput } from './tickets.bulk.parse.js';
import { ticketJobs, tickets, type TicketJobResult, type TicketState } from './tickets.table.js';

export type { TicketRow };
export type JobRow = typeof ticketJobs.$inferSelect;

/** A job without its items (`TicketsService.getJobStatus`). */
export type JobStatus = Omit<JobRow, 'items'>;

/** A job validated and serialized by `TicketsService.prepareJob`, stored by `insertJob`. */
export interface PreparedJob {
  /** The job but for what `insertJob` sets when it stores it (id, creation and, for a job with nothing valid, finish time). */
  job: Omit<JobRow, 'id' | 'createdAt' | 'finishedAt'>;
  /** `job.items` and `job.results` as their JSON columns store them. */
  items: string;
  results: string;
}

/** A job lease: long enough for the largest job, short enough to recover quickly after a crash. */
export const JOB_LEASE_MS = 60_000;

/**
 * Most jobs `drain` and `applyDue` apply in one transaction. More per transaction measured
 * no faster (the commit is not the cost), and keeps the HTTP thread's writes waiting longer.
 */
export const JOBS_PER_TRANSACTION = 2;
/** Most items `drain` and `applyDue` apply in one transaction (past its first job), so a transaction holds the write lock for a bounded time. */
export const ITEMS_PER_TRANSACTION = 8_000;

/** Ticket ids per prepared lookup when a batch reads its stored tickets in advance. */
const PREFETCH_CHUNK = 250;

/** States from which a ticket can still change hands or be admitted. */
const LIVE_STATES: readonly TicketState[] = ['VALID', 'LISTED', 'SOLD'];

/**
 * One batch of ingestion: the lookups that repeat (one event, a few options, many
 * tickets) and the writes waiting for the next flush.
 */
interface Batch {
  shows: Map<string, ShowRef>;
  options: Map<string, typeof ticketOptions.$inferSelect>;
  combos: Map<string, { priceTypePk: string }>;
  /**
   * Tickets as they stand for this batch: as stored, or as this batch will write them;
   * null when there is no such ticket. A ticketId not in the map is read when needed.
   */
  known: Map<string, TicketRow | null>;
  /** Rows the next flush writes, by ticketId: a ticket sent twice is written once, as last sent. */
  pending: Map<string, TicketRow>;
  /** Owners resolved in this batch, by the buyer as sent. */
  owners: Map<string, UserRow>;
  users: UserBatch;
  /** Prices converted to minor units, by currency and amount as sent. */
  prices: Map<string, number>;
}

/** Maps a lookup error of the events service onto the item field it concerns. */
function asItemError(err: unknown, field: string): never {
  if (err instanceof ApiError) {
    const first = err.entries[0]!;
    throw new ApiError(400, first.code === 'not_found' ? 'invalid_value' : first.code, first.message, { path: first.path ?? field });
  }
  throw err;
}

function buyerIdentity(buyer: TicketInput['buyer']): UserIdentity {
  if (typeof buyer === 'string') return buyer.includes('@') ? { email: buyer } : { phone: buyer };
  return buyer;
}

/**
 * Tickets: ingestion (asynchronous queue and synchronous), updates, deletion, admissions,
 * and the consequences of a cancelled show. No HTTP here.
 */
export class TicketsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly bus: DomainEvents,
    private readonly eventsService: EventsService,
    private readonly usersService: UsersService,
  ) {
    bus.on('show.cancelled', (tx, e) => this.cancelShowTickets(tx, e.partnerId, e.showPk, e.cancelledAt));
  }

  /**
   * Validates each item on its own: the valid ones go on, the others are rejected with
   * paths. Common items take the exact fast path of tickets.bulk.parse.ts; the rest, and
   * every error, come from zod.
   */
  parseItems(raw: readonly unknown[]): { valid: { index: number; item: TicketInput }[]; rejected: TicketJobResult[] } {
    const valid: { index: number; item: TicketInput }[] = [];
    const rejected: TicketJobResult[] = [];
    raw.forEach((value, index) => {
      const fast = fastTicketInput(value);
      if (fast) return void valid.push({ index, item: fast });
      const parsed = TicketInputSchema.safeParse(value);
      if (parsed.success) valid.push({ index, item: parsed.data });
      else {
        const ticketId = value && typeof value === 'object' && typeof (value as { ticketId?: unknown }).ticketId === 'string' ? (value as { ticketId: string }).ticketId : null;
        rejected.push({ index, ticketId, status: 'rejected', errors: issuesToEntries(parsed.error.issues, 'body').map(stripIn) });
      }
    });
    return { valid, rejected };
  }

  /**
   * Applies items in the caller's transaction. A failing item leaves no rows and does not
   * stop the others: every check of an item comes before anything of it is written, so no
   * savepoint is needed.
   *
   * Set-based: the items are checked and resolved one by one, in order, against what the
   * batch has seen (stored rows read in advance, plus the batch's own unwritten rows), and
   * the tickets and new users are written together in multi-row statements at the end
   * (tickets.bulk.ts). The outcome is the one of applying the items one at a time: a
   * ticket sent twice is written once as last sent ('created', then 'updated'). When an
   * update changes a stored ticket's owner, show or option, everything so far is written
   * before `ticket.invalidated` is raised, so its handlers see the batch's writes; what they
   * change is read again afterwards. A `batch` of earlier items of the same partner and
   * transaction (everything flushed) may be passed on: its lookups are reused.
   */
  applyItems(tx: Tx, partnerId: string, items: readonly { index: number; item: TicketInput }[], batch: Batch = this.newBatch(tx, partnerId)): TicketJobResult[] {
    this.prefetch(tx, partnerId, batch, items.map((i) => i.item.ticketId));
    batch.users.prefetch(items.map((i) => buyerIdentity(i.item.buyer)));
    const results: TicketJobResult[] = [];
    for (const { index, item } of items) {
      try {
        results.push({ index, ticketId: item.ticketId, status: this.stage(tx, partnerId, item, batch) });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        results.push({ index, ticketId: item.ticketId, status: 'rejected', errors: err.entries.map(stripIn) });
      }
    }
    this.flush(batch);
    return results;
  }

  private newBatch(tx: Tx, partnerId: string): Batch {
    return {
      shows: new Map(),
      options: new Map(),
      combos: new Map(),
      known: new Map(),
      pending: new Map(),
      owners: new Map(),
      users: this.usersService.batch(tx, partnerId),
      prices: new Map(),
    };
  }

  private existingStatement?: { all: (v: Record<string, string>) => TicketRow[] };

  /**
   * Reads the stored tickets among `ticketIds` into the batch: one prepared statement per
   * `PREFETCH_CHUNK` ids (a short chunk is padded by repeating an id).
   */
  private prefetch(_tx: Tx, partnerId: string, batch: Batch, ticketIds: readonly string[]): void {
    const unique = [...new Set(ticketIds)];
    this.existingStatement ??= this.db
      .select()
      .from(tickets)
      .where(and(eq(tickets.partnerId, sql.placeholder('partnerId')), inArray(tickets.ticketId, Array.from({ length: PREFETCH_CHUNK }, (_, k) => sql.placeholder(`t${k}`)))))
      .prepare();
    const params: Record<string, string> = { partnerId };
    for (let i = 0; i < unique.length; i += PREFETCH_CHUNK) {
      for (let k = 0; k < PREFETCH_CHUNK; k++) params[`t${k}`] = unique[Math.min(i + k, unique.length - 1)]!;
      for (const row of this.existingStatement.all(params)) batch.known.set(row.ticketId, row);
    }
    for (const id of unique) if (!batch.known.has(id)) batch.known.set(id, null);
  }

  /** Writes what the batch holds: new users first (tickets reference them), then the tickets. */
  private flush(batch: Batch): void {
    batch.users.flush();
    if (batch.pending.size === 0) return;
    const rows = [...batch.pending.values()];
    batch.pending.clear();
    this.bulk().upsert(rows);
  }

  private bulkWriter?: TicketBulkWriter;

  /** The multi-row writer, prepared once (its statements run on the enclosing transaction's connection). */
  private bulk(): TicketBulkWriter {
    return (this.bulkWriter ??= new TicketBulkWriter(this.db));
  }

  /** POST /v1/sync/tickets: validate and apply now; per-item results in request order. */
  syncCreate(tx: Tx, partnerId: string, raw: readonly unknown[]): TicketJobResult[] {
    const { valid, rejected } = this.parseItems(raw);
    return [...rejected, ...this.applyItems(tx, partnerId, valid)].sort((a, b) => a.index - b.index);
  }

  /** POST /v1/tickets: stores the job with its items in the caller's transaction. */
  enqueue(tx: Tx, partnerId: string, raw: readonly unknown[]): JobRow {
    return this.insertJob(tx, this.prepareJob(partnerId, raw));
  }

  /**
   * The job of POST /v1/tickets, validated and serialized, ready to store, without touching
   * the database: the route builds it before it waits for its turn to write, so the write
   * transaction holds SQLite's single write lock only for the insert (see `insertJob`).
   */
  prepareJob(partnerId: string, raw: readonly unknown[]): PreparedJob {
    const { valid, rejected } = this.parseItems(raw);
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
      leaseUntil: null,
      startedAt: null,
    };
    // The JSON columns as drizzle would encode them (JSON.stringify), made here, outside the transaction.
    return { job, items: JSON.stringify(valid), results: JSON.stringify(rejected) };
  }

  /** Stores a job made by `prepareJob` in the caller's transaction, and wakes the worker thread once it has committed. */
  insertJob(tx: Tx, prepared: PreparedJob): JobRow {
    // The id and creation time are taken here, in the transaction, so that jobs are applied
    // (oldest first) in the order they were stored, as when they were made in one step.
    const now = this.clock.now();
    const job: JobRow = { id: newId('ticketJob'), ...prepared.job, createdAt: now, finishedAt: prepared.job.state === 'done' ? now : null };
    // A worker thread drains the queue: wake it once the caller's transaction has committed
    // (better-sqlite3 transactions are synchronous, so by the next turn it has).
    if (this.wakeDrainer && job.state === 'queued') setImmediate(this.wakeDrainer);
    // The row is known: reading it back (RETURNING) would parse the items again.
    tx.insert(ticketJobs)
      .values({ ...job, items: sql`${prepared.items}`, results: sql`${prepared.results}` })
      .run();
    return job;
  }

  /**
   * Leases the oldest queued job, or a running one whose lease expired (its worker died).
   * The conditional update makes two workers never lease the same job.
   */
  leaseNext(): JobRow | null {
    const now = this.clock.now();
    for (;;) {
      // Two indexed lookups rather than one with OR: that one sorts every queued job and
      // reads each one's lease_until, which lies behind its items (up to megabytes).
      // A queued job has no lease yet.
      const queued = this.db
        .select({ id: ticketJobs.id, createdAt: ticketJobs.createdAt })
        .from(ticketJobs)
        .where(eq(ticketJobs.state, 'queued'))
        .orderBy(asc(ticketJobs.createdAt))
        .limit(1)
        .get();
      const expired = this.db
        .select({ id: ticketJobs.id, leaseUntil: ticketJobs.leaseUntil, createdAt: ticketJobs.createdAt })
        .from(ticketJobs)
        .where(and(eq(ticketJobs.state, 'running'), lte(ticketJobs.leaseUntil, now)))
        .orderBy(asc(ticketJobs.createdAt))
        .limit(1)
        .get();
      const candidate = queued && (!expired || queued.createdAt <= expired.createdAt) ? { id: queued.id, leaseUntil: null } : expired;
      if (!candidate) return null;
      const leased = this.db
        .update(ticketJobs)
        .set({ state: 'running', leaseUntil: now + JOB_LEASE_MS, attempts: sql`${ticketJobs.attempts} + 1`, startedAt: now })
        .where(
          and(
            eq(ticketJobs.id, candidate.id),
            candidate.leaseUntil === null ? isNull(ticketJobs.leaseUntil) : eq(ticketJobs.leaseUntil, candidate.leaseUntil),
            ne(ticketJobs.state, 'done'),
          ),
        )
        .returning()
        .get();
      if (leased) return leased;
    }
  }

  /**
   * Applies a leased job and marks it done in ONE transaction. A crash before the commit
   * leaves the job running with its lease; once the lease expires another worker replays it
   * whole, so every ticket is stored exactly once.
   */
  process(job: JobRow): void {
    this.db.transaction((tx) => {
      // The lease was taken over meanwhile: roll back, the new holder does the work.
      if (!this.complete(tx, job, job.leaseUntil!)) tx.rollback();
    });
  }

  /**
   * Applies a job's items and marks it done, in the caller's transaction, if the job still
   * holds the lease `leaseUntil` (null: still queued, never leased). False, with nothing
   * kept, when it does not (the caller rolls back).
   */
  private complete(tx: Tx, job: JobRow, leaseUntil: number | null, batch?: Batch): boolean {
    const results = this.applyItems(tx, job.partnerId, job.items as { index: number; item: TicketInput }[], batch);
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
    const done = tx
      .update(ticketJobs)
      .set({
        state: 'done',
        results: all,
        items: [],
        created,
        updated,
        rejected,
        leaseUntil: null,
        finishedAt: now,
        // Jobs applied by `applyDue` were never leased: this transaction is their attempt.
        ...(leaseUntil === null ? { attempts: sql`${ticketJobs.attempts} + 1`, startedAt: now } : {}),
      })
      .where(and(eq(ticketJobs.id, job.id), ne(ticketJobs.state, 'done'), leaseUntil === null ? isNull(ticketJobs.leaseUntil) : eq(ticketJobs.leaseUntil, leaseUntil)))
      .run();
    return done.changes === 1;
  }

  /**
   * Applies due jobs (queued, or running with an expired lease: their worker died), oldest
   * first, in ONE transaction: at most `JOBS_PER_TRANSACTION` jobs and, past the first,
   * `ITEMS_PER_TRANSACTION` items. Returns how many jobs it applied.
   *
   * Why not lease first (`leaseNext`, then `process`): the lease is a write of its own, one
   * more turn of SQLite's single write lock per job, and a job per transaction pays the
   * commit (pages of six b-trees written to the WAL) for every 1,000 tickets. Here the jobs
   * are chosen, applied and marked done inside one IMMEDIATE transaction, which holds the
   * write lock from its first read to its commit, so no other writer can take a job in
   * between and no lease is needed; a crash rolls everything back and the jobs stay due, to
   * be applied whole after restart. The outcome is the one of applying the jobs one after
   * the other: each job's items are applied in order, and each job gets its own results.
   */
  applyDue(maxJobs = JOBS_PER_TRANSACTION, maxItems = ITEMS_PER_TRANSACTION): number {
    return this.db.transaction((tx) => this.applyJobs(tx, this.dueJobs(tx, maxJobs, maxItems)));
  }

  /**
   * The due jobs `applyDue` would apply, read whole (items parsed), in `tx` or, outside any
   * transaction, from a read snapshot (see `drain`).
   */
  private dueJobs(tx: Tx, maxJobs: number, maxItems: number): JobRow[] {
    const now = this.clock.now();
    // Two indexed lookups rather than one with OR (see `leaseNext`); rows are read whole only once chosen.
    const queued = tx
      .select({ id: ticketJobs.id, createdAt: ticketJobs.createdAt, total: ticketJobs.total })
      .from(ticketJobs)
      .where(eq(ticketJobs.state, 'queued'))
      .orderBy(asc(ticketJobs.createdAt))
      .limit(maxJobs)
      .all();
    const expired = tx
      .select({ id: ticketJobs.id, createdAt: ticketJobs.createdAt, total: ticketJobs.total })
      .from(ticketJobs)
      .where(and(eq(ticketJobs.state, 'running'), lte(ticketJobs.leaseUntil, now)))
      .orderBy(asc(ticketJobs.createdAt))
      .limit(maxJobs)
      .all();
    const due = expired.length === 0 ? queued : [...queued, ...expired].sort((a, b) => a.createdAt - b.createdAt);
    const jobs: JobRow[] = [];
    let items = 0;
    for (const candidate of due) {
      if (jobs.length >= maxJobs || (jobs.length > 0 && items + candidate.total > maxItems)) break;
      const job = tx.select().from(ticketJobs).where(eq(ticketJobs.id, candidate.id)).get();
      if (job) jobs.push(job);
      items += candidate.total;
    }
    return jobs;
  }

  /**
   * Applies jobs read by `dueJobs` in the caller's transaction, skipping any that changed
   * since it was read (applied or leased meanwhile by another worker). A job's items never
   * change while it is due, so what was read of them before the transaction is what it
   * holds. Returns how many it applied.
   */
  private applyJobs(tx: Tx, jobs: readonly JobRow[]): number {
    let n = 0;
    // Jobs of one partner share a batch (the show, option and user lookups, the tickets it
    // wrote): applying them one after the other in one transaction is applying their items
    // in sequence, which a batch does (`applyItems` ends each job with a flush).
    const batches = new Map<string, Batch>();
    for (const job of jobs) {
      const now = tx.select({ state: ticketJobs.state, leaseUntil: ticketJobs.leaseUntil }).from(ticketJobs).where(eq(ticketJobs.id, job.id)).get();
      if (!now || now.state !== job.state || now.leaseUntil !== job.leaseUntil || now.state === 'done') continue;
      let batch = batches.get(job.partnerId);
      if (!batch) batches.set(job.partnerId, (batch = this.newBatch(tx, job.partnerId)));
      // Cannot fail: the transaction has held the write lock since the check above.
      if (!this.complete(tx, job, job.state === 'queued' ? null : job.leaseUntil, batch)) throw new Error(`tickets: job ${job.id} changed while it was applied`);
      n++;
    }
    return n;
  }

  /**
   * Applies due jobs until none is left or `budgetMs` is spent. Returns how many.
   * `beforeJob` and `afterJob` bracket each write transaction (the worker thread takes turns
   * with the HTTP thread's writes there).
   *
   * Each round reads and parses the next due jobs first, outside the transaction (a read
   * of the WAL snapshot takes no lock), so that work overlaps the HTTP thread's writes
   * instead of holding the write lock; the transaction then checks that each job is still
   * due as read and applies it (`applyJobs`).
   */
  drain(budgetMs = 200, opts: { beforeJob?: () => void; afterJob?: () => void } = {}): number {
    const started = performance.now();
    let n = 0;
    for (let round = 0; round === 0 || performance.now() - started < budgetMs; round++) {
      const jobs = this.dueJobs(this.db, JOBS_PER_TRANSACTION, ITEMS_PER_TRANSACTION);
      if (jobs.length === 0) break;
      opts.beforeJob?.();
      try {
        n += this.db.transaction((tx) => this.applyJobs(tx, jobs));
      } finally {
        opts.afterJob?.();
      }
    }
    return n;
  }

  private wakeDrainer: (() => void) | null = null;

  /**
   * Hands the queue to a worker thread (tickets.worker.ts), or back with null. While handed
   * off, the in-process job does not drain (`drainsHere` is false) and each enqueue calls
   * `wake` once its transaction has ended.
   */
  handOffQueue(wake: (() => void) | null, turn: (() => Promise<() => void>) | null = null): void {
    this.wakeDrainer = wake;
    this.writeTurn = wake ? turn : null;
  }

  private writeTurn: (() => Promise<() => void>) | null = null;

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

  /** A job of the partner; 404 for unknown and foreign alike. */
  getJob(partnerId: string, jobId: string): JobRow {
    const job = this.db.select().from(ticketJobs).where(and(eq(ticketJobs.partnerId, partnerId), eq(ticketJobs.id, jobId))).get();
    if (!job) throw ApiError.notFound('job', jobId);
    return job;
  }

  /**
   * What GET /v1/tickets/jobs/:jobId shows of a job: all but its items, which are not read
   * (an unfinished job holds up to 1,000 of them as JSON, and clients poll). 404 for
   * unknown and foreign alike.
   */
  getJobStatus(partnerId: string, jobId: string): JobStatus {
    const { items: _items, ...columns } = getTableColumns(ticketJobs);
    const job = this.db.select(columns).from(ticketJobs).where(and(eq(ticketJobs.partnerId, partnerId), eq(ticketJobs.id, jobId))).get();
    if (!job) throw ApiError.notFound('job', jobId);
    return job;
  }

  /** A ticket of the partner by its partner id; 404 for unknown and foreign alike. */
  get(tx: Tx, partnerId: string, ticketId: string): TicketRow {
    const row = tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, ticketId))).get();
    if (!row) throw ApiError.notFound('ticket', ticketId);
    return row;
  }

  /**
   * PUT /v1/tickets/:ticketId: the fields sent replace the stored ones. A new buyer is a
   * new owner (an active listing of the former owner ends); a deleted ticket answers 409.
   */
  update(tx: Tx, partnerId: string, ticketId: string, patch: TicketUpdate): TicketRow {
    const current = this.get(tx, partnerId, ticketId);
    if (patch.ticketId !== undefined && patch.ticketId !== ticketId) {
      throw ApiError.field('invalid_value', 'ticketId', 'ticketId in the body must match the path (a ticket cannot be renamed)');
    }
    const ref = this.refOf(tx, current);
    const merged: TicketInput & { flags?: Record<string, unknown> } = {
      externalReferenceEventId: patch.externalReferenceEventId ?? ref.externalReferenceEventId,
      showId: patch.showId ?? ref.showId,
      ticketOptionId: patch.ticketOptionId ?? ref.ticketOptionId,
      ...(patch.priceTypeId !== undefined ? { priceTypeId: patch.priceTypeId } : ref.priceTypeId ? { priceTypeId: ref.priceTypeId } : {}),
      ticketId,
      buyer: patch.buyer ?? { id: ref.owner.externalId ?? undefined, email: ref.owner.email ?? undefined, phone: ref.owner.phone ?? undefined },
      ticketAccess: patch.ticketAccess ?? current.ticketAccess,
      ...(patch.price !== undefined ? { price: patch.price } : {}),
      ...(patch.currency !== undefined ? { currency: patch.currency } : {}),
    };
    for (const k of ['buyerEmailExternal', 'primarySaleBuyerData', 'nominalTicket', 'props', 'primarySalesFee', 'tags', 'section', 'row', 'seat', 'orderId', 'flags'] as const) {
      if (patch[k] !== undefined) (merged as Record<string, unknown>)[k] = patch[k];
    }
    const batch = this.newBatch(tx, partnerId);
    batch.known.set(ticketId, current);
    this.stage(tx, partnerId, merged, batch, { keepUnsent: true });
    this.flush(batch);
    return this.get(tx, partnerId, ticketId);
  }

  /** DELETE: invalidates the ticket for good. A second DELETE answers 409. */
  delete(tx: Tx, partnerId: string, ticketId: string): TicketRow {
    const t = this.get(tx, partnerId, ticketId);
    if (t.state === 'DELETED') throw ApiError.conflict(`Ticket '${ticketId}' is already deleted`);
    const now = this.clock.now();
    tx.update(tickets).set({ state: 'DELETED', deletedAt: now, updatedAt: now }).where(eq(tickets.id, t.id)).run();
    this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: t.id, reason: 'deleted' });
    return this.get(tx, partnerId, ticketId);
  }

  /**
   * Records an admission. Refused (with the reason as code) for a deleted, already admitted
   * or cancelled ticket. An active listing ends.
   */
  admit(tx: Tx, partnerId: string, ticketId: string, at: number): TicketRow {
    const t = this.get(tx, partnerId, ticketId);
    const refusal = admissionRefusal(t);
    if (refusal) throw ApiError.conflict(refusal.message);
    tx.update(tickets).set({ state: 'ADMITTED', admittedAt: at, updatedAt: this.clock.now() }).where(eq(tickets.id, t.id)).run();
    this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: t.id, reason: 'admitted' });
    return this.get(tx, partnerId, ticketId);
  }

  /** Batch admissions: records what it can, reports the rest with a reason. */
  admitBatch(tx: Tx, partnerId: string, items: readonly { ticketId: string; entryDate: string }[]) {
    const failed: { index: number; ticketId: string; reason: 'unknown' | 'deleted' | 'already_admitted' | 'cancelled' | 'duplicate'; message: string }[] = [];
    const seen = new Set<string>();
    let recorded = 0;
    items.forEach((item, index) => {
      if (seen.has(item.ticketId)) return void failed.push({ index, ticketId: item.ticketId, reason: 'duplicate', message: 'The ticket appears earlier in this batch' });
      seen.add(item.ticketId);
      const t = tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, item.ticketId))).get();
      if (!t) return void failed.push({ index, ticketId: item.ticketId, reason: 'unknown', message: `No ticket '${item.ticketId}' was found` });
      const refusal = admissionRefusal(t);
      if (refusal) return void failed.push({ index, ticketId: item.ticketId, reason: refusal.reason, message: refusal.message });
      tx.update(tickets).set({ state: 'ADMITTED', admittedAt: Date.parse(item.entryDate), updatedAt: this.clock.now() }).where(eq(tickets.id, t.id)).run();
      this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: t.id, reason: 'admitted' });
      recorded++;
    });
    return { allRecorded: failed.length === 0, recorded, failed };
  }

  /** The record answered by the API (joins the partner's ids of event, show, option, owner). */
  toApi(tx: Tx, t: TicketRow): TicketRecord {
    const ref = this.refOf(tx, t);
    const optional = <K extends keyof TicketRow>(k: K) => (t[k] === null || t[k] === undefined ? {} : { [k]: t[k] });
    return {
      id: t.id,
      ticketId: t.ticketId,
      externalReferenceEventId: ref.externalReferenceEventId,
      showId: ref.showId,
      ticketOptionId: ref.ticketOptionId,
      priceTypeId: ref.priceTypeId,
      state: t.state,
      price: t.priceMinor === null || t.currency === null ? null : toMajor(t.priceMinor, t.currency),
      currency: t.currency,
      owner: userToApi(ref.owner),
      ticketAccess: t.ticketAccess,
      seating: t.section || t.row || t.seat ? { section: t.section, row: t.row, seat: t.seat } : null,
      orderId: t.orderId,
      tags: t.tags,
      ...optional('buyerEmailExternal'),
      ...optional('primarySaleBuyerData'),
      ...optional('nominalTicket'),
      ...optional('props'),
      ...optional('primarySalesFee'),
      ...optional('flags'),
      admittedAt: t.admittedAt === null ? null : toIso(t.admittedAt),
      createdAt: toIso(t.createdAt),
      updatedAt: toIso(t.updatedAt),
    } as TicketRecord;
  }

  // ------------------------------------------------------------------ internals

  private refOf(tx: Tx, t: TicketRow) {
    const row = tx
      .select({ externalReferenceEventId: events.externalReferenceId, showId: shows.showId, ticketOptionId: ticketOptions.ticketId, owner: users })
      .from(tickets)
      .innerJoin(events, eq(events.id, tickets.eventPk))
      .innerJoin(shows, eq(shows.id, tickets.showPk))
      .innerJoin(ticketOptions, eq(ticketOptions.id, tickets.ticketOptionPk))
      .innerJoin(users, eq(users.id, tickets.ownerPk))
      .where(eq(tickets.id, t.id))
      .get()!;
    const priceTypeId = t.priceTypePk ? (tx.select({ id: priceTypes.priceTypeId }).from(priceTypes).where(eq(priceTypes.id, t.priceTypePk)).get()?.id ?? null) : null;
    return { ...row, priceTypeId };
  }

  /**
   * Checks one item and stages its ticket in the batch (the write waits for `flush`);
   * throws an item-level ApiError (400) naming the field, before staging anything.
   */
  private stage(tx: Tx, partnerId: string, item: TicketInput & { flags?: Record<string, unknown> }, cache: Batch, opts: { keepUnsent?: boolean } = {}): 'created' | 'updated' {
    const showKey = `${item.externalReferenceEventId}\u0000${item.showId ?? ''}`;
    let ref = cache.shows.get(showKey);
    if (!ref) {
      try {
        ref = this.eventsService.findShow(tx, partnerId, item.externalReferenceEventId, item.showId);
      } catch (err) {
        asItemError(err, err instanceof ApiError && /show/.test(err.message) ? 'showId' : 'externalReferenceEventId');
      }
      cache.shows.set(showKey, ref);
    }
    const optionKey = `${ref.show.id}\u0000${item.ticketOptionId}`;
    let option = cache.options.get(optionKey);
    if (!option) {
      try {
        option = this.eventsService.findTicketOption(tx, ref.show.id, item.ticketOptionId);
      } catch (err) {
        asItemError(err, 'ticketOptionId');
      }
      cache.options.set(optionKey, option);
    }
    let priceTypePk: string | null = null;
    if (item.priceTypeId) {
      const comboKey = `${option.id}\u0000${item.priceTypeId}`;
      let combo = cache.combos.get(comboKey);
      if (!combo) {
        try {
          combo = { priceTypePk: this.eventsService.findCombination(tx, ref.show.id, item.ticketOptionId, item.priceTypeId).priceType.id };
        } catch (err) {
          asItemError(err, 'priceTypeId');
        }
        cache.combos.set(comboKey, combo);
      }
      priceTypePk = combo.priceTypePk;
    }
    const currency = (item.currency ?? option.currency).toUpperCase();
    if (!isCurrency(currency)) throw ApiError.field('invalid_value', 'currency', 'currency must be an ISO 4217 currency code such as EUR');
    let priceMinor: number | undefined;
    if (item.price !== undefined) {
      // Prices repeat within a batch; an amount that fails is not cached (it throws each time).
      const key = `${currency}\u0000${typeof item.price}\u0000${item.price}`;
      priceMinor = cache.prices.get(key);
      if (priceMinor === undefined) cache.prices.set(key, (priceMinor = toMinor(item.price, currency, 'price')));
    }
    // Read in advance for the batch, or staged by it (a ticket sent twice); else read now.
    let existing = cache.known.get(item.ticketId);
    if (existing === undefined) {
      existing = tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, item.ticketId))).get() ?? null;
      cache.known.set(item.ticketId, existing);
    }
    if (existing?.state === 'DELETED') throw ApiError.conflict(`Ticket '${item.ticketId}' was deleted; deletion is final`, 'ticketId');
    // Last check, first write: a rejected item must not leave a user behind.
    const buyerKey = typeof item.buyer === 'string' ? item.buyer : JSON.stringify(item.buyer);
    let owner = cache.owners.get(buyerKey);
    if (!owner) {
      owner = cache.users.resolve(buyerIdentity(item.buyer), 'buyer');
      cache.owners.set(buyerKey, owner);
    }
    const seating = item.props?.seating;
    const now = this.clock.now();

    // PUT keeps what it does not send; ingestion replaces the whole ticket.
    const kept = opts.keepUnsent && existing ? existing : null;
    let state: TicketState;
    let ownerChanged = false;
    let moved = false;
    if (!existing) state = ref.show.status === 'CANCELLED' ? 'CANCELLED' : 'VALID';
    else {
      ownerChanged = existing.ownerPk !== owner.id;
      moved = existing.showPk !== ref.show.id || existing.ticketOptionPk !== option.id || existing.priceTypePk !== priceTypePk;
      state = existing.state === 'LISTED' && (ownerChanged || moved) ? 'VALID' : existing.state;
    }
    // One literal with every column (no spreads: this runs per ticket, and the compiler
    // makes a new column a type error here).
    const row: TicketRow = {
      id: existing ? existing.id : newId('ticket'),
      partnerId,
      ticketId: item.ticketId,
      eventPk: ref.event.id,
      showPk: ref.show.id,
      ticketOptionPk: option.id,
      priceTypePk,
      ownerPk: owner.id,
      state,
      priceMinor: priceMinor !== undefined ? priceMinor : kept ? kept.priceMinor : null,
      currency: item.price !== undefined || item.currency !== undefined || !existing ? currency : existing.currency,
      ticketAccess: item.ticketAccess,
      buyerEmailExternal: keep(item.buyerEmailExternal, kept?.buyerEmailExternal),
      primarySaleBuyerData: keep(item.primarySaleBuyerData, kept?.primarySaleBuyerData),
      nominalTicket: keep(item.nominalTicket, kept?.nominalTicket),
      props: keep(item.props as Record<string, unknown> | undefined, kept?.props),
      primarySalesFee: keep(item.primarySalesFee, kept?.primarySalesFee),
      flags: keep(item.flags, kept?.flags),
      tags: item.tags ?? (kept ? kept.tags : []),
      section: keep(item.section ?? seating?.section, kept?.section),
      row: keep(item.row ?? seating?.row, kept?.row),
      seat: keep(item.seat ?? seating?.seat, kept?.seat),
      orderId: keep(item.orderId ?? item.props?.orderId, kept?.orderId),
      admittedAt: existing ? existing.admittedAt : null,
      unlockNotifiedAt: existing ? existing.unlockNotifiedAt : null,
      deletedAt: existing ? existing.deletedAt : null,
      cancelledAt: existing ? existing.cancelledAt : state === 'CANCELLED' ? now : null,
      createdAt: existing ? existing.createdAt : now,
      updatedAt: now,
    };
    cache.known.set(item.ticketId, row);
    cache.pending.set(item.ticketId, row);
    if (!existing) return 'created';
    if (ownerChanged || moved) {
      // Handlers (the sell side ends a listing) must see the batch's writes, and may change
      // tickets this batch read in advance: write first, forget what was read after.
      this.flush(cache);
      try {
        this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: existing.id, reason: ownerChanged ? 'owner_changed' : 'moved' });
      } finally {
        cache.known.clear();
      }
    }
    return 'updated';
  }

  private cancelShowTickets(tx: Tx, partnerId: string, showPk: string, at: number): void {
    const affected = tx
      .update(tickets)
      .set({ state: 'CANCELLED', cancelledAt: at, updatedAt: at })
      .where(and(eq(tickets.showPk, showPk), eq(tickets.partnerId, partnerId), inArray(tickets.state, [...LIVE_STATES])))
      .returning({ id: tickets.id })
      .all();
    for (const t of affected) this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: t.id, reason: 'cancelled' });
  }
}

function noop(): void {}

function admissionRefusal(t: TicketRow): { reason: 'deleted' | 'already_admitted' | 'cancelled'; message: string } | null {
  if (t.state === 'DELETED') return { reason: 'deleted', message: `Ticket '${t.ticketId}' is deleted` };
  if (t.state === 'ADMITTED') return { reason: 'already_admitted', message: `Ticket '${t.ticketId}' was already admitted` };
  if (t.state === 'CANCELLED') return { reason: 'cancelled', message: `Ticket '${t.ticketId}' belongs to a cancelled show` };
  return null;
}

/** The value sent, else the stored one when kept (PUT), else null. */
function keep<T>(sent: T | undefined, stored: T | null | undefined): T | null {
  return sent !== undefined ? sent : (stored ?? null);
}

function stripIn(e: ErrorEntry): { code: string; message: string; path?: string } {
  return e.path === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, path: e.path };
}
