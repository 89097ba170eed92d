import { and, asc, eq, inArray, isNull, lte, ne, or, sql } from 'drizzle-orm';
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
import { userToApi, type UserIdentity, type UserRow, type UsersService } from '../users/users.service.js';
import { users } from '../users/users.table.js';
import { TicketInputSchema, type TicketInput, type TicketRecord, type TicketUpdate } from './tickets.schemas.js';
import { ticketJobs, tickets, type TicketJobResult, type TicketState } from './tickets.table.js';

export type TicketRow = typeof tickets.$inferSelect;
export type JobRow = typeof ticketJobs.$inferSelect;

/** A job lease: long enough for the largest job, short enough to recover quickly after a crash. */
export const JOB_LEASE_MS = 60_000;

/** States from which a ticket can still change hands or be admitted. */
const LIVE_STATES: readonly TicketState[] = ['VALID', 'LISTED', 'SOLD'];

/** Lookups that repeat within a batch (one event, a few options, many tickets). */
interface BatchCache {
  shows: Map<string, ShowRef>;
  options: Map<string, typeof ticketOptions.$inferSelect>;
  combos: Map<string, { priceTypePk: string }>;
  /** Stored tickets of the batch, read in advance; null means "read each when needed". */
  existing: Map<string, TicketRow> | null;
  /** Tickets this batch wrote already: their prefetched row is stale. */
  touched: Set<string>;
  /** Owners resolved in this batch, by the buyer as sent. */
  owners: Map<string, UserRow>;
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

  /** Validates each item on its own: the valid ones go on, the others are rejected with paths. */
  parseItems(raw: readonly unknown[]): { valid: { index: number; item: TicketInput }[]; rejected: TicketJobResult[] } {
    const valid: { index: number; item: TicketInput }[] = [];
    const rejected: TicketJobResult[] = [];
    raw.forEach((value, index) => {
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
   * stop the others: `upsert` makes every check before its first write, so no savepoint is
   * needed (they cost a statement each, and this path runs for every synchronised ticket).
   */
  applyItems(tx: Tx, partnerId: string, items: readonly { index: number; item: TicketInput }[]): TicketJobResult[] {
    const cache: BatchCache = { shows: new Map(), options: new Map(), combos: new Map(), existing: this.prefetch(tx, partnerId, items.map((i) => i.item.ticketId)), touched: new Set(), owners: new Map() };
    const results: TicketJobResult[] = [];
    for (const { index, item } of items) {
      try {
        results.push({ index, ticketId: item.ticketId, status: this.upsert(tx, partnerId, item, cache) });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        results.push({ index, ticketId: item.ticketId, status: 'rejected', errors: err.entries.map(stripIn) });
      }
    }
    return results;
  }

  /** The stored tickets among `ticketIds`, in one query per 500 ids. */
  private prefetch(tx: Tx, partnerId: string, ticketIds: readonly string[]): Map<string, TicketRow> {
    const found = new Map<string, TicketRow>();
    const unique = [...new Set(ticketIds)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), inArray(tickets.ticketId, unique.slice(i, i + 500)))).all();
      for (const row of rows) found.set(row.ticketId, row);
    }
    return found;
  }

  /** POST /v1/sync/tickets: validate and apply now; per-item results in request order. */
  syncCreate(tx: Tx, partnerId: string, raw: readonly unknown[]): TicketJobResult[] {
    const { valid, rejected } = this.parseItems(raw);
    return [...rejected, ...this.applyItems(tx, partnerId, valid)].sort((a, b) => a.index - b.index);
  }

  /** POST /v1/tickets: stores the job with its items in the caller's transaction. */
  enqueue(tx: Tx, partnerId: string, raw: readonly unknown[]): JobRow {
    const { valid, rejected } = this.parseItems(raw);
    const now = this.clock.now();
    return tx
      .insert(ticketJobs)
      .values({
        id: newId('ticketJob'),
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
        createdAt: now,
        startedAt: null,
        finishedAt: valid.length === 0 ? now : null,
      })
      .returning()
      .get();
  }

