import { inOrder } from '../../lib/in-order.js';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { affected } from '../../db/affected.js';
import type { Tx } from '../../db/client.js';
import { perConnection, prepared } from '../../db/statements.js';
import type { Clock } from '../../lib/clock.js';
import { toIso } from '../../lib/clock.js';
import type { DomainEvents } from '../../lib/domain-events.js';
import { ApiError, type ErrorEntry } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { isCurrency, toMajor, toMinor } from '../../lib/money.js';
import { issuesToEntries } from '../../lib/validation.js';
import { eventByRef, externalRefs, type TicketOptionRow } from '../events/events.queries.js';
import type { EventsService, ShowRef } from '../events/events.service.js';
import { userOf } from '../users/users.queries.js';
import { userToApi, type UserBatch, type UserIdentity, type UserRow, type UsersService } from '../users/users.service.js';
import { TicketBulkWriter } from './tickets.bulk.js';
import { fastTicketInput } from './tickets.bulk.parse.js';
import type { TicketRow } from './tickets.queries.js';
import { TicketInputSchema, type TicketInput, type TicketRecord, type TicketUpdate } from './tickets.schemas.js';
import { tickets, type TicketJobResult, type TicketState } from './tickets.table.js';

export type { TicketJobResult, TicketRow };

/** What an admission needs of a ticket's row (`admitAsRead`: the columns a door's scan reads). */
type AdmissionRow = Pick<TicketRow, 'id' | 'partnerId' | 'ticketId' | 'state'>;

/**
 * {@link admitStatement} also conditioned on the holder read: a rotating code is its holder's,
 * so a scan's admission must not land on a ticket that changed hands after the scan read it
 * (on PostgreSQL a transfer may commit between the read and the write; its state stays VALID).
 */
const admitHeldStatement = perConnection((tx) =>
  prepared(
    tx
      .update(tickets)
      .set({ state: 'ADMITTED', admittedAt: sql`${sql.placeholder('at')}`, updatedAt: sql`${sql.placeholder('now')}` })
      .where(and(eq(tickets.id, sql.placeholder('ticketPk')), eq(tickets.state, sql.placeholder('state')), eq(tickets.ownerPk, sql.placeholder('ownerPk'))))
      .returning({ id: tickets.id }),
    'tickets_admitHeld',
  ),
);

/**
 * The conditional admission of {@link TicketsService.admitAsRead} and `admit`, prepared once
 * per connection: a door admits thousands of tickets a minute, and drizzle building the SQL of
 * each cost more than running it.
 */
const admitStatement = perConnection((tx) =>
  prepared(
    tx
      .update(tickets)
      .set({ state: 'ADMITTED', admittedAt: sql`${sql.placeholder('at')}`, updatedAt: sql`${sql.placeholder('now')}` })
      .where(and(eq(tickets.id, sql.placeholder('ticketPk')), eq(tickets.state, sql.placeholder('state'))))
      .returning({ id: tickets.id }),
    'tickets_admit',
  ),
);

/** An item that passed validation, with its position in the request. */
export interface ValidItem {
  index: number;
  item: TicketInput;
}

/** Ticket ids per prepared lookup when a batch reads its stored tickets in advance. */
const PREFETCH_CHUNK = 250;

/** States from which a ticket can still change hands or be admitted. */
const LIVE_STATES: readonly TicketState[] = ['VALID', 'LISTED', 'SOLD'];

/**
 * One batch of ingestion, in one transaction for one partner: the lookups that repeat (one
 * event, a few options, many tickets) and the writes waiting for the next flush. Opaque to
 * callers: open it with `TicketsService.openBatch` and pass it back to `applyItems`.
 */
export interface TicketBatch {
  readonly tx: Tx;
  readonly partnerId: string;
  shows: Map<string, ShowRef>;
  options: Map<string, TicketOptionRow>;
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

/** What TicketsService is built from (see deps.ts). Its writes run in the transactions callers pass. */
export interface TicketsServiceDeps {
  clock: Clock;
  bus: DomainEvents;
  events: EventsService;
  users: UsersService;
}

/**
 * The ticket aggregate: the only writer of the tickets table. Ingestion of items (checked
 * and written set-based, for the queue of tickets.ingest.ts, POST /v1/sync/tickets and the
 * on-the-spot sync), updates, deletion, admissions, and the commands through which other
 * modules move tickets. No HTTP here.
 */
export class TicketsService {
  private readonly clock: Clock;
  private readonly bus: DomainEvents;
  private readonly eventsService: EventsService;
  private readonly usersService: UsersService;

