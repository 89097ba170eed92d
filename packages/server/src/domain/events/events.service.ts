import type { VenueScans } from '@resale/shared/admission-code';
import { inOrder } from '../../lib/in-order.js';
import { and, asc, eq, inArray, isNull, lte, ne } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { affected } from '../../db/affected.js';
import { serializeOn } from '../../db/dialect.js';
import type { Clock } from '../../lib/clock.js';
import { fromIso } from '../../lib/clock.js';
import type { DomainEvents } from '../../lib/domain-events.js';
import { ApiError, type ErrorEntry } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { toMinor } from '../../lib/money.js';
import type { EventAggregate, ShowAggregate } from './events.model.js';
import type { Configuration, ImageIn, InventoryIn, Location, Producer, Seating, ShowDates } from './events.schemas.js';
import { combinations, events, priceTypes, shows, ticketOptions, type ShowStatus } from './events.table.js';
import { cleanSvgChart, SVG_CHART_UNUSABLE } from './events.svg.js';

/**
 * What `apply` accepts: the API's create and update bodies and the pull feed's events
 * all fit it. Every field but the ids may be absent (an update); `requireComplete`
 * decides whether absence is an error.
 */
export interface EventInput {
  externalReferenceId: string;
  title?: string | undefined;
  description?: string | undefined;
  location?: Location | undefined;
  producers?: Producer[] | undefined;
  configuration?: Configuration | undefined;
  seating?: Seating | undefined;
  shows?: ShowInput[] | undefined;
}

export interface ShowInput {
  showId: string;
  title?: string | undefined;
  date?: string | undefined;
  primarySalesUrl?: string | undefined;
  status?: ShowStatus | undefined;
  ticketOptions?: TicketOptionInput[] | undefined;
  priceTypes?: PriceTypeInput[] | undefined;
  combinations?: CombinationInput[] | undefined;
  images?: ImageIn[] | undefined;
  configuration?: Configuration | undefined;
  showRescheduled?: boolean | undefined;
  location?: Location | undefined;
  resaleEnabled?: boolean | undefined;
  dates?: ShowDates | undefined;
  tags?: string[] | undefined;
}

export interface TicketOptionInput {
  ticketId: string;
  title?: string | undefined;
  description?: string | undefined;
  currency?: string | undefined;
  price?: number | string | null | undefined;
  stock?: number | undefined;
  webVisibility?: boolean | undefined;
  webSoldOut?: boolean | undefined;
  area?: string | undefined;
}

export interface PriceTypeInput {
  priceTypeId: string;
  _id?: unknown;
  title?: string | undefined;
  description?: string | undefined;
  webVisibility?: boolean | undefined;
  webSoldOut?: boolean | undefined;
  stock?: number | undefined;
  invisible?: boolean | undefined;
  inventory?: InventoryIn | undefined;
}

export interface CombinationInput {
  ticketOptionId: string;
  priceTypeId: string;
  price: number | string;
  description?: string | undefined;
}

type Mode = 'create' | 'update' | 'upsert';

/** A show and its event, as other modules look them up. */
export interface ShowRef {
  event: typeof events.$inferSelect;
  show: typeof shows.$inferSelect;
}

/** What EventsService is built from (see deps.ts). */
export interface EventsServiceDeps {
  db: Db;
  clock: Clock;
  bus: DomainEvents;
}

/**
 * Events, shows, ticket options, price types and combinations. Every write goes through
 * `apply`: load the aggregate, merge the input into it (collecting every field error
 * with its path), check the cross references, then save in the caller's transaction.
 * Merge rules: top-level fields sent replace the stored ones whole (location,
 * configuration …); collections merge by id (shows by showId, ticket options by
 * ticketId, price types by priceTypeId, combinations by their pair); nothing is removed
 * by omission.
 */
