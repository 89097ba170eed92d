import { and, asc, count, desc, eq, gt, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { serializeOn } from '../../db/dialect.js';
import { toIso } from '../../lib/clock.js';
import { isTimeZone } from '../../lib/zoned-time.js';
import { ApiError, type ErrorEntry } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { inOrder } from '../../lib/in-order.js';
import type { Kernel } from '../../lib/kernel.js';
import { ticketOptionOfShow, ticketOptionsOfShows, type EventRow, type ShowRow } from '../events/events.queries.js';
import { isResaleOpen } from '../events/events.model.js';
import type { EventsService } from '../events/events.service.js';
import { partnerUserId, userByPk, usersByPks, type UserRow } from '../users/users.queries.js';
import {
  DEFAULT_OFFER_MINUTES,
  LIVE_ENTRY_STATES,
  MAX_OFFER_MINUTES,
  MIN_OFFER_MINUTES,
  PRICE_CAPS,
  WaitingListConflict,
  type EntryState,
  type HistoryKind,
  type JoinInput,
  type OfferOutcome,
  type QuietHours,
  type SettingsInput,
  type ShowKey,
  type WaitingListEntry,
  type WaitingListHistoryItem,
  type WaitingListOffer,
  type WaitingListSettings,
} from './waitinglist.model.js';
import { liveOfferOfEntry, offerOfIntention, waitingListSettingsOf } from './waitinglist.queries.js';
import {
  waitinglistEntries,
  waitinglistHistory,
  waitinglistOffers,
  waitinglistSettings,
  type WaitinglistEntryRow,
  type WaitinglistHistoryRow,
  type WaitinglistOfferRow,
  type WaitinglistSettingsRow,
} from './waitinglist.table.js';

/**
 * The key of a show's waiting-list lock (`serializeOn`): every write to a show's line takes it
 * before its first read, and the offer flow takes the same one before it reads the line.
 */
export function waitingListLockKey(showPk: string): string {
  return `waitinglist:${showPk}`;
}

/** What the offer flow records when it has made a buy intention hold listings for an entry's fan. */
export interface RecordOfferInput {
  entryId: string;
  /** The buy intention holding the listings (RESERVED) for the fan until `expiresAt`. */
  intentionId: string;
  listingIds: readonly string[];
  /** Tickets held: exactly the entry's quantity. */
  quantity: number;
  expiresAt: number;
  /** When the fan is told: now, or the end of the show's quiet hours (at most `expiresAt`). */
  notifyAt: number;
}

/** What leaving did: the entry (LEFT) and, when it held an offer, the checkout the caller must cancel. */
export interface LeaveResult {
  entry: WaitingListEntry;
  /**
   * The buy intention of the offer declined by leaving, or null. The caller cancels it (its
   * listings go back, to the next fan or on sale); that intention's end then finds the offer
   * already ended and changes nothing here.
   */
  cancelIntentionId: string | null;
}

/** What closing a show's line did. */
export interface CloseResult {
  /** Entries closed (every live one). */
  closed: number;
  /** The buy intentions of the offers withdrawn with them, for the caller to cancel. */
  cancelIntentionIds: string[];
}

/** One row of a show's history as the operator's export (CSV and API) gives it, in {@link HISTORY_EXPORT_COLUMNS} order. */
export interface HistoryExportRow {
  seq: number;
  at: string;
  kind: HistoryKind;
  entryId: string;
  /** The entry's own `seq`: its place in the line. */
  entrySeq: number;
  offerId: string | null;
  /** How the partner knows the fan (its user id, else e-mail, else phone). */
  userId: string;
  email: string | null;
  phone: string | null;
  /** The partner's ticket option id; null: any option. */
  ticketOptionId: string | null;
  quantity: number;
  together: boolean;
  /** The offered listings (offers and their ends), space-separated. */
  listingIds: string;
  reason: string | null;
}

/** The export's columns, in order: a CSV's header. */
export const HISTORY_EXPORT_COLUMNS = [
  'seq',
  'at',
  'kind',
  'entryId',
  'entrySeq',
  'offerId',
  'userId',
  'email',
  'phone',
  'ticketOptionId',
  'quantity',
  'together',
  'listingIds',
  'reason',
] as const satisfies readonly (keyof HistoryExportRow)[];

/** The history row each way an offer ends writes. */
const OUTCOME_KIND = { CONVERTED: 'bought', EXPIRED: 'expired', DECLINED: 'declined', WITHDRAWN: 'withdrawn' } as const satisfies Record<OfferOutcome, HistoryKind>;
/** The end reason an offer gets when its caller gives none. */
const OUTCOME_REASON = { CONVERTED: 'paid', EXPIRED: 'timeout', DECLINED: 'declined', WITHDRAWN: 'withdrawn' } as const satisfies Record<OfferOutcome, string>;

/** Wall time `HH:MM`, 00:00 to 23:59. */
const WALL_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
/** History rows per insert when a line closes (9 columns: well under either engine's bound-parameter limit). */
const INSERT_CHUNK = 500;
/** Users per lookup of the export. */
const READ_CHUNK = 1000;

const isLive = (): SQL => inArray(waitinglistEntries.state, LIVE_ENTRY_STATES);

/**
 * A fair waiting list per show: an organiser's settings, fans joining and
 * leaving, their positions, and the bookkeeping of offers that the offer flow calls. No HTTP, no
 * e-mail, no listings: the flow composes those, this module owns the four `waitinglist_*` tables.
 *
 * Order. Every write to a show's line runs under the show's lock (`serializeOn`, key
 * {@link waitingListLockKey}, taken before its first read; re-entrant within a transaction on
 * PostgreSQL, nothing on SQLite whose write transaction is already the only one) and takes its
 * number from the show's sequence (`waitinglist_settings.next_seq`): join order is lock order is
 * commit order, across processes. Nothing a fan does changes their `seq` except leaving.
 * `joinedAt` is the service's clock, for display: two processes' clocks may disagree, the
 * sequence never does.
 *
 * Transitions. Each is one conditional UPDATE on the expected state and one append-only history
 * row (see `ENTRY_STATES` for the state machine and the decisions behind it: an expired or
 * declined offer ends the entry; a withdrawn one puts it back keeping its place; buying on the
 * open market closes nothing).
 *
 * Who may join is the caller's decision: the service takes the fan's user pk (checked to be the
 * partner's) and leaves contact checks to the caller; a fan with only a verified phone may join
 * (their offers then go by SMS).
 */
export class WaitingListService {
  constructor(private readonly deps: Pick<Kernel, 'clock' | 'bus'> & { events: EventsService }) {}

  // ------------------------------------------------------------------ settings

  /**
   * A show's settings; the defaults (off, {@link DEFAULT_OFFER_MINUTES}, no quiet hours, `RULES`)
   * when the organiser never set any.
   *
   * @throws ApiError 404 unknown (or another partner's) event or show
   * @example await svc.getSettings(tx, partnerId, { externalReferenceEventId: 'tour', showId: 'show-1' })
   */
  async getSettings(tx: Tx, partnerId: string, key: ShowKey): Promise<WaitingListSettings> {
    const { show } = await this.findShow(tx, partnerId, key);
    const row = await waitingListSettingsOf(tx, show.id);
    return row ? settingsOf(row) : defaultSettings(partnerId, show.id);
  }

  /**
   * Sets a show's settings whole (a PUT: an absent `offerMinutes` is the default, absent
   * `quietHours` none). Every invalid field is named at once, nothing written. Quiet hours
   * without a `timeZone` take the venue's (the show's location, else the event's), stored with
   * them. Turning the list off pauses it (no joins, no offers) and keeps every fan's place;
   * ending the line is {@link close}.
   *
   * @throws ApiError 404 unknown event or show; 400 `offerMinutes` not a whole number from
   *   5 to 1440, `quietHours.start`/`end` not `HH:MM` or equal, `quietHours.timeZone` unknown
   *   or absent where the venue has none, `priceCap` not `FACE_VALUE`/`RULES`
   * @example await svc.putSettings(tx, partnerId, { externalReferenceEventId: 'tour', showId: 'show-1' }, { enabled: true, priceCap: 'FACE_VALUE', quietHours: { start: '22:00', end: '08:00' } })
   */
  async putSettings(tx: Tx, partnerId: string, key: ShowKey, input: SettingsInput): Promise<WaitingListSettings> {
    const { event, show } = await this.findShow(tx, partnerId, key);
    const { values, errors } = validSettings(input, show.location?.timeZone || event.location.timeZone || null);
    if (errors.length > 0) throw ApiError.invalid(errors);
    await serializeOn(tx, waitingListLockKey(show.id));
    const wasOn = (await waitingListSettingsOf(tx, show.id))?.enabled ?? false;
    const now = this.deps.clock.now();
    const row = (await tx
      .insert(waitinglistSettings)
      .values({ showPk: show.id, partnerId, ...values, nextSeq: 0, waiting: 0, createdAt: now, updatedAt: now })
      // The counters are the line's, not the organiser's: a new setting keeps them.
      .onConflictDoUpdate({ target: waitinglistSettings.showPk, set: { ...values, updatedAt: now } })
      .returning())[0]!;
    // Turned on: what is on sale now goes to the line (the offers' `matchShow`), in this transaction.
    if (row.enabled && !wasOn) {
      await this.deps.bus.emit(tx, 'waitinglist.enabled', { partnerId, showPk: show.id });
      return settingsOf((await waitingListSettingsOf(tx, show.id)) ?? row);
    }
    return settingsOf(row);
  }

  // ------------------------------------------------------------------ fans

  /**
   * Puts a fan at the back of a show's line: a new entry WAITING, numbered by the show's
   * sequence, and its `joined` history row. One live entry per fan per show: a second join is
   * refused (409) before anything is written, and the unique partial index refuses it whatever
   * the concurrency.
   *
   * @throws ApiError 404 unknown (or another partner's) event, show or user; 400 (every one at
   *   once) `quantity` not a whole number from 1 to `maxPerBuyer`, `ticketOptionId` not an option
   *   of the show, `together` for a show without seats (no seating chart); 409 `resale_closed`
   *   (cancelled, hidden or resale off) or `show_started`; {@link WaitingListConflict} 409
   *   `waitinglist_closed` (the list is not enabled) or `already_waiting` (naming the live entry)
   * @example await svc.join(tx, partnerId, { externalReferenceEventId: 'tour', showId: 'show-1', userPk, quantity: 2, maxPerBuyer: 10, together: true })
   */
  async join(tx: Tx, partnerId: string, input: JoinInput): Promise<WaitingListEntry> {
    if (!Number.isInteger(input.maxPerBuyer) || input.maxPerBuyer < 1) throw new Error(`waitinglist.join: maxPerBuyer must be a whole number of at least 1, not ${input.maxPerBuyer}`);
    const { event, show } = await this.findShow(tx, partnerId, input);
    const user = await userByPk(tx, input.userPk);
    // Another partner's user reads as unknown: a key acts only for its own users.
    if (!user || user.partnerId !== partnerId) throw ApiError.notFound('user');

    const errors: ErrorEntry[] = [];
    if (!Number.isInteger(input.quantity) || input.quantity < 1 || input.quantity > input.maxPerBuyer) {
      errors.push({ code: 'out_of_range', message: `quantity must be a whole number from 1 to ${input.maxPerBuyer} (the most tickets one buyer may hold for this show)`, path: 'quantity', in: 'body' });
    }
    let ticketOptionPk: string | null = null;
    if (input.ticketOptionId !== undefined && input.ticketOptionId !== null) {
      const option = await ticketOptionOfShow(tx, show.id, input.ticketOptionId);
      if (option) ticketOptionPk = option.id;
      else errors.push({ code: 'invalid_value', message: `ticketOptionId '${input.ticketOptionId}' is not a ticket option of show '${show.showId}'`, path: 'ticketOptionId', in: 'body' });
    }
    if (input.together && !hasSeats(event)) {
      errors.push({ code: 'invalid_value', message: `together asks for seats side by side, and show '${show.showId}' has no seats (its event has no seating chart)`, path: 'together', in: 'body' });
    }
    if (errors.length > 0) throw ApiError.invalid(errors);
    this.assertOpen(show);

    await serializeOn(tx, waitingListLockKey(show.id));
    const settings = await waitingListSettingsOf(tx, show.id);
    if (!settings?.enabled) throw new WaitingListConflict('waitinglist_closed', `The waiting list of show '${show.showId}' is not open`, 'showId');
    const live = await this.liveEntryOf(tx, show.id, user.id);
    if (live) throw new WaitingListConflict('already_waiting', `This fan is already on the waiting list of show '${show.showId}' (entry ${live.id})`, 'user', live.id);

    // Checked before the sequence moves, so a refusal writes nothing even in a transaction that goes on.
    const seq = await this.advance(tx, show.id, 1);
    const now = this.deps.clock.now();
    const row = (await tx
      .insert(waitinglistEntries)
      .values({
        id: newId('waitingListEntry'),
        partnerId,
        eventPk: event.id,
        showPk: show.id,
        userPk: user.id,
        ticketOptionPk,
        quantity: input.quantity,
        together: input.together,
        seq,
        state: 'WAITING',
        source: input.source ?? 'api',
        joinedAt: now,
        endedAt: null,
        endReason: null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning())[0];
    if (!row) {
      // Only a writer that skipped the lock gets here: the unique partial index kept the line to
      // one live entry per fan (anything else refused is a broken sequence, not the fan's doing).
      const other = await this.liveEntryOf(tx, show.id, user.id);
      if (!other) throw new Error(`waitinglist.join: number ${seq} of show ${show.id} was taken`);
      throw new WaitingListConflict('already_waiting', `This fan is already on the waiting list of show '${show.showId}' (entry ${other.id})`, 'user', other.id);
    }
    const position = await this.positionOf(tx, show.id, seq);
    await this.appendHistory(tx, row, seq, 'joined', null, { position, quantity: row.quantity, together: row.together, ticketOptionPk, source: row.source });
    // Its listeners tell the partner and offer fitting stock on sale at once: the entry is
    // answered as it stands after them (OFFERED, with its offer, when it was).
    await this.deps.bus.emit(tx, 'waitinglist.joined', { partnerId, showPk: show.id, entryId: row.id });
    return await this.withPosition(tx, (await tx.select().from(waitinglistEntries).where(eq(waitinglistEntries.id, row.id)).limit(1))[0] ?? row);
  }

  /**
   * Takes a fan out of the line (the fan or the partner left): WAITING or OFFERED → LEFT, and a
   * live offer is declined with it, in one transition (one `left` history row naming the offer).
   * With `userPk`, only that fan's entry (another's reads as unknown).
   *
   * @throws ApiError 404 unknown (or another partner's, or another fan's) entry;
   *   {@link WaitingListConflict} 409 `waitinglist_ended` when the entry is already final
   * @example const { cancelIntentionId } = await svc.leave(tx, partnerId, entryId, { userPk })
   */
  async leave(tx: Tx, partnerId: string, entryId: string, opts: { userPk?: string | undefined; reason?: string | undefined } = {}): Promise<LeaveResult> {
    const found = await this.entryRow(tx, partnerId, entryId, opts.userPk);
    await serializeOn(tx, waitingListLockKey(found.showPk));
    // Read again under the lock: an offer may have been made or ended meanwhile.
    const entry = await this.entryRow(tx, partnerId, entryId, opts.userPk);
    if (entry.state !== 'WAITING' && entry.state !== 'OFFERED') throw new WaitingListConflict('waitinglist_ended', `This waiting-list entry has ended (${entry.state})`, 'entryId');
    const reason = opts.reason ?? 'left';
    const now = this.deps.clock.now();
    let declined: WaitinglistOfferRow | undefined;
    if (entry.state === 'OFFERED') {
      declined = (await tx
        .update(waitinglistOffers)
        .set({ state: 'DECLINED', endedAt: now, endReason: reason, updatedAt: now })
        .where(and(eq(waitinglistOffers.entryId, entry.id), eq(waitinglistOffers.state, 'LIVE')))
        .returning())[0];
    }
    const left = await this.moveEntry(tx, entry.id, entry.state, 'LEFT', reason);
    const seq = await this.advance(tx, entry.showPk, -1);
    await this.appendHistory(tx, left, seq, 'left', declined?.id ?? null, { reason, ...(declined ? { declinedOfferId: declined.id, listingIds: declined.listingIds } : {}) });
    return { entry: toEntry(left, null, null), cancelIntentionId: declined?.intentionId ?? null };
  }

  /**
   * One entry with its position, live offer and history (oldest first). With `userPk`, only that
   * fan's entry.
   *
   * @throws ApiError 404 unknown (or another partner's, or another fan's) entry
   */
  async get(tx: Tx, partnerId: string, entryId: string, opts: { userPk?: string | undefined } = {}): Promise<WaitingListEntry & { history: WaitingListHistoryItem[] }> {
    const row = await this.entryRow(tx, partnerId, entryId, opts.userPk);
    const history = await tx.select().from(waitinglistHistory).where(eq(waitinglistHistory.entryId, row.id)).orderBy(asc(waitinglistHistory.seq));
    return { ...(await this.withPosition(tx, row)), history: history.map(toHistoryItem) };
  }

  /**
   * A fan's entries, newest first, each with its position (live ones) and live offer: of one
   * show with `show`, only live ones with `live`.
   *
   * @throws ApiError 404 unknown event or show (with `show`)
   */
  async entriesOf(tx: Tx, partnerId: string, userPk: string, opts: { show?: ShowKey | undefined; live?: boolean | undefined } = {}): Promise<WaitingListEntry[]> {
    const where: SQL[] = [eq(waitinglistEntries.partnerId, partnerId), eq(waitinglistEntries.userPk, userPk)];
    if (opts.show) where.push(eq(waitinglistEntries.showPk, (await this.findShow(tx, partnerId, opts.show)).show.id));
    if (opts.live) where.push(isLive());
    const rows = await tx
      .select()
      .from(waitinglistEntries)
      .where(and(...where))
      .orderBy(desc(waitinglistEntries.joinedAt), desc(waitinglistEntries.id));
    return await inOrder(rows, async (row) => await this.withPosition(tx, row));
  }

  /**
   * The fan's live entry (WAITING or OFFERED) in a show's line, with its position and live
   * offer; null when the fan is not in it. By the show's key, for readers that already hold it
   * (the buy access layer's answer signed for a fan): one index seek, plus the position's count.
   */
  async liveEntryOfFan(tx: Tx, showPk: string, userPk: string): Promise<WaitingListEntry | null> {
    const row = await this.liveEntryOf(tx, showPk, userPk);
    return row ? await this.withPosition(tx, row) : null;
  }

  // ------------------------------------------------------------------ offers (the offer flow's primitives)

  /**
   * Records an offer the flow has made (its buy intention already holds the listings): the
   * entry WAITING → OFFERED, the offer LIVE, an `offered` history row. Conditional on the entry
   * still WAITING; at most one LIVE offer per entry (a unique partial index). Call it in the
   * transaction that reserved the listings, under the show's lock.
   *
   * @throws ApiError 404 unknown entry; {@link WaitingListConflict} 409 `not_waiting` when the
   *   entry is not WAITING (offered, or final); Error on a caller's mistake (a quantity other than
   *   the entry's, no listings, an end not after now, a notice after the end)
   */
  async recordOffer(tx: Tx, input: RecordOfferInput): Promise<WaitingListOffer> {
    const found = (await tx.select().from(waitinglistEntries).where(eq(waitinglistEntries.id, input.entryId)).limit(1))[0];
    if (!found) throw ApiError.notFound('waiting-list entry', input.entryId);
    const now = this.deps.clock.now();
    if (input.quantity !== found.quantity) throw new Error(`waitinglist.recordOffer: ${input.quantity} tickets offered to entry ${found.id}, which waits for ${found.quantity}`);
    if (input.listingIds.length === 0) throw new Error('waitinglist.recordOffer: an offer holds at least one listing');
    if (!(input.expiresAt > now) || input.notifyAt > input.expiresAt) throw new Error(`waitinglist.recordOffer: an offer ends after now and after its notice (now ${now}, notifyAt ${input.notifyAt}, expiresAt ${input.expiresAt})`);
    await serializeOn(tx, waitingListLockKey(found.showPk));
    const entry = (await tx
      .update(waitinglistEntries)
      .set({ state: 'OFFERED', updatedAt: now })
      .where(and(eq(waitinglistEntries.id, found.id), eq(waitinglistEntries.state, 'WAITING')))
      .returning())[0];
    if (!entry) {
      const state = (await tx.select({ state: waitinglistEntries.state }).from(waitinglistEntries).where(eq(waitinglistEntries.id, found.id)).limit(1))[0]?.state;
      throw new WaitingListConflict('not_waiting', `Waiting-list entry ${found.id} is ${state ?? found.state}: only a WAITING entry is offered tickets`, 'entryId');
    }
    const offer = (await tx
      .insert(waitinglistOffers)
      .values({
        id: newId('waitingListOffer'),
        partnerId: entry.partnerId,
        showPk: entry.showPk,
        entryId: entry.id,
        intentionId: input.intentionId,
        listingIds: [...input.listingIds],
        quantity: input.quantity,
        state: 'LIVE',
        notifyAt: input.notifyAt,
        expiresAt: input.expiresAt,
        messageId: null,
        endedAt: null,
        endReason: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning())[0]!;
    const seq = await this.advance(tx, entry.showPk, 0);
    await this.appendHistory(tx, entry, seq, 'offered', offer.id, { intentionId: offer.intentionId, listingIds: offer.listingIds, quantity: offer.quantity, notifyAt: toIso(offer.notifyAt), expiresAt: toIso(offer.expiresAt) });
    return toOffer(offer);
  }

  /**
   * Notes the outbox message that tells the fan of an offer (once: a second call changes nothing).
   * Bookkeeping only, no history row: the offer's transition is `offered`.
   */
  async noteOfferMessage(tx: Tx, offerId: string, messageId: string): Promise<void> {
    await tx
      .update(waitinglistOffers)
      .set({ messageId, updatedAt: this.deps.clock.now() })
      .where(and(eq(waitinglistOffers.id, offerId), isNull(waitinglistOffers.messageId)));
  }

  /**
   * Ends the LIVE offer held by a buy intention, as the intention ended, and moves its entry:
   * - `CONVERTED` (paid): entry OFFERED → CONVERTED, history `bought`;
   * - `EXPIRED` (time ran out, or the payment failed): entry → EXPIRED, history `expired`;
   * - `DECLINED` (the fan said no thanks or cancelled the checkout): entry → DECLINED, `declined`;
   * - `WITHDRAWN` (not the fan's doing: the listing was delisted, its ticket moved): entry back to
   *   WAITING with its `seq`, history `withdrawn`.
   *
   * An expired or declined offer ends the entry (the fan may rejoin at the back), so a fan who
   * does not answer cannot hold the head of the line. Null, changing nothing, when the intention
   * holds no offer or its offer has already ended (the fan left first; an intention that ends
   * twice): the intention's own end must never fail because of the list.
   *
   * @param reason stored as the offer's end reason (defaults: `paid`, `timeout`, `declined`, `withdrawn`)
   */
  async endOffer(tx: Tx, intentionId: string, outcome: OfferOutcome, reason?: string): Promise<{ offer: WaitingListOffer; entry: WaitingListEntry } | null> {
    const found = await offerOfIntention(tx, intentionId);
    if (!found) return null;
    await serializeOn(tx, waitingListLockKey(found.showPk));
    const now = this.deps.clock.now();
    const why = reason ?? OUTCOME_REASON[outcome];
    const offer = (await tx
      .update(waitinglistOffers)
      .set({ state: outcome, endedAt: now, endReason: why, updatedAt: now })
      .where(and(eq(waitinglistOffers.id, found.id), eq(waitinglistOffers.state, 'LIVE')))
      .returning())[0];
    if (!offer) return null;
    const next: EntryState = outcome === 'WITHDRAWN' ? 'WAITING' : outcome;
    const entry = await this.moveEntry(tx, offer.entryId, 'OFFERED', next, why);
    // A withdrawn offer's fan is still waiting: the count of live entries stays.
    const seq = await this.advance(tx, offer.showPk, next === 'WAITING' ? 0 : -1);
    await this.appendHistory(tx, entry, seq, OUTCOME_KIND[outcome], offer.id, { reason: why, intentionId, listingIds: offer.listingIds });
    return { offer: toOffer(offer), entry: toEntry(entry, next === 'WAITING' ? await this.positionOf(tx, entry.showPk, entry.seq) : null, null) };
  }

  /**
   * Closes a show's line (the show was cancelled, has started, or its resale closed): every live
   * entry → CLOSED, each with a `closed` history row in `seq` order; a LIVE offer is withdrawn
   * with its entry (the row names it). The settings stay as they were. Called with the show's
   * primary key by flows and jobs that already know the show is the partner's.
   *
   * @returns how many entries closed and the withdrawn offers' buy intentions, which the caller cancels
   */
  async close(tx: Tx, showPk: string, reason: string): Promise<CloseResult> {
    await serializeOn(tx, waitingListLockKey(showPk));
    const live = await tx
      .select()
      .from(waitinglistEntries)
      .where(and(eq(waitinglistEntries.showPk, showPk), isLive()))
      .orderBy(asc(waitinglistEntries.seq));
    if (live.length === 0) return { closed: 0, cancelIntentionIds: [] };
    const now = this.deps.clock.now();
    const withdrawn = await tx
      .update(waitinglistOffers)
      .set({ state: 'WITHDRAWN', endedAt: now, endReason: reason, updatedAt: now })
      .where(and(eq(waitinglistOffers.showPk, showPk), eq(waitinglistOffers.state, 'LIVE')))
      .returning();
    const offerOf = new Map(withdrawn.map((o) => [o.entryId, o]));
    const closed = await tx
      .update(waitinglistEntries)
      .set({ state: 'CLOSED', endedAt: now, endReason: reason, updatedAt: now })
      .where(and(eq(waitinglistEntries.showPk, showPk), isLive()))
      .returning({ id: waitinglistEntries.id });
    if (closed.length !== live.length) throw new Error(`waitinglist.close: ${closed.length} entries closed of the ${live.length} read under the lock of show ${showPk}`);
    const first = await this.advance(tx, showPk, -live.length, live.length);
    const rows = live.map((entry, i) => {
      const offer = offerOf.get(entry.id);
      return historyRow(entry, first + i, 'closed', offer?.id ?? null, { reason, ...(offer ? { withdrawnOfferId: offer.id, listingIds: offer.listingIds } : {}) }, now);
    });
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insert(waitinglistHistory).values(rows.slice(i, i + INSERT_CHUNK));
    return { closed: live.length, cancelIntentionIds: withdrawn.map((o) => o.intentionId) };
  }

  /** The shows whose line holds live entries (WAITING or OFFERED): what the sweep looks at. */
  async showsWithLiveEntries(tx: Tx): Promise<string[]> {
    return (await tx.select({ showPk: waitinglistSettings.showPk }).from(waitinglistSettings).where(sql`${waitinglistSettings.waiting} > 0`)).map((r) => r.showPk);
  }

  // ------------------------------------------------------------------ the operator's export

  /**
   * A show's whole history in its sequence, one row per transition with the entry's fan and
   * request, for the operator's export as a file (CSV columns: {@link HISTORY_EXPORT_COLUMNS}).
   *
   * @throws ApiError 404 unknown (or another partner's) event or show
   */
  async exportHistory(tx: Tx, partnerId: string, key: ShowKey): Promise<HistoryExportRow[]> {
    const { show } = await this.findShow(tx, partnerId, key);
    return await this.historyRows(tx, partnerId, show.id, null, null);
  }

  /**
   * One page of {@link exportHistory}: the rows after sequence number `startingAfter` (0 or
   * absent: from the start), at most `limit`, and the cursor of the next page (the last row's
   * `seq`), null on the last. The sequence only grows: a page read later never skips a row.
   *
   * @throws ApiError 404 unknown (or another partner's) event or show
   */
  async exportHistoryPage(tx: Tx, partnerId: string, key: ShowKey, page: { startingAfter?: number | undefined; limit: number }): Promise<{ items: HistoryExportRow[]; nextCursor: number | null }> {
    const { show } = await this.findShow(tx, partnerId, key);
    const rows = await this.historyRows(tx, partnerId, show.id, page.startingAfter ?? 0, page.limit + 1);
    const items = rows.slice(0, page.limit);
    return { items, nextCursor: rows.length > page.limit ? items[items.length - 1]!.seq : null };
  }

  /** History rows of a show after `afterSeq` (null: all), at most `limit` (null: all), with their entries' fans and requests. */
  private async historyRows(tx: Tx, partnerId: string, showPk: string, afterSeq: number | null, limit: number | null): Promise<HistoryExportRow[]> {
    const where = [eq(waitinglistHistory.partnerId, partnerId), eq(waitinglistHistory.showPk, showPk)];
    if (afterSeq !== null) where.push(gt(waitinglistHistory.seq, afterSeq));
    const query = tx.select().from(waitinglistHistory).where(and(...where)).orderBy(asc(waitinglistHistory.seq));
    const history = limit === null ? await query : await query.limit(limit);
    // The entries the rows name (all of the show's for the whole history; a page's own otherwise).
    const entryRows =
      limit === null
        ? await tx.select().from(waitinglistEntries).where(eq(waitinglistEntries.showPk, showPk))
        : await tx.select().from(waitinglistEntries).where(inArray(waitinglistEntries.id, [...new Set(history.map((h) => h.entryId))]));
    const entries = new Map(entryRows.map((e) => [e.id, e]));
    const userPks = [...new Set([...entries.values()].map((e) => e.userPk))];
    const users = new Map<string, UserRow>();
    for (let i = 0; i < userPks.length; i += READ_CHUNK) for (const [pk, u] of await usersByPks(tx, userPks.slice(i, i + READ_CHUNK))) users.set(pk, u);
    const options = new Map((await ticketOptionsOfShows(tx, [showPk])).map((o) => [o.id, o.ticketId]));
    return history.map((h) => {
      const entry = entries.get(h.entryId)!;
      const user = users.get(entry.userPk)!;
      const listingIds = Array.isArray(h.data.listingIds) ? (h.data.listingIds as string[]) : [];
      return {
        seq: h.seq,
        at: toIso(h.at),
        kind: h.kind,
        entryId: h.entryId,
        entrySeq: entry.seq,
        offerId: h.offerId,
        userId: partnerUserId(user),
        email: user.email,
        phone: user.phone,
        ticketOptionId: entry.ticketOptionPk === null ? null : (options.get(entry.ticketOptionPk) ?? null),
        quantity: entry.quantity,
        together: entry.together,
        listingIds: listingIds.join(' '),
        reason: typeof h.data.reason === 'string' ? h.data.reason : null,
      };
    });
  }

  // ------------------------------------------------------------------ internals

  private async findShow(tx: Tx, partnerId: string, key: ShowKey): Promise<{ event: EventRow; show: ShowRow }> {
    return await this.deps.events.findShow(tx, partnerId, key.externalReferenceEventId, key.showId);
  }

  /** A fan joins only a show open for resale that has not started: a line for nothing to buy would be a false promise. */
  private assertOpen(show: ShowRow): void {
    if (!isResaleOpen(show)) throw ApiError.conflict(`Resale is closed for show '${show.showId}'`, 'showId', 'resale_closed');
    if (this.deps.clock.now() >= show.startsAt) throw ApiError.conflict(`Show '${show.showId}' has started`, 'showId', 'show_started');
  }

  /** An entry of the partner (and of `userPk` when given). @throws ApiError 404 */
  private async entryRow(tx: Tx, partnerId: string, entryId: string, userPk?: string): Promise<WaitinglistEntryRow> {
    const where = [eq(waitinglistEntries.partnerId, partnerId), eq(waitinglistEntries.id, entryId)];
    if (userPk !== undefined) where.push(eq(waitinglistEntries.userPk, userPk));
    const row = (await tx.select().from(waitinglistEntries).where(and(...where)).limit(1))[0];
    if (!row) throw ApiError.notFound('waiting-list entry', entryId);
    return row;
  }

  private async liveEntryOf(tx: Tx, showPk: string, userPk: string): Promise<WaitinglistEntryRow | undefined> {
    return (await tx.select().from(waitinglistEntries).where(and(eq(waitinglistEntries.showPk, showPk), eq(waitinglistEntries.userPk, userPk), isLive())).limit(1))[0];
  }

  /** 1 + the live entries of the show before `seq`. */
  private async positionOf(tx: Tx, showPk: string, seq: number): Promise<number> {
    const [row] = await tx
      .select({ n: count() })
      .from(waitinglistEntries)
      .where(and(eq(waitinglistEntries.showPk, showPk), isLive(), lt(waitinglistEntries.seq, seq)));
    return (row?.n ?? 0) + 1;
  }

  private async withPosition(tx: Tx, row: WaitinglistEntryRow): Promise<WaitingListEntry> {
    const live = row.state === 'WAITING' || row.state === 'OFFERED';
    const offer = row.state === 'OFFERED' ? await liveOfferOfEntry(tx, row.id) : undefined;
    return toEntry(row, live ? await this.positionOf(tx, row.showPk, row.seq) : null, offer ?? null);
  }

  /** `from` → `to`, conditional on `from`; final states are stamped ended. Under the show's lock, so a miss is a broken invariant. */
  private async moveEntry(tx: Tx, entryId: string, from: EntryState, to: EntryState, reason: string): Promise<WaitinglistEntryRow> {
    const now = this.deps.clock.now();
    const final = to !== 'WAITING' && to !== 'OFFERED';
    const row = (await tx
      .update(waitinglistEntries)
      .set({ state: to, endedAt: final ? now : null, endReason: final ? reason : null, updatedAt: now })
      .where(and(eq(waitinglistEntries.id, entryId), eq(waitinglistEntries.state, from)))
      .returning())[0];
    if (!row) throw new Error(`waitinglist: entry ${entryId} was not ${from} under its show's lock (moving it to ${to})`);
    return row;
  }

  /**
   * Advances the show's sequence by `count` and its live-entry count by `waitingDelta`, in one
   * statement, and answers the first of the numbers handed out. The row exists whenever a line
   * does (joining needs an enabled list).
   */
  private async advance(tx: Tx, showPk: string, waitingDelta: number, count = 1): Promise<number> {
    const row = (await tx
      .update(waitinglistSettings)
      .set({ nextSeq: sql`${waitinglistSettings.nextSeq} + ${count}`, waiting: sql`${waitinglistSettings.waiting} + ${waitingDelta}` })
      .where(eq(waitinglistSettings.showPk, showPk))
      .returning({ nextSeq: waitinglistSettings.nextSeq }))[0];
    if (!row) throw new Error(`waitinglist: show ${showPk} has a line but no settings row`);
    return row.nextSeq - count + 1;
  }

  private async appendHistory(tx: Tx, entry: WaitinglistEntryRow, seq: number, kind: HistoryKind, offerId: string | null, data: Record<string, unknown>): Promise<void> {
    await tx.insert(waitinglistHistory).values(historyRow(entry, seq, kind, offerId, data, this.deps.clock.now()));
  }
}

// ------------------------------------------------------------------ pure helpers

/**
 * Whether a show's tickets have seats to put side by side: its event has a seating chart (the
 * market's test for drawing the seat map).
 */
function hasSeats(event: EventRow): boolean {
  return Boolean(event.seating?.svgCode || event.seating?.image);
}

/** The settings' stored values, or every field error at once. */
function validSettings(input: SettingsInput, venueTimeZone: string | null): { values: Pick<WaitinglistSettingsRow, 'enabled' | 'offerMinutes' | 'quietHours' | 'priceCap'>; errors: ErrorEntry[] } {
  const errors: ErrorEntry[] = [];
  const error = (code: ErrorEntry['code'], path: string, message: string) => errors.push({ code, message, path, in: 'body' });
  if (typeof input.enabled !== 'boolean') error('invalid_type', 'enabled', 'enabled must be true or false');
  const offerMinutes = input.offerMinutes ?? DEFAULT_OFFER_MINUTES;
  if (!Number.isInteger(offerMinutes) || offerMinutes < MIN_OFFER_MINUTES || offerMinutes > MAX_OFFER_MINUTES) {
    error('out_of_range', 'offerMinutes', `offerMinutes must be a whole number of minutes from ${MIN_OFFER_MINUTES} to ${MAX_OFFER_MINUTES}`);
  }
  let quietHours: QuietHours | null = null;
  const q = input.quietHours;
  if (q !== undefined && q !== null) {
    const startOk = typeof q.start === 'string' && WALL_TIME.test(q.start);
    const endOk = typeof q.end === 'string' && WALL_TIME.test(q.end);
    if (!startOk) error('invalid_format', 'quietHours.start', 'quietHours.start must be a time of day as HH:MM (22:00)');
    if (!endOk) error('invalid_format', 'quietHours.end', 'quietHours.end must be a time of day as HH:MM (08:00)');
    if (startOk && endOk && q.start === q.end) error('invalid_value', 'quietHours.end', 'quietHours.end must differ from quietHours.start (a window of no length, or of a whole day, holds every offer or none)');
    const timeZone = q.timeZone ?? venueTimeZone;
    if (timeZone === null) error('missing_field', 'quietHours.timeZone', 'quietHours.timeZone is required: the venue has no time zone to read the quiet hours in');
    else if (!isTimeZone(timeZone)) error('invalid_value', 'quietHours.timeZone', 'quietHours.timeZone must be an IANA time zone such as Europe/Madrid');
    if (timeZone !== null) quietHours = { start: q.start, end: q.end, timeZone };
  }
  if (!(PRICE_CAPS as readonly string[]).includes(input.priceCap)) error('invalid_value', 'priceCap', `priceCap must be one of ${PRICE_CAPS.join(', ')}`);
  return { values: { enabled: input.enabled, offerMinutes, quietHours, priceCap: input.priceCap }, errors };
}

function defaultSettings(partnerId: string, showPk: string): WaitingListSettings {
  return { showPk, partnerId, enabled: false, offerMinutes: DEFAULT_OFFER_MINUTES, quietHours: null, priceCap: 'RULES', waiting: 0, updatedAt: null };
}

function settingsOf(row: WaitinglistSettingsRow): WaitingListSettings {
  return { showPk: row.showPk, partnerId: row.partnerId, enabled: row.enabled, offerMinutes: row.offerMinutes, quietHours: row.quietHours, priceCap: row.priceCap, waiting: row.waiting, updatedAt: row.updatedAt };
}

function toOffer(row: WaitinglistOfferRow): WaitingListOffer {
  return {
    id: row.id,
    entryId: row.entryId,
    intentionId: row.intentionId,
    listingIds: row.listingIds,
    quantity: row.quantity,
    state: row.state,
    notifyAt: row.notifyAt,
    expiresAt: row.expiresAt,
    messageId: row.messageId,
    createdAt: row.createdAt,
    endedAt: row.endedAt,
    endReason: row.endReason,
  };
}

function toEntry(row: WaitinglistEntryRow, position: number | null, offer: WaitinglistOfferRow | null): WaitingListEntry {
  return {
    id: row.id,
    partnerId: row.partnerId,
    eventPk: row.eventPk,
    showPk: row.showPk,
    userPk: row.userPk,
    ticketOptionPk: row.ticketOptionPk,
    quantity: row.quantity,
    together: row.together,
    seq: row.seq,
    state: row.state,
    source: row.source,
    position,
    joinedAt: row.joinedAt,
    endedAt: row.endedAt,
    endReason: row.endReason,
    offer: offer ? toOffer(offer) : null,
  };
}

function toHistoryItem(row: WaitinglistHistoryRow): WaitingListHistoryItem {
  return { id: row.id, seq: row.seq, kind: row.kind, at: row.at, entryId: row.entryId, offerId: row.offerId, data: row.data };
}

function historyRow(entry: WaitinglistEntryRow, seq: number, kind: HistoryKind, offerId: string | null, data: Record<string, unknown>, at: number): typeof waitinglistHistory.$inferInsert {
  return { id: newId('waitingListHistory'), partnerId: entry.partnerId, showPk: entry.showPk, entryId: entry.id, offerId, seq, kind, at, data };
}