  constructor(deps: TicketsServiceDeps) {
    this.clock = deps.clock;
    this.bus = deps.bus;
    this.eventsService = deps.events;
    this.usersService = deps.users;
  }

  /**
   * Validates each item on its own: the valid ones go on, the others are rejected with
   * paths. Common items take the exact fast path of tickets.bulk.parse.ts; the rest, and
   * every error, come from zod.
   */
  parseItems(raw: readonly unknown[]): { valid: ValidItem[]; rejected: TicketJobResult[] } {
    const valid: ValidItem[] = [];
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
   * transaction (`openBatch`; everything flushed) may be passed on: its lookups are reused.
   */
  async applyItems(tx: Tx, partnerId: string, items: readonly ValidItem[], batch: TicketBatch = this.openBatch(tx, partnerId)): Promise<TicketJobResult[]> {
    if (batch.tx !== tx || batch.partnerId !== partnerId) throw new Error('tickets: a batch is applied in the transaction and for the partner it was opened for');
    await this.prefetch(batch, items.map((i) => i.item.ticketId));
    await batch.users.prefetch(items.map((i) => buyerIdentity(i.item.buyer)));
    const results: TicketJobResult[] = [];
    for (const { index, item } of items) {
      try {
        results.push({ index, ticketId: item.ticketId, status: await this.stage(item, batch) });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        results.push({ index, ticketId: item.ticketId, status: 'rejected', errors: err.entries.map(stripIn) });
      }
    }
    await this.flush(batch);
    return results;
  }

  /** A batch for `applyItems` calls of one partner in one transaction (see `TicketBatch`). */
  openBatch(tx: Tx, partnerId: string): TicketBatch {
    return {
      tx,
      partnerId,
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

  /** POST /v1/sync/tickets: validate and apply now; per-item results in request order. */
  async syncCreate(tx: Tx, partnerId: string, raw: readonly unknown[]): Promise<TicketJobResult[]> {
    const { valid, rejected } = this.parseItems(raw);
    return [...rejected, ...await this.applyItems(tx, partnerId, valid)].sort((a, b) => a.index - b.index);
  }

  /** A ticket of the partner by its partner id; 404 for unknown and foreign alike. */
  async get(tx: Tx, partnerId: string, ticketId: string): Promise<TicketRow> {
    const row = (await tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, ticketId))).limit(1))[0];
    if (!row) throw ApiError.notFound('ticket', ticketId);
    return row;
  }

  /**
   * PUT /v1/tickets/:ticketId: the fields sent replace the stored ones. A new buyer is a
   * new owner (an active listing of the former owner ends); a deleted ticket answers 409.
   */
  async update(tx: Tx, partnerId: string, ticketId: string, patch: TicketUpdate): Promise<TicketRow> {
    const current = await this.get(tx, partnerId, ticketId);
    // The fields that fall back to the stored ticket are taken out; every other field of the
    // body (`rest`) goes on as sent (staging treats an absent field as "keep the stored one").
    const { externalReferenceEventId, showId, ticketOptionId, priceTypeId, ticketId: sentTicketId, buyer, ticketAccess, price, currency, ...rest } = patch;
    if (sentTicketId !== undefined && sentTicketId !== ticketId) {
      throw ApiError.field('invalid_value', 'ticketId', 'ticketId in the body must match the path (a ticket cannot be renamed)');
    }
    const ref = await this.refOf(tx, current);
    const merged: TicketInput & { flags?: Record<string, unknown> } = {
      ...rest,
      externalReferenceEventId: externalReferenceEventId ?? ref.externalReferenceEventId,
      showId: showId ?? ref.showId,
      ticketOptionId: ticketOptionId ?? ref.ticketOptionId,
      ...(priceTypeId !== undefined ? { priceTypeId } : ref.priceTypeId ? { priceTypeId: ref.priceTypeId } : {}),
      ticketId,
      buyer: buyer ?? { id: ref.owner.externalId ?? undefined, email: ref.owner.email ?? undefined, phone: ref.owner.phone ?? undefined },
      ticketAccess: ticketAccess ?? current.ticketAccess,
      ...(price !== undefined ? { price } : {}),
      ...(currency !== undefined ? { currency } : {}),
    };
    const batch = this.openBatch(tx, partnerId);
    batch.known.set(ticketId, current);
    await this.stage(merged, batch, { keepUnsent: true });
    await this.flush(batch);
    return await this.get(tx, partnerId, ticketId);
  }