export class EventsService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly bus: DomainEvents;

  constructor(deps: EventsServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.bus = deps.bus;
  }

  /** POST /v1/events: 409 when the event exists. */
  async create(tx: Tx, partnerId: string, input: EventInput, source: EventAggregate['source'] = 'api'): Promise<EventAggregate> {
    return await this.apply(tx, partnerId, input, 'create', source);
  }

  /** PUT /v1/events: 404 when the event does not exist. */
  async update(tx: Tx, partnerId: string, input: EventInput): Promise<EventAggregate> {
    return await this.apply(tx, partnerId, input, 'update', 'api');
  }

  /** Pull feed and manual load: create or merge. */
  async upsert(tx: Tx, partnerId: string, input: EventInput, source: EventAggregate['source']): Promise<EventAggregate> {
    return await this.apply(tx, partnerId, input, 'upsert', source);
  }

  /** Reads an event; 404 for unknown and for another partner's alike. */
  async get(tx: Tx, partnerId: string, externalReferenceId: string): Promise<EventAggregate> {
    const agg = await this.load(tx, partnerId, externalReferenceId);
    if (!agg) throw ApiError.notFound('event', externalReferenceId);
    return agg;
  }

  /**
   * Cancels the whole event or one show. Shows already cancelled are left alone, so
   * cancelling twice is harmless. Raises `show.cancelled` for each show it cancels.
   */
  async cancel(tx: Tx, partnerId: string, externalReferenceId: string, showId?: string): Promise<EventAggregate> {
    const agg = await this.get(tx, partnerId, externalReferenceId);
    const targets = showId === undefined ? agg.shows : agg.shows.filter((s) => s.showId === showId);
    if (showId !== undefined && targets.length === 0) throw ApiError.notFound('show', showId);
    const now = this.clock.now();
    for (const show of targets) {
      if (show.status === 'CANCELLED') continue;
      await this.markCancelled(tx, agg, show, now);
    }
    return agg;
  }

  /**
   * ANNOUNCED shows whose `dates.salesStartAt` has come become ON_SALE. Returns how many.
   *
   * Runs every second (feeds job): it reads first and writes only when a show is due. An
   * UPDATE takes SQLite's write lock even when it changes no row, so an unconditional one
   * made the HTTP thread wait, every second, for whatever transaction another connection
   * (the ingestion worker, another process) was running.
   */
  async promoteAnnounced(): Promise<number> {
    const now = this.clock.now();
    const due = and(eq(shows.status, 'ANNOUNCED'), lte(shows.salesStartAt, now));
    if (!(await this.db.read(async (tx) => (await tx.select({ id: shows.id }).from(shows).where(due).limit(1))[0]))) return 0;
    // A transaction of its own: on the HTTP thread it takes turns with the worker (tickets.worker.ts).
    return this.db.transact(async (tx) => affected(await tx.update(shows).set({ status: 'ON_SALE', updatedAt: now }).where(due)));
  }

  /**
   * Sets a show's override of the partner's admission codes (which code the venue scans, the
   * rotating code's step; null follows the partner), with ticketShield's switch. True when
   * either changed.
   */
  async setAdmissionCodes(tx: Tx, showPk: string, codes: { venueScans: VenueScans; rotationSeconds: number | null } | null): Promise<boolean> {
    const next = { venueScans: codes?.venueScans ?? null, rotationSeconds: codes?.rotationSeconds ?? null };
    const row = (await tx.select({ venueScans: shows.venueScans, rotationSeconds: shows.rotationSeconds }).from(shows).where(eq(shows.id, showPk)).limit(1))[0];
    if (!row || (row.venueScans === next.venueScans && row.rotationSeconds === next.rotationSeconds)) return false;
    await tx.update(shows).set({ ...next, updatedAt: this.clock.now() }).where(eq(shows.id, showPk));
    return true;
  }

  /**
   * Switches ticketShield of a show (the operator's switch, flows/operator-changes.ts), in one
   * conditional update. True when the flag changed (the caller tells the partner), false
   * when it already had that value.
   */
  async setTicketShield(tx: Tx, showPk: string, status: boolean): Promise<boolean> {
    return affected(await tx.update(shows).set({ ticketShield: status, updatedAt: this.clock.now() }).where(and(eq(shows.id, showPk), ne(shows.ticketShield, status)))) === 1;
  }

  /**
   * Claims the announcement of a show's QR unlock (`event.unlock`, tickets.unlock.ts): sets
   * `unlockAnnouncedAt` to `now` if nobody has. True for the one caller that set it, so two
   * workers never announce twice.
   */
  async claimUnlockAnnouncement(tx: Tx, showPk: string, now: number): Promise<boolean> {
    return affected(await tx.update(shows).set({ unlockAnnouncedAt: now }).where(and(eq(shows.id, showPk), isNull(shows.unlockAnnouncedAt)))) === 1;
  }

  /**
   * Finds a show of a partner's event. Without `showId`, the event's only show; with
   * several shows `showId` is required (400 naming `field`).
   */
  async findShow(tx: Tx, partnerId: string, externalReferenceId: string, showId: string | null | undefined, field = 'showId'): Promise<ShowRef> {
    const event = (await tx.select().from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, externalReferenceId))).limit(1))[0];
    if (!event) throw ApiError.notFound('event', externalReferenceId);
    if (showId === undefined || showId === null) {
      const all = await tx.select().from(shows).where(eq(shows.eventPk, event.id)).limit(2);
      if (all.length !== 1) throw ApiError.field('missing_field', field, `${field} is required: event '${externalReferenceId}' has several shows`);
      return { event, show: all[0]! };
    }
    const show = (await tx.select().from(shows).where(and(eq(shows.eventPk, event.id), eq(shows.showId, showId))).limit(1))[0];
    if (!show) throw ApiError.notFound('show', showId);
    return { event, show };
  }

  /** A ticket option of a show, by the partner's id; 404 when it does not exist. */
  async findTicketOption(tx: Tx, showPk: string, ticketOptionId: string) {
    const row = (await tx.select().from(ticketOptions).where(and(eq(ticketOptions.showPk, showPk), eq(ticketOptions.ticketId, ticketOptionId))).limit(1))[0];
    if (!row) throw ApiError.notFound('ticket option', ticketOptionId);
    return row;
  }

  /** A price type of a show, by the partner's id; 404 when it does not exist. */
  async findPriceType(tx: Tx, showPk: string, priceTypeId: string) {
    const row = (await tx.select().from(priceTypes).where(and(eq(priceTypes.showPk, showPk), eq(priceTypes.priceTypeId, priceTypeId))).limit(1))[0];
    if (!row) throw ApiError.notFound('price type', priceTypeId);
    return row;
  }

  /**
   * The combination of a ticket option and a price type, where a flow needs one. A pair
   * that was never created does not exist, even when both sides do (spec, price detail).
   */
  async findCombination(tx: Tx, showPk: string, ticketOptionId: string, priceTypeId: string, field = 'priceTypeId') {
    const option = await this.findTicketOption(tx, showPk, ticketOptionId);
    const priceType = (await tx.select().from(priceTypes).where(and(eq(priceTypes.showPk, showPk), eq(priceTypes.priceTypeId, priceTypeId))).limit(1))[0];
    if (!priceType) throw ApiError.field('invalid_value', field, `Price type '${priceTypeId}' does not exist for this show`);
    const combo = (await tx.select().from(combinations).where(and(eq(combinations.ticketOptionPk, option.id), eq(combinations.priceTypePk, priceType.id))).limit(1))[0];
    if (!combo) {
      throw ApiError.field(
        'invalid_value',
        field,
        `Ticket option '${ticketOptionId}' and price type '${priceTypeId}' form no combination; create it (shows[].combinations or a COMBINATION rule) first`,
      );
    }
    return { option, priceType, combination: combo };
  }

  /** Creates or updates one combination (COMBINATION rule). */
  async upsertCombination(tx: Tx, partnerId: string, showPk: string, input: { ticketOptionId: string; priceTypeId: string; price: number | string; description?: string | undefined }, path = 'price') {
    const option = await this.findTicketOption(tx, showPk, input.ticketOptionId);
    const priceType = await this.findPriceType(tx, showPk, input.priceTypeId);
    const now = this.clock.now();
    const priceMinor = toMinor(input.price, option.currency, path);
    return (await tx
      .insert(combinations)
      .values({ id: newId('combination'), partnerId, showPk, ticketOptionPk: option.id, priceTypePk: priceType.id, priceMinor, description: input.description ?? null, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [combinations.ticketOptionPk, combinations.priceTypePk],
        set: { priceMinor, ...(input.description !== undefined ? { description: input.description } : {}), updatedAt: now },
      })
      .returning())[0]!;
  }

  // ---------------------------------------------------------------- internals

  private async apply(tx: Tx, partnerId: string, input: EventInput, mode: Mode, source: EventAggregate['source']): Promise<EventAggregate> {
    // Load, merge, save: serialised per event, so two saves at once (the API and a feed, or
    // two processes on PostgreSQL) apply one after the other instead of both from one state.
    await serializeOn(tx, `event:${partnerId}:${input.externalReferenceId}`);
    const existing = await this.load(tx, partnerId, input.externalReferenceId);
    if (mode === 'create' && existing) {
      throw ApiError.conflict(`Event '${input.externalReferenceId}' exists already; update it with PUT /v1/events`, 'externalReferenceId');
    }
    if (mode === 'update' && !existing) throw ApiError.notFound('event', input.externalReferenceId);

    const errors: ErrorEntry[] = [];
    input = withCleanChart(input, errors);
    const now = this.clock.now();
    const agg = existing ?? this.blankEvent(partnerId, input, source, errors);
    const before = new Map(agg.shows.map((s) => [s.showId, s.status]));
    if (existing) mergeEventFields(agg, input);

    const seenShows = new Set<string>();
    input.shows?.forEach((showIn, i) => {
      const path = `shows.${i}`;
      if (seenShows.has(showIn.showId)) {
        errors.push({ code: 'invalid_value', message: `${path}.showId '${showIn.showId}' appears twice`, path: `${path}.showId`, in: 'body' });
        return;
      }
      seenShows.add(showIn.showId);
      let show = agg.shows.find((s) => s.showId === showIn.showId);
      if (!show) {
        const created = newShow(showIn, path, errors, source === 'feed' ? 'ON_SALE' : 'LIVE');
        if (!created) return;
        agg.shows.push(created);
        show = created;
      }
      mergeShow(show, showIn, path, errors, now);
    });

    if (agg.shows.length === 0) errors.push({ code: 'missing_field', message: 'shows must hold at least one show', path: 'shows', in: 'body' });
    if (errors.length > 0) throw ApiError.invalid(errors);

    for (const show of agg.shows) {
      const was = before.get(show.showId);
      if (was === 'CANCELLED' && show.status !== 'CANCELLED') {
        // Cancellation is final (buyers refunded, payouts stopped). A feed that still lists
        // the show is stale: keep it cancelled and apply the rest of the event.
        if (mode === 'upsert') show.status = 'CANCELLED';
        else throw ApiError.conflict(`Show '${show.showId}' is cancelled and cannot be made ${show.status} again`, 'status');
      }
    }

    agg.updatedAt = now;
    await this.save(tx, agg, now);
    for (const show of agg.shows) {
      const was = before.get(show.showId);
      if (show.status === 'CANCELLED' && was !== undefined && was !== 'CANCELLED') await this.markCancelled(tx, agg, show, now);
    }
    return agg;
  }

  private async markCancelled(tx: Tx, agg: EventAggregate, show: ShowAggregate, now: number): Promise<void> {
    show.status = 'CANCELLED';
    show.cancelledAt = now;
    await tx.update(shows).set({ status: 'CANCELLED', cancelledAt: now, updatedAt: now }).where(eq(shows.id, show.id!));
    await this.bus.emit(tx, 'show.cancelled', {
      partnerId: agg.partnerId,
      eventPk: agg.id!,
      showPk: show.id!,
      externalReferenceId: agg.externalReferenceId,
      showId: show.showId,
      cancelledAt: now,
    });
  }

  private blankEvent(partnerId: string, input: EventInput, source: EventAggregate['source'], errors: ErrorEntry[]): EventAggregate {
    for (const field of ['title', 'description', 'location', 'configuration', 'shows'] as const) {
      if (input[field] === undefined) errors.push({ code: 'missing_field', message: `${field} is required to create an event`, path: field, in: 'body' });
    }
    return {
      partnerId,
      externalReferenceId: input.externalReferenceId,
      title: input.title ?? '',
      description: input.description ?? '',
      location: input.location ?? emptyLocation(),
      producers: input.producers ?? [],
      configuration: input.configuration ?? {},
      seating: input.seating ?? null,
      source,
      shows: [],
    };
  }

  private async load(tx: Tx, partnerId: string, externalReferenceId: string): Promise<EventAggregate | null> {
    const ev = (await tx.select().from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, externalReferenceId))).limit(1))[0];
    if (!ev) return null;
    const showRows = await tx.select().from(shows).where(eq(shows.eventPk, ev.id)).orderBy(asc(shows.position));
    const showPks = showRows.map((s) => s.id);
    const optionRows = showPks.length ? await tx.select().from(ticketOptions).where(inArray(ticketOptions.showPk, showPks)).orderBy(asc(ticketOptions.position)) : [];
    const ptRows = showPks.length ? await tx.select().from(priceTypes).where(inArray(priceTypes.showPk, showPks)).orderBy(asc(priceTypes.position)) : [];
    const comboRows = showPks.length ? await tx.select().from(combinations).where(inArray(combinations.showPk, showPks)).orderBy(asc(combinations.createdAt), asc(combinations.id)) : [];
    const optionIds = new Map(optionRows.map((o) => [o.id, o.ticketId]));
    const ptIds = new Map(ptRows.map((p) => [p.id, p.priceTypeId]));
    return {
      id: ev.id,
      partnerId: ev.partnerId,
      externalReferenceId: ev.externalReferenceId,
      title: ev.title,
      description: ev.description,
      location: ev.location,
      producers: ev.producers,
      configuration: ev.configuration,
      seating: ev.seating,
      source: ev.source,
      createdAt: ev.createdAt,
      updatedAt: ev.updatedAt,
      // Rows map onto the aggregate by dropping the bookkeeping columns.
      shows: showRows.map(({ partnerId: _p, eventPk: _e, position: _o, createdAt: _c, updatedAt: _u, ticketShield: _t, venueScans: _v, rotationSeconds: _r, unlockAnnouncedAt: _a, ...show }) => ({
        ...show,
        ticketOptions: optionRows.filter((o) => o.showPk === show.id).map(({ partnerId: _p2, showPk: _s, position: _o2, createdAt: _c2, updatedAt: _u2, ...o }) => o),
        priceTypes: ptRows.filter((p) => p.showPk === show.id).map(({ partnerId: _p3, showPk: _s3, position: _o3, createdAt: _c3, updatedAt: _u3, ...p }) => p),
        combinations: comboRows
          .filter((c) => c.showPk === show.id)
          .map((c) => ({ id: c.id, ticketOptionId: optionIds.get(c.ticketOptionPk)!, priceTypeId: ptIds.get(c.priceTypePk)!, priceMinor: c.priceMinor, description: c.description })),
      })),
    };
  }

  private async save(tx: Tx, agg: EventAggregate, now: number): Promise<void> {
    const eventValues = {
      title: agg.title,
      description: agg.description,
      location: agg.location,
      producers: agg.producers,
      configuration: agg.configuration,
      seating: agg.seating,
      updatedAt: now,
    };
    if (agg.id) await tx.update(events).set(eventValues).where(eq(events.id, agg.id));
    else {
      agg.id = newId('event');
      agg.createdAt = now;
      await tx.insert(events).values({ ...eventValues, id: agg.id, partnerId: agg.partnerId, externalReferenceId: agg.externalReferenceId, source: agg.source, createdAt: now });
    }
    await inOrder(agg.shows, async (show, position) => {
      const values = {
        title: show.title,
        startsAt: show.startsAt,
        status: show.status,
        primarySalesUrl: show.primarySalesUrl,
        images: show.images,
        configuration: show.configuration,
        location: show.location,
        showRescheduled: show.showRescheduled,
        resaleEnabled: show.resaleEnabled,
        dates: show.dates,
        salesStartAt: show.salesStartAt,
        tags: show.tags,
        cancelledAt: show.cancelledAt,
        position,
        updatedAt: now,
      };
      // A show that arrives already cancelled is stored cancelled; `apply` raises the
      // domain event only for shows that were live before.
      if (show.id) await tx.update(shows).set(values).where(eq(shows.id, show.id));
      else {
        show.id = newId('show');
        await tx.insert(shows).values({ ...values, id: show.id, partnerId: agg.partnerId, eventPk: agg.id!, showId: show.showId, createdAt: now });
      }
      const showPk = show.id;
      await inOrder(show.ticketOptions, async (o, i) => {
        const v = { title: o.title, description: o.description, currency: o.currency, priceMinor: o.priceMinor, stock: o.stock, webVisibility: o.webVisibility, webSoldOut: o.webSoldOut, area: o.area, position: i, updatedAt: now };
        if (o.id) await tx.update(ticketOptions).set(v).where(eq(ticketOptions.id, o.id));
        else {
          o.id = newId('ticketOption');
          await tx.insert(ticketOptions).values({ ...v, id: o.id, partnerId: agg.partnerId, showPk, ticketId: o.ticketId, createdAt: now });
        }
      });
      await inOrder(show.priceTypes, async (p, i) => {
        const v = {
          externalObjectId: p.externalObjectId,
          title: p.title,
          description: p.description,
          webVisibility: p.webVisibility,
          webSoldOut: p.webSoldOut,
          stock: p.stock,
          invisible: p.invisible,
          inventory: p.inventory,
          position: i,
          updatedAt: now,
        };
        if (p.id) await tx.update(priceTypes).set(v).where(eq(priceTypes.id, p.id));
        else {
          p.id = newId('priceType');
          await tx.insert(priceTypes).values({ ...v, id: p.id, partnerId: agg.partnerId, showPk, priceTypeId: p.priceTypeId, createdAt: now });
        }
      });
      const optionPk = new Map(show.ticketOptions.map((o) => [o.ticketId, o.id!]));
      const ptPk = new Map(show.priceTypes.map((p) => [p.priceTypeId, p.id!]));
      for (const c of show.combinations) {
        const v = { priceMinor: c.priceMinor, description: c.description, updatedAt: now };
        if (c.id) await tx.update(combinations).set(v).where(eq(combinations.id, c.id));
        else {
          c.id = newId('combination');
          await tx.insert(combinations)
            .values({ ...v, id: c.id, partnerId: agg.partnerId, showPk, ticketOptionPk: optionPk.get(c.ticketOptionId)!, priceTypePk: ptPk.get(c.priceTypeId)!, createdAt: now });
        }
      }
    });
  }
}