  /**
   * Leases the oldest queued job, or a running one whose lease expired (its worker died).
   * The conditional update makes two workers never lease the same job.
   */
  leaseNext(): JobRow | null {
    const now = this.clock.now();
    for (;;) {
      const candidate = this.db
        .select({ id: ticketJobs.id, leaseUntil: ticketJobs.leaseUntil })
        .from(ticketJobs)
        .where(or(eq(ticketJobs.state, 'queued'), and(eq(ticketJobs.state, 'running'), lte(ticketJobs.leaseUntil, now))))
        .orderBy(asc(ticketJobs.createdAt))
        .limit(1)
        .get();
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
      const results = this.applyItems(tx, job.partnerId, job.items as { index: number; item: TicketInput }[]);
      const all = [...job.results, ...results].sort((a, b) => a.index - b.index);
      const done = tx
        .update(ticketJobs)
        .set({
          state: 'done',
          results: all,
          items: [],
          created: results.filter((r) => r.status === 'created').length,
          updated: results.filter((r) => r.status === 'updated').length,
          rejected: all.filter((r) => r.status === 'rejected').length,
          leaseUntil: null,
          finishedAt: this.clock.now(),
        })
        .where(and(eq(ticketJobs.id, job.id), eq(ticketJobs.leaseUntil, job.leaseUntil!)))
        .run();
      // The lease was taken over meanwhile: roll back, the new holder does the work.
      if (done.changes !== 1) tx.rollback();
    });
  }

  /** Leases and processes jobs until none is due or `budgetMs` is spent. Returns how many. */
  drain(budgetMs = 200): number {
    const started = performance.now();
    let n = 0;
    for (let job = this.leaseNext(); job; job = performance.now() - started < budgetMs ? this.leaseNext() : null) {
      try {
        this.process(job);
      } catch (err) {
        if ((err as Error).name !== 'TransactionRollbackError') throw err;
      }
      n++;
    }
    return n;
  }

  /** A job of the partner; 404 for unknown and foreign alike. */
  getJob(partnerId: string, jobId: string): JobRow {
    const job = this.db.select().from(ticketJobs).where(and(eq(ticketJobs.partnerId, partnerId), eq(ticketJobs.id, jobId))).get();
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
    const cache: BatchCache = { shows: new Map(), options: new Map(), combos: new Map(), existing: null, touched: new Set(), owners: new Map() };
    this.upsert(tx, partnerId, merged, cache, { keepUnsent: true });
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

  /** Creates or updates one ticket; throws an item-level ApiError (400) naming the field. */
  private upsert(tx: Tx, partnerId: string, item: TicketInput & { flags?: Record<string, unknown> }, cache: BatchCache, opts: { keepUnsent?: boolean } = {}): 'created' | 'updated' {
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
    const priceMinor = item.price === undefined ? undefined : toMinor(item.price, currency, 'price');
    // Read in advance for the batch, unless this batch already wrote the ticket (sent twice).
    const existing =
      cache.existing && !cache.touched.has(item.ticketId)
        ? cache.existing.get(item.ticketId)
        : tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, item.ticketId))).get();
    if (existing?.state === 'DELETED') throw ApiError.conflict(`Ticket '${item.ticketId}' was deleted; deletion is final`, 'ticketId');
    // Last check, first write: a rejected item must not leave a user behind.
    const buyerKey = typeof item.buyer === 'string' ? item.buyer : JSON.stringify(item.buyer);
    let owner = cache.owners.get(buyerKey);
    if (!owner) {
      owner = this.usersService.resolve(tx, partnerId, buyerIdentity(item.buyer), 'buyer');
      cache.owners.set(buyerKey, owner);
    }
    const seating = item.props?.seating;
    const now = this.clock.now();

    const keep = <T>(sent: T | undefined, stored: T | null): T | null => (sent !== undefined ? sent : opts.keepUnsent && existing ? stored : null);
    const values = {
      eventPk: ref.event.id,
      showPk: ref.show.id,
      ticketOptionPk: option.id,
      priceTypePk,
      ownerPk: owner.id,
      priceMinor: priceMinor !== undefined ? priceMinor : keep(undefined, existing?.priceMinor ?? null),
      currency: item.price !== undefined || item.currency !== undefined || !existing ? currency : existing.currency,
      ticketAccess: item.ticketAccess,
      buyerEmailExternal: keep(item.buyerEmailExternal, existing?.buyerEmailExternal ?? null),
      primarySaleBuyerData: keep(item.primarySaleBuyerData, existing?.primarySaleBuyerData ?? null),
      nominalTicket: keep(item.nominalTicket, existing?.nominalTicket ?? null),
      props: keep(item.props as Record<string, unknown> | undefined, existing?.props ?? null),
      primarySalesFee: keep(item.primarySalesFee, existing?.primarySalesFee ?? null),
      flags: keep(item.flags, existing?.flags ?? null),
      tags: item.tags ?? (opts.keepUnsent && existing ? existing.tags : []),
      section: keep(item.section ?? seating?.section, existing?.section ?? null),
      row: keep(item.row ?? seating?.row, existing?.row ?? null),
      seat: keep(item.seat ?? seating?.seat, existing?.seat ?? null),
      orderId: keep(item.orderId ?? item.props?.orderId, existing?.orderId ?? null),
      updatedAt: now,
    };
    cache.touched.add(item.ticketId);

    const writes = this.writes();
    if (!existing) {
      const cancelled = ref.show.status === 'CANCELLED';
      writes.insert.run({ ...values, id: newId('ticket'), partnerId, ticketId: item.ticketId, state: cancelled ? 'CANCELLED' : 'VALID', cancelledAt: cancelled ? now : null, createdAt: now });
      return 'created';
    }
    const ownerChanged = existing.ownerPk !== owner.id;
    const moved = existing.showPk !== ref.show.id || existing.ticketOptionPk !== option.id || existing.priceTypePk !== priceTypePk;
    const state: TicketState = existing.state === 'LISTED' && (ownerChanged || moved) ? 'VALID' : existing.state;
    writes.update.run({ ...values, state, id: existing.id });
    if (ownerChanged || moved) this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: existing.id, reason: ownerChanged ? 'owner_changed' : 'moved' });
    return 'updated';
  }

  private statements?: ReturnType<TicketsService['prepareWrites']>;

  /** The two writes of ingestion, prepared once (they run on the enclosing transaction's connection). */
  private writes() {
    return (this.statements ??= this.prepareWrites());
  }

  private prepareWrites() {
    const p = <N extends string>(name: N) => sql.placeholder(name);
    const common = {
      eventPk: p('eventPk'),
      showPk: p('showPk'),
      ticketOptionPk: p('ticketOptionPk'),
      priceTypePk: p('priceTypePk'),
      ownerPk: p('ownerPk'),
      priceMinor: p('priceMinor'),
      currency: p('currency'),
      ticketAccess: p('ticketAccess'),
      buyerEmailExternal: p('buyerEmailExternal'),
      primarySaleBuyerData: p('primarySaleBuyerData'),
      nominalTicket: p('nominalTicket'),
      props: p('props'),
      primarySalesFee: p('primarySalesFee'),
      flags: p('flags'),
      tags: p('tags'),
      section: p('section'),
      row: p('row'),
      seat: p('seat'),
      orderId: p('orderId'),
      state: p('state'),
      updatedAt: p('updatedAt'),
    };
    return {
      insert: this.db
        .insert(tickets)
        .values({ ...common, id: p('id'), partnerId: p('partnerId'), ticketId: p('ticketId'), cancelledAt: p('cancelledAt'), createdAt: p('createdAt') })
        .prepare(),
      // drizzle's types do not admit placeholders in set(); its runtime does (tested by the update paths).
      update: this.db
        .update(tickets)
        .set(common as unknown as Partial<TicketRow>)
        .where(eq(tickets.id, p('id')))
        .prepare(),
    };
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

function admissionRefusal(t: TicketRow): { reason: 'deleted' | 'already_admitted' | 'cancelled'; message: string } | null {
  if (t.state === 'DELETED') return { reason: 'deleted', message: `Ticket '${t.ticketId}' is deleted` };
  if (t.state === 'ADMITTED') return { reason: 'already_admitted', message: `Ticket '${t.ticketId}' was already admitted` };
  if (t.state === 'CANCELLED') return { reason: 'cancelled', message: `Ticket '${t.ticketId}' belongs to a cancelled show` };
  return null;
}

function stripIn(e: ErrorEntry): { code: string; message: string; path?: string } {
  return e.path === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, path: e.path };
}
