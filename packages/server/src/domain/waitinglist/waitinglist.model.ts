import { ApiError } from '../../lib/errors.js';
import { wallTimeAt, zonedInstant } from '../../lib/zoned-time.js';

/**
 * The waiting list's vocabulary: states, kinds, limits and the shapes the service answers.
 * Types only and constants (no database), so the table, the service, the matcher's callers and
 * later the API and pages share one definition of each.
 */

/**
 * Entry states. `WAITING` and `OFFERED` are live (one per fan per show, a unique partial index);
 * every other state is final, and rejoining makes a new entry at the back.
 *
 * - `WAITING` → `OFFERED` (an offer holds listings for the fan) → `CONVERTED` (paid);
 * - `OFFERED` → `EXPIRED` (the offer's time ran out, or its payment failed) or `DECLINED` (the fan
 *   said no thanks, or cancelled the checkout): the entry ENDS, as pretix and Hi.Events do, so a
 *   fan who does not answer cannot hold the head of the line; they may rejoin at the back;
 * - `OFFERED` → `WAITING` when the offer is withdrawn for a reason that is not the fan's (the
 *   listing was delisted, its ticket moved): the entry keeps its `seq`, its place;
 * - `WAITING` | `OFFERED` → `LEFT` (the fan or the partner left; a live offer is declined with it);
 * - `WAITING` | `OFFERED` → `CLOSED` (the show's list closed: cancelled, started, resale closed;
 *   a live offer is withdrawn with it).
 *
 * Buying tickets of the show on the open market changes nothing here: the fan leaves when they
 * want (they may want more tickets, or better ones).
 */
export const ENTRY_STATES = ['WAITING', 'OFFERED', 'CONVERTED', 'EXPIRED', 'DECLINED', 'LEFT', 'CLOSED'] as const;
/** One of {@link ENTRY_STATES}. */
export type EntryState = (typeof ENTRY_STATES)[number];

/** The live states: the entry holds a place in the line. */
export const LIVE_ENTRY_STATES = ['WAITING', 'OFFERED'] as const satisfies readonly EntryState[];

/**
 * Offer states. An offer is LIVE while its buy intention holds the listings for the fan; it ends
 * once, as the intention ends: `CONVERTED` (paid), `EXPIRED` (time ran out, or the payment
 * failed), `DECLINED` (the fan said no, or left the list), `WITHDRAWN` (not the fan's doing:
 * the listing was delisted, its ticket moved, the show's list closed).
 */
export const OFFER_STATES = ['LIVE', 'CONVERTED', 'EXPIRED', 'DECLINED', 'WITHDRAWN'] as const;
/** One of {@link OFFER_STATES}. */
export type OfferState = (typeof OFFER_STATES)[number];

/** How an offer ends (`WaitingListService.endOffer`). */
export type OfferOutcome = Exclude<OfferState, 'LIVE'>;

/**
 * What happened to a show's queue, one append-only history row each, numbered by the show's
 * sequence: the order in which things happened under the show's lock. Every entry transition
 * writes exactly one.
 */
export const HISTORY_KINDS = ['joined', 'offered', 'expired', 'declined', 'bought', 'left', 'withdrawn', 'closed'] as const;
/** One of {@link HISTORY_KINDS}. */
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** Where a fan joined from. */
export const ENTRY_SOURCES = ['market', 'widget', 'api'] as const;
/** One of {@link ENTRY_SOURCES}. */
export type EntrySource = (typeof ENTRY_SOURCES)[number];

/**
 * The price cap while fans wait: `FACE_VALUE` caps listings published while the show has live
 * entries at face value (DICE's rule); `RULES` adds no cap to the show's resale rules.
 */
export const PRICE_CAPS = ['FACE_VALUE', 'RULES'] as const;
/** One of {@link PRICE_CAPS}. */
export type PriceCap = (typeof PRICE_CAPS)[number];

/** The offer window when the organiser sets none, in minutes (a checkout's order of magnitude). */
export const DEFAULT_OFFER_MINUTES = 15;
/** The shortest offer window: less is not enough to read an e-mail and pay. */
export const MIN_OFFER_MINUTES = 5;
/**
 * The longest offer window, a day: a longer one holds tickets (and the head of the line) away
 * from every other fan for longer than any reference does by default (pretix 48 h is the outlier;
 * Hi.Events 12 h, alf.io 4 h, Skiddle 6 minutes).
 */
export const MAX_OFFER_MINUTES = 1440;

/**
 * Quiet hours: wall times `HH:MM` in `timeZone` (IANA). An offer made inside the window is still
 * made (the tickets are held, never public) but the fan is told when it ends. `start` after
 * `end` wraps midnight (`22:00`–`08:00`).
 */
export interface QuietHours {
  start: string;
  end: string;
  timeZone: string;
}

/** Minutes since midnight of a valid `HH:MM`. */
function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/**
 * When quiet hours that hold `now` end (epoch ms), or null when `now` is outside them (or
 * there are none): an offer made at `now` tells its fan then. The window is read on the
 * venue's wall clock, so it is the same local hours in winter and summer; an end that a
 * daylight-saving change skips moves forward by the gap, as clocks do.
 *
 * @example quietHoursEnd({ start: '22:00', end: '08:00', timeZone: 'Europe/Madrid' }, Date.parse('2026-04-20T23:30:00+02:00')) // Date.parse('2026-04-21T08:00:00+02:00')
 */