// ------------------------------------------------------------------ merging

/**
 * The input with its seating chart sanitised (see events.svg.ts), whoever sends it: the
 * schemas sanitise while validating, so for the API and the feed this is a memo hit; the manual
 * load and any other caller get the same treatment. A chart with nothing usable left is an error.
 */
function withCleanChart(input: EventInput, errors: ErrorEntry[]): EventInput {
  const code = input.seating?.svgCode;
  if (code === undefined) return input;
  const clean = cleanSvgChart(code);
  if (clean === null) {
    errors.push({ code: 'invalid_value', message: `seating.svgCode ${SVG_CHART_UNUSABLE}`, path: 'seating.svgCode', in: 'body' });
    return input;
  }
  return clean === code ? input : { ...input, seating: { ...input.seating, svgCode: clean } };
}

function emptyLocation(): Location {
  return { city: '', state: '', venueName: '', address: '', country: '', postalCode: '' };
}

function mergeEventFields(agg: EventAggregate, input: EventInput): void {
  if (input.title !== undefined) agg.title = input.title;
  if (input.description !== undefined) agg.description = input.description;
  if (input.location !== undefined) agg.location = input.location;
  if (input.producers !== undefined) agg.producers = input.producers;
  if (input.configuration !== undefined) agg.configuration = input.configuration;
  if (input.seating !== undefined) agg.seating = input.seating;
}