  /** DELETE: invalidates the ticket for good. A second DELETE answers 409. */
  async delete(tx: Tx, partnerId: string, ticketId: string): Promise<TicketRow> {
    const t = await this.get(tx, partnerId, ticketId);
    if (t.state === 'DELETED') throw ApiError.conflict(`Ticket '${ticketId}' is already deleted`);
    const now = this.clock.now();
    await tx.update(tickets).set({ state: 'DELETED', deletedAt: now, updatedAt: now }).where(eq(tickets.id, t.id));
    await this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: t.id, reason: 'deleted' });
    return await this.get(tx, partnerId, ticketId);
  }

  /**
   * Records an admission. Refused (with the reason as code) for a deleted, already admitted
   * or cancelled ticket. An active listing ends.
   */
  async admit(tx: Tx, partnerId: string, ticketId: string, at: number): Promise<TicketRow> {
    const refusal = await this.admitRow(tx, partnerId, await this.get(tx, partnerId, ticketId), at);
    if (refusal) throw ApiError.conflict(refusal.message);
    return await this.get(tx, partnerId, ticketId);
  }

  /**
   * Admits `ticket` of `partnerId`, a row read in this same transaction (the rotating code's
   * check read it, `ticketForScan`), if it is still in the state it was read in: the same
   * conditional statement as {@link admit}, without reading the row again (the statement's
   * condition, not the read, is what admits a ticket once), also conditioned on the holder read.
   * Answers the refusal (`already_admitted` when another scan won; `changed_hands` when the
   * ticket's holder changed since it was read), or null when this one admitted it.
   */
  async admitAsRead(tx: Tx, partnerId: string, ticket: AdmissionRow & Pick<TicketRow, 'ownerPk'>, at: number): Promise<ReturnType<typeof admissionRefusal> | { reason: 'changed_hands'; message: string }> {
    if (ticket.partnerId !== partnerId) throw new Error(`tickets.admitAsRead: ticket ${ticket.id} is not of partner ${partnerId}`);
    const refusal = await this.admitRow(tx, partnerId, ticket, at, ticket.ownerPk);
    if (refusal?.reason !== 'already_admitted') return refusal;
    // Matched nothing: admitted meanwhile, or still in its state with another holder.
    const now = (await tx.select({ state: tickets.state, ownerPk: tickets.ownerPk }).from(tickets).where(eq(tickets.id, ticket.id)).limit(1))[0]!;
    return now.state === ticket.state && now.ownerPk !== ticket.ownerPk ? { reason: 'changed_hands', message: `Ticket '${ticket.ticketId}' changed hands while it was scanned` } : refusal;
  }

  /**
   * Admits one ticket exactly once: ONE conditional statement (the state it was read in, and
   * the holder `heldBy` when given), its
   * row count checked, so two gates scanning the same ticket at the same moment, in two
   * processes, cannot both admit it (on PostgreSQL two transactions may read VALID together;
   * the second's update then finds the row changed and matches nothing). Answers the refusal,
   * or null when admitted.
   */
  private async admitRow(tx: Tx, partnerId: string, t: AdmissionRow, at: number, heldBy?: string): Promise<ReturnType<typeof admissionRefusal>> {
    const refusal = admissionRefusal(t);
    if (refusal) return refusal;
    const values = { ticketPk: t.id, state: t.state, at, now: this.clock.now() };
    const admitted = heldBy === undefined ? await admitStatement(tx).execute(values) : await admitHeldStatement(tx).execute({ ...values, ownerPk: heldBy });
    if (admitted.length === 0) {
      // Changed since it was read: what it is now says why (admitted at another gate, most likely).
      const now = (await tx.select().from(tickets).where(eq(tickets.id, t.id)).limit(1))[0]!;
      return admissionRefusal(now) ?? { reason: 'already_admitted', message: `Ticket '${t.ticketId}' changed while it was admitted; try again` };
    }
    await this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: t.id, reason: 'admitted' });
    return null;
  }

  /** Batch admissions: records what it can, reports the rest with a reason. */
  async admitBatch(tx: Tx, partnerId: string, items: readonly { ticketId: string; entryDate: string }[]) {
    const failed: { index: number; ticketId: string; reason: 'unknown' | 'deleted' | 'already_admitted' | 'cancelled' | 'duplicate'; message: string }[] = [];
    const seen = new Set<string>();
    let recorded = 0;
    await inOrder(items, async (item, index) => {
      if (seen.has(item.ticketId)) return void failed.push({ index, ticketId: item.ticketId, reason: 'duplicate', message: 'The ticket appears earlier in this batch' });
      seen.add(item.ticketId);
      const t = (await tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, item.ticketId))).limit(1))[0];
      if (!t) return void failed.push({ index, ticketId: item.ticketId, reason: 'unknown', message: `No ticket '${item.ticketId}' was found` });
      const refusal = await this.admitRow(tx, partnerId, t, Date.parse(item.entryDate));
      if (refusal) return void failed.push({ index, ticketId: item.ticketId, reason: refusal.reason, message: refusal.message });
      recorded++;
    });
    return { allRecorded: failed.length === 0, recorded, failed };
  }

  /** The record answered by the API (with the partner's ids of event, show, option, owner). */
  async toApi(tx: Tx, t: TicketRow): Promise<TicketRecord> {
    const ref = await this.refOf(tx, t);
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
      // Optional fields are left out rather than null.
      ...(t.buyerEmailExternal === null ? {} : { buyerEmailExternal: t.buyerEmailExternal }),
      ...(t.primarySaleBuyerData === null ? {} : { primarySaleBuyerData: t.primarySaleBuyerData }),
      ...(t.nominalTicket === null ? {} : { nominalTicket: t.nominalTicket }),
      ...(t.props === null ? {} : { props: t.props }),
      ...(t.primarySalesFee === null ? {} : { primarySalesFee: t.primarySalesFee }),
      ...(t.flags === null ? {} : { flags: t.flags }),
      admittedAt: t.admittedAt === null ? null : toIso(t.admittedAt),
      createdAt: toIso(t.createdAt),
      updatedAt: toIso(t.updatedAt),
    };
  }

  // ------------------------------------------------------------------ internals

  /** The partner's ids of the ticket's event, show, option and price type, and its owner. */
  private async refOf(tx: Tx, t: TicketRow) {
    const refs = await externalRefs(tx, { showPk: t.showPk, ticketOptionPk: t.ticketOptionPk, priceTypePk: t.priceTypePk });
    return { externalReferenceEventId: refs.eventRef, showId: refs.showId, ticketOptionId: refs.ticketOptionId, priceTypeId: refs.priceTypeId, owner: await userOf(tx, t.ownerPk) };
  }

  /** The lookup of `prefetch`, prepared on the caller's transaction handle, once per connection. */
  private readonly storedTickets = perConnection((tx) =>
    prepared(tx
      .select()
      .from(tickets)
      .where(and(eq(tickets.partnerId, sql.placeholder('partnerId')), inArray(tickets.ticketId, Array.from({ length: PREFETCH_CHUNK }, (_, k) => sql.placeholder(`t${k}`))))), 'tickets_storedTickets'),
  );

  /**
   * Reads the stored tickets among `ticketIds` into the batch: one prepared statement per
   * `PREFETCH_CHUNK` ids (a short chunk is padded by repeating an id).
   */
  private async prefetch(batch: TicketBatch, ticketIds: readonly string[]): Promise<void> {
    const unique = [...new Set(ticketIds)];
    if (unique.length === 0) return;
    const lookup = this.storedTickets(batch.tx);
    const params: Record<string, string> = { partnerId: batch.partnerId };
    for (let i = 0; i < unique.length; i += PREFETCH_CHUNK) {
      for (let k = 0; k < PREFETCH_CHUNK; k++) params[`t${k}`] = unique[Math.min(i + k, unique.length - 1)]!;
      for (const row of await lookup.execute(params)) batch.known.set(row.ticketId, row);
    }
    for (const id of unique) if (!batch.known.has(id)) batch.known.set(id, null);
  }

  /** The multi-row writer (it prepares its statements on the caller's transaction handle). */
  private readonly bulk = new TicketBulkWriter();

  /** Writes what the batch holds: new users first (tickets reference them), then the tickets. */
  private async flush(batch: TicketBatch): Promise<void> {
    await batch.users.flush();
    if (batch.pending.size === 0) return;
    const rows = [...batch.pending.values()];
    batch.pending.clear();
    await this.bulk.upsert(batch.tx, rows);
  }

  /**
   * Checks one item and stages its ticket in the batch (the write waits for `flush`);
   * throws an item-level ApiError (400) naming the field, before staging anything.
   */
  private async stage(item: TicketInput & { flags?: Record<string, unknown> }, cache: TicketBatch, opts: { keepUnsent?: boolean } = {}): Promise<'created' | 'updated'> {
    const { tx, partnerId } = cache;
    const showKey = `${item.externalReferenceEventId}\u0000${item.showId ?? ''}`;
    let ref = cache.shows.get(showKey);
    if (!ref) {
      // The event first, so that a lookup error names the field it concerns: past this point
      // every error of `findShow` is about the show.
      if (!(await eventByRef(tx, partnerId, item.externalReferenceEventId))) asItemError(ApiError.notFound('event', item.externalReferenceEventId), 'externalReferenceEventId');
      try {
        ref = await this.eventsService.findShow(tx, partnerId, item.externalReferenceEventId, item.showId);
      } catch (err) {
        asItemError(err, 'showId');
      }
      cache.shows.set(showKey, ref);
    }
    const optionKey = `${ref.show.id}\u0000${item.ticketOptionId}`;
    let option = cache.options.get(optionKey);
    if (!option) {
      try {
        option = await this.eventsService.findTicketOption(tx, ref.show.id, item.ticketOptionId);
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
          combo = { priceTypePk: (await this.eventsService.findCombination(tx, ref.show.id, item.ticketOptionId, item.priceTypeId)).priceType.id };
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
      existing = (await tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, item.ticketId))).limit(1))[0] ?? null;
      cache.known.set(item.ticketId, existing);
    }
    if (existing?.state === 'DELETED') throw ApiError.conflict(`Ticket '${item.ticketId}' was deleted; deletion is final`, 'ticketId');
    // Last check, first write: a rejected item must not leave a user behind.
    const buyerKey = typeof item.buyer === 'string' ? item.buyer : JSON.stringify(item.buyer);
    let owner = cache.owners.get(buyerKey);
    if (!owner) {
      owner = await cache.users.resolve(buyerIdentity(item.buyer), 'buyer');
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
      await this.flush(cache);
      try {
        await this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: existing.id, reason: ownerChanged ? 'owner_changed' : 'moved' });
      } finally {
        cache.known.clear();
      }
    }
    return 'updated';
  }

  // ------------------------------------------------------------- commands of other modules
  // The listings, purchase and channel flows move tickets only through these.

  /**
   * VALID → LISTED for exactly these tickets (a listing opens), in one conditional statement.
   * False, and nothing changed, when any of them is not VALID any more.
   */
  async markListed(tx: Tx, ticketPks: readonly string[]): Promise<boolean> {
    const moved = affected(
      await tx
        .update(tickets)
        .set({ state: 'LISTED', updatedAt: this.clock.now() })
        .where(and(inArray(tickets.id, [...ticketPks]), eq(tickets.state, 'VALID'))),
    );
    if (moved === ticketPks.length) return true;
    if (moved > 0) throw new Error('markListed moved part of a listing: the caller must roll back');
    return false;
  }

  /** LISTED → VALID (a listing ended without a sale); tickets in another state stay as they are. */
  async markUnlisted(tx: Tx, ticketPks: readonly string[]): Promise<void> {
    if (ticketPks.length === 0) return;
    await tx.update(tickets)
      .set({ state: 'VALID', updatedAt: this.clock.now() })
      .where(and(inArray(tickets.id, [...ticketPks]), eq(tickets.state, 'LISTED')));
  }

  /** A resale completed: the buyer owns the tickets, VALID, and will be told of the QR unlock. */
  async transfer(tx: Tx, ticketPks: readonly string[], buyerPk: string): Promise<void> {
    await tx.update(tickets)
      .set({ ownerPk: buyerPk, state: 'VALID', unlockNotifiedAt: null, updatedAt: this.clock.now() })
      .where(inArray(tickets.id, [...ticketPks]));
  }

  /**
   * The tickets a channel sells (see channels.service.ts): LISTED from the start, owned by the
   * user that stands for the channel, their access a plain reference (the channel delivers the
   * real ticket once sold). Ids `<listingId>-<n>`.
   */
  async createForChannel(
    tx: Tx,
    draft: { partnerId: string; listingId: string; eventPk: string; showPk: string; ticketOptionPk: string; priceTypePk: string | null; ownerPk: string; currency: string; locator: string; seats: readonly ({ section?: string | undefined; row?: string | undefined; seat?: string | undefined } | undefined)[]; quantity: number },
  ): Promise<TicketRow[]> {
    const now = this.clock.now();
    const rows = Array.from({ length: draft.quantity }, (_, i) => {
      const seat = draft.seats[i];
      return {
        id: newId('ticket'),
        partnerId: draft.partnerId,
        ticketId: `${draft.listingId}-${i + 1}`,
        eventPk: draft.eventPk,
        showPk: draft.showPk,
        ticketOptionPk: draft.ticketOptionPk,
        priceTypePk: draft.priceTypePk,
        ownerPk: draft.ownerPk,
        state: 'LISTED' as const,
        priceMinor: null,
        currency: draft.currency,
        ticketAccess: { type: 'OTHER' as const, locator: draft.locator },
        tags: [],
        section: seat?.section ?? null,
        row: seat?.row ?? null,
        seat: seat?.seat ?? null,
        createdAt: now,
        updatedAt: now,
      };
    });
    return await tx.insert(tickets).values(rows).returning();
  }

  /**
   * Deletes the tickets `ownerPk` still holds (VALID or LISTED) among these: a channel's listing
   * ended, and tickets that were never the partner's stop existing. A ticket sold on is left alone.
   */
  async deleteHeldBy(tx: Tx, ticketPks: readonly string[], ownerPk: string): Promise<void> {
    if (ticketPks.length === 0) return;
    const now = this.clock.now();
    await tx.update(tickets)
      .set({ state: 'DELETED', deletedAt: now, updatedAt: now })
      .where(and(inArray(tickets.id, [...ticketPks]), inArray(tickets.state, ['VALID', 'LISTED']), eq(tickets.ownerPk, ownerPk)));
  }

  /**
   * A cancelled show: its live tickets become CANCELLED, each raising `ticket.invalidated`
   * (its listing ends). Step 2 of the cancel-show flow (flows/cancel-show.ts).
   */
  async cancelForShow(tx: Tx, partnerId: string, showPk: string, at: number): Promise<void> {
    const affected = await tx
      .update(tickets)
      .set({ state: 'CANCELLED', cancelledAt: at, updatedAt: at })
      .where(and(eq(tickets.showPk, showPk), eq(tickets.partnerId, partnerId), inArray(tickets.state, [...LIVE_STATES])))
      .returning({ id: tickets.id });
    for (const t of affected) await this.bus.emit(tx, 'ticket.invalidated', { partnerId, ticketPk: t.id, reason: 'cancelled' });
  }
}

function admissionRefusal(t: Pick<TicketRow, 'state' | 'ticketId'>): { reason: 'deleted' | 'already_admitted' | 'cancelled'; message: string } | null {
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