export function quietHoursEnd(quiet: QuietHours | null, now: number): number | null {
  if (quiet === null) return null;
  const wall = wallTimeAt(now, quiet.timeZone);
  const minute = wall.hour * 60 + wall.minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const wraps = start > end;
  const inside = wraps ? minute >= start || minute < end : minute >= start && minute < end;
  if (!inside) return null;
  // Ends today, unless the window wraps midnight and this is its evening part.
  const day = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + (wraps && minute >= start ? 1 : 0)));
  return zonedInstant({ year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate(), hour: Math.floor(end / 60), minute: end % 60, second: 0 }, quiet.timeZone);
}

/** Quiet hours as given: without `timeZone`, the venue's (the show's location, else the event's). */
export interface QuietHoursInput {
  start: string;
  end: string;
  timeZone?: string | undefined;
}

/** A show's waiting-list settings, the defaults when the organiser never set any. */
export interface WaitingListSettings {
  showPk: string;
  partnerId: string;
  enabled: boolean;
  offerMinutes: number;
  quietHours: QuietHours | null;
  priceCap: PriceCap;
  /** Live entries (WAITING or OFFERED): "N fans waiting". */
  waiting: number;
  /** When the organiser last set them; null for the defaults. */
  updatedAt: number | null;
}

/** What an organiser sets (a PUT: an absent optional field takes its default). */
export interface SettingsInput {
  enabled: boolean;
  offerMinutes?: number | undefined;
  quietHours?: QuietHoursInput | null | undefined;
  priceCap: PriceCap;
}

/** How callers name a show: the partner's ids (as the API and pages have them). */
export interface ShowKey {
  externalReferenceEventId: string;
  /** Optional when the event has one show. */
  showId?: string | null | undefined;
}

/** A fan joining a show's list. */
export interface JoinInput extends ShowKey {
  /** The fan (users.id), already resolved in the partner's scope; contact checks are the caller's. */
  userPk: string;
  /** Tickets wanted, 1..`maxPerBuyer`; offers are of exactly this many. */
  quantity: number;
  /** The show's most tickets per buyer (the partner's `holdLimits.ticketsPerBuyerPerShow`), given by the caller. */
  maxPerBuyer: number;
  /** Seats side by side (only for a show with a seating chart). */
  together: boolean;
  /** The partner's ticket option id; absent: any option of the show. */
  ticketOptionId?: string | null | undefined;
  source?: EntrySource | undefined;
}

/** The offer of an entry, as the service answers it. */
export interface WaitingListOffer {
  id: string;
  entryId: string;
  intentionId: string;
  listingIds: string[];
  quantity: number;
  state: OfferState;
  notifyAt: number;
  expiresAt: number;
  messageId: string | null;
  createdAt: number;
  endedAt: number | null;
  endReason: string | null;
}

/** One row of a show's history. */
export interface WaitingListHistoryItem {
  id: string;
  seq: number;
  kind: HistoryKind;
  at: number;
  entryId: string;
  offerId: string | null;
  data: Record<string, unknown>;
}

/** An entry as the service answers it. */
export interface WaitingListEntry {
  id: string;
  partnerId: string;
  eventPk: string;
  showPk: string;
  userPk: string;
  /** null: any ticket option of the show. */
  ticketOptionPk: string | null;
  quantity: number;
  together: boolean;
  /** Its place in the show's sequence: join order, never changed while the entry lives. */
  seq: number;
  state: EntryState;
  source: EntrySource;
  /**
   * 1 + the live entries of the show with a smaller `seq` ("you are #12"); null once final. An
   * order, not a promise: a listing goes to the earliest entry it satisfies, so a 1-ticket
   * listing passes a 4-ticket entry by.
   */
  position: number | null;
  joinedAt: number;
  endedAt: number | null;
  endReason: string | null;
  /** The LIVE offer of an OFFERED entry; null otherwise. */
  offer: WaitingListOffer | null;
}

/** Why the list refused, for pages that must tell refusals apart (see {@link WaitingListConflict}). */
export type WaitingListRefusal = 'waitinglist_closed' | 'already_waiting' | 'waitinglist_ended' | 'not_waiting';

/**
 * A 409 of the waiting list, with `refusal` saying which rule refused, as HoldLimitError and
 * OrphanSeatError let pages tell refusals apart without reading message texts:
 * - `waitinglist_closed`: the show's list is not enabled;
 * - `already_waiting`: the fan has a live entry for the show (`entryId` names it);
 * - `waitinglist_ended`: the entry is final (left, converted, expired …);
 * - `not_waiting`: an offer for an entry that is not WAITING.
 *
 * A show that is cancelled, hidden, off resale or started answers the existing reasons
 * `resale_closed` and `show_started` instead.
 */
export class WaitingListConflict extends ApiError {
  constructor(
    readonly refusal: WaitingListRefusal,
    message: string,
    path?: string,
    /** The live entry of an `already_waiting` refusal. */
    readonly entryId: string | null = null,
  ) {
    super(409, 'conflict', message, path === undefined ? {} : { path });
  }
}