/** A show not stored yet; `status` is the default of its source (LIVE for the API, ON_SALE for the feed). */
function newShow(input: ShowInput, path: string, errors: ErrorEntry[], status: ShowStatus): ShowAggregate | null {
  const missing = (['title', 'ticketOptions', 'images', 'configuration'] as const).filter((f) => input[f] === undefined);
  if (input.date === undefined && input.dates?.startsAt === undefined) missing.push('date' as never);
  for (const f of missing) errors.push({ code: 'missing_field', message: `${path}.${f} is required for a new show`, path: `${path}.${f}`, in: 'body' });
  if (missing.length > 0) return null;
  return {
    showId: input.showId,
    title: '',
    startsAt: 0,
    status,
    primarySalesUrl: null,
    images: [],
    configuration: {},
    location: null,
    showRescheduled: false,
    resaleEnabled: true,
    dates: null,
    salesStartAt: null,
    tags: [],
    cancelledAt: null,
    ticketOptions: [],
    priceTypes: [],
    combinations: [],
  };
}

function mergeShow(show: ShowAggregate, input: ShowInput, path: string, errors: ErrorEntry[], now: number): void {
  if (input.title !== undefined) show.title = input.title;
  // dates.startsAt holds a rescheduled show's new date, so it wins over `date`.
  const date = input.dates?.startsAt ?? input.date;
  if (date !== undefined) show.startsAt = fromIso(date);
  if (input.primarySalesUrl !== undefined) show.primarySalesUrl = input.primarySalesUrl;
  if (input.images !== undefined) show.images = input.images;
  if (input.configuration !== undefined) show.configuration = input.configuration;
  if (input.showRescheduled !== undefined) show.showRescheduled = input.showRescheduled;
  if (input.location !== undefined) show.location = input.location;
  if (input.resaleEnabled !== undefined) show.resaleEnabled = input.resaleEnabled;
  if (input.tags !== undefined) show.tags = input.tags;
  if (input.dates !== undefined) {
    show.dates = input.dates;
    show.salesStartAt = input.dates.salesStartAt ? fromIso(input.dates.salesStartAt) : null;
  }
  if (input.status !== undefined) show.status = input.status;
  // An ANNOUNCED show whose sales have already started is ON_SALE from the start.
  if (show.status === 'ANNOUNCED' && show.salesStartAt !== null && show.salesStartAt <= now) show.status = 'ON_SALE';
  if (show.status === 'CANCELLED' && show.cancelledAt === null && show.id === undefined) show.cancelledAt = now;

  const seenOptions = new Set<string>();
  input.ticketOptions?.forEach((o, i) => {
    const p = `${path}.ticketOptions.${i}`;
    if (seenOptions.has(o.ticketId)) return void errors.push({ code: 'invalid_value', message: `${p}.ticketId '${o.ticketId}' appears twice in this show`, path: `${p}.ticketId`, in: 'body' });
    seenOptions.add(o.ticketId);
    let option = show.ticketOptions.find((x) => x.ticketId === o.ticketId);
    if (!option) {
      const missing = (['title', 'description', 'currency'] as const).filter((f) => o[f] === undefined);
      for (const f of missing) errors.push({ code: 'missing_field', message: `${p}.${f} is required for a new ticket option`, path: `${p}.${f}`, in: 'body' });
      if (missing.length > 0) return;
      option = { ticketId: o.ticketId, title: '', description: '', currency: o.currency!, priceMinor: null, stock: null, webVisibility: true, webSoldOut: null, area: null };
      show.ticketOptions.push(option);
    }
    if (o.title !== undefined) option.title = o.title;
    if (o.description !== undefined) option.description = o.description;
    if (o.currency !== undefined && option.id !== undefined && o.currency !== option.currency) {
      // Stored amounts (prices, combinations, rule amounts) are minor units of the old currency.
      errors.push({ code: 'invalid_value', message: `${p}.currency cannot change from ${option.currency} on an existing ticket option; create a new option`, path: `${p}.currency`, in: 'body' });
      return;
    }
    if (o.currency !== undefined) option.currency = o.currency;
    if (o.stock !== undefined) option.stock = o.stock;
    if (o.webVisibility !== undefined) option.webVisibility = o.webVisibility;
    if (o.webSoldOut !== undefined) option.webSoldOut = o.webSoldOut;
    if (o.area !== undefined) option.area = o.area;
    if (o.price !== undefined) {
      try {
        option.priceMinor = o.price === null ? null : toMinor(o.price, option.currency, `${p}.price`);
      } catch (err) {
        if (err instanceof ApiError) errors.push(...err.entries);
        else throw err;
      }
    }
  });

  const seenPts = new Set<string>();
  input.priceTypes?.forEach((pt, i) => {
    const p = `${path}.priceTypes.${i}`;
    if (seenPts.has(pt.priceTypeId)) return void errors.push({ code: 'invalid_value', message: `${p}.priceTypeId '${pt.priceTypeId}' appears twice in this show`, path: `${p}.priceTypeId`, in: 'body' });
    seenPts.add(pt.priceTypeId);
    let priceType = show.priceTypes.find((x) => x.priceTypeId === pt.priceTypeId);
    if (!priceType) {
      priceType = { priceTypeId: pt.priceTypeId, externalObjectId: null, title: null, description: null, webVisibility: true, webSoldOut: null, stock: null, invisible: false, inventory: null };
      show.priceTypes.push(priceType);
    }
    if (pt._id !== undefined) priceType.externalObjectId = pt._id;
    if (pt.title !== undefined) priceType.title = pt.title;
    if (pt.description !== undefined) priceType.description = pt.description;
    if (pt.webVisibility !== undefined) priceType.webVisibility = pt.webVisibility;
    if (pt.webSoldOut !== undefined) priceType.webSoldOut = pt.webSoldOut;
    if (pt.stock !== undefined) priceType.stock = pt.stock;
    if (pt.invisible !== undefined) priceType.invisible = pt.invisible;
    if (pt.inventory !== undefined) priceType.inventory = pt.inventory;
  });

  const seenPairs = new Set<string>();
  input.combinations?.forEach((c, i) => {
    const p = `${path}.combinations.${i}`;
    const key = `${c.ticketOptionId}\u0000${c.priceTypeId}`;
    if (seenPairs.has(key)) return void errors.push({ code: 'invalid_value', message: `${p} repeats the pair ${c.ticketOptionId} + ${c.priceTypeId}`, path: p, in: 'body' });
    seenPairs.add(key);
    const option = show.ticketOptions.find((o) => o.ticketId === c.ticketOptionId);
    const priceType = show.priceTypes.find((x) => x.priceTypeId === c.priceTypeId);
    if (!option) errors.push({ code: 'invalid_value', message: `${p}.ticketOptionId '${c.ticketOptionId}' is not a ticket option of show '${show.showId}'`, path: `${p}.ticketOptionId`, in: 'body' });
    if (!priceType) errors.push({ code: 'invalid_value', message: `${p}.priceTypeId '${c.priceTypeId}' is not a price type of show '${show.showId}'`, path: `${p}.priceTypeId`, in: 'body' });
    if (!option || !priceType) return;
    let priceMinor: number;
    try {
      priceMinor = toMinor(c.price, option.currency, `${p}.price`);
    } catch (err) {
      if (err instanceof ApiError) return void errors.push(...err.entries);
      throw err;
    }
    const existing = show.combinations.find((x) => x.ticketOptionId === c.ticketOptionId && x.priceTypeId === c.priceTypeId);
    if (existing) {
      existing.priceMinor = priceMinor;
      if (c.description !== undefined) existing.description = c.description;
    } else show.combinations.push({ ticketOptionId: c.ticketOptionId, priceTypeId: c.priceTypeId, priceMinor, description: c.description ?? null });
  });
}
