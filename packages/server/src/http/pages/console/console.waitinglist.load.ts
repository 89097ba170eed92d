import type { Lang } from '@resale/shared/lang';
import type { Tx } from '../../../db/client.js';
import type { AppDeps } from '../../../context.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { isResaleOpen } from '../../../domain/events/events.model.js';
import { eventByRef, showOfEvent, ticketOptionsOfShows, type EventRow, type ShowRow } from '../../../domain/events/events.queries.js';
import { userByEmail, usersByPks } from '../../../domain/users/users.queries.js';
import { DEFAULT_OFFER_MINUTES, MAX_OFFER_MINUTES, MIN_OFFER_MINUTES, PRICE_CAPS, type HistoryKind, type PriceCap, type QuietHours, type SettingsInput } from '../../../domain/waitinglist/waitinglist.model.js';
import {
  liveEntriesPage,
  liveEntryCountsOf,
  liveEntryOfUser,
  liveOffersOfEntries,
  livePositionOf,
  recentHistoryOf,
  waitingListEntriesByIds,
  type WaitinglistEntryRow,
} from '../../../domain/waitinglist/waitinglist.queries.js';
import type { HistoryExportRow } from '../../../domain/waitinglist/waitinglist.service.js';
import type { ErrorEntry } from '../../../lib/errors.js';
import { userLabel } from './console.sales.load.js';
import { wm } from './console.waitinglist.messages.js';

/**
 * What a show's waiting-list page reads and checks, for one person: the settings (as stored, or
 * as typed and refused), the line's figures, a page of the line in join order with each fan's
 * position and live offer, the recent history, and the settings form read into the service's
 * input with every error at once. No HTTP here.
 */

/** Entries per page of the line: a line of ten thousand is two hundred pages, never one table. */
export const QUEUE_PAGE_SIZE = 50;

/** History rows the page shows (newest first); the CSV has every one. */
export const HISTORY_SHOWN = 25;

/** The page's query: the page of the line (from 1) and a fan searched by e-mail. */
export interface WaitingListQuery {
  page: number;
  fan: string;
}

/** The query from the query string: the page from 1 (clamped to the line's last page when read), the search trimmed. */
export function waitingListQueryOf(q: { page?: string | undefined; fan?: string | undefined }): WaitingListQuery {
  return { page: Math.max(1, Number.parseInt(q.page ?? '1', 10) || 1), fan: (q.fan ?? '').trim().slice(0, 254) };
}

/** The settings form as typed (or as stored): `enabled` is `on`/`off`, the times `HH:MM` or empty. */
export interface SettingsForm {
  enabled: string;
  offerMinutes: string;
  quietStart: string;
  quietEnd: string;
  priceCap: string;
}

/** The form's field names, in its order (the error summary's labels are keyed by them). */
export const SETTINGS_FIELDS = ['enabled', 'offerMinutes', 'quietStart', 'quietEnd', 'priceCap'] as const satisfies readonly (keyof SettingsForm)[];

/** A live entry as the page lists it. */
export interface QueueItem {
  position: number;
  entryId: string;
  /** How the console names a user (e-mail, else phone, else the partner's id). */
  fan: string | null;
  quantity: number;
  together: boolean;
  /** The ticket option asked for; null: any option of the show. */
  category: { ticketOptionId: string; title: string } | null;
  state: 'WAITING' | 'OFFERED';
  /** The live offer of an OFFERED entry: when it was made, when its fan is (or was) told, until when it holds. */
  offer: { createdAt: number; notifyAt: number; expiresAt: number } | null;
  joinedAt: number;
}

/** A row of the recent history. */
export interface HistoryItem {
  seq: number;
  at: number;
  kind: HistoryKind;
  entryId: string;
  fan: string | null;
  /** The position the fan joined at (`joined`). */
  position: number | null;
  /** An offer's tickets and end (`offered`). */
  offer: { quantity: number; expiresAt: number } | null;
  /** Why an offer or an entry ended. */
  reason: string | null;
}

/** A show's waiting-list page. */
export interface WaitingListPageModel {
  event: Pick<EventRow, 'externalReferenceId' | 'title'>;
  show: Pick<ShowRow, 'showId' | 'title' | 'startsAt' | 'status'> & { resaleOpen: boolean; started: boolean };
  /** The zone the page's times are shown in (the venue's, else UTC). */
  timeZone: string;
  /** The venue's zone (the show's location, else the event's): where quiet hours set here are read; null when it has none. */
  venueTimeZone: string | null;
  settings: { enabled: boolean; offerMinutes: number; quietHours: QuietHours | null; priceCap: PriceCap; updatedAt: number | null };
  counts: { live: number; offered: number };
  queue: { items: QueueItem[]; page: number; pages: number };
  /** The fan searched for (`fan`), and their live entry when they are in the line. */
  search: { q: string; item: QueueItem | null } | null;
  history: HistoryItem[];
  mayAdminister: boolean;
  form: SettingsForm;
}

/** The show of a partner's event, or null when either is unknown (or another partner's). */
async function showOf(tx: Tx, partnerId: string, eventId: string, showId: string): Promise<{ event: EventRow; show: ShowRow } | null> {
  const event = await eventByRef(tx, partnerId, eventId.slice(0, 200));
  if (!event) return null;
  const show = await showOfEvent(tx, event.id, showId.slice(0, 200));
  return show ? { event, show } : null;
}

/** Live entries as the page lists them, the first at `firstPosition`, with their fans, options and live offers. */
async function queueItems(tx: Tx, showPk: string, rows: readonly WaitinglistEntryRow[], firstPosition: number): Promise<QueueItem[]> {
  if (rows.length === 0) return [];
  const users = await usersByPks(tx, rows.map((r) => r.userPk));
  const options = new Map((await ticketOptionsOfShows(tx, [showPk])).map((o) => [o.id, { ticketOptionId: o.ticketId, title: o.title }]));
  const offers = new Map((await liveOffersOfEntries(tx, rows.map((r) => r.id))).map((o) => [o.entryId, o]));
  return rows.map((r, i) => {
    const offer = offers.get(r.id);
    return {
      position: firstPosition + i,
      entryId: r.id,
      fan: userLabel(users.get(r.userPk)),
      quantity: r.quantity,
      together: r.together,
      category: r.ticketOptionPk === null ? null : (options.get(r.ticketOptionPk) ?? null),
      state: r.state === 'OFFERED' ? 'OFFERED' : 'WAITING',
      offer: offer ? { createdAt: offer.createdAt, notifyAt: offer.notifyAt, expiresAt: offer.expiresAt } : null,
      joinedAt: r.joinedAt,
    };
  });
}

/** The latest history rows of a show with their fans, newest first. */
async function historyItems(tx: Tx, showPk: string): Promise<HistoryItem[]> {
  const rows = await recentHistoryOf(tx, showPk, HISTORY_SHOWN);
  const entries = await waitingListEntriesByIds(tx, rows.map((h) => h.entryId));
  const users = await usersByPks(tx, [...entries.values()].map((e) => e.userPk));
  return rows.map((h) => {
    const entry = entries.get(h.entryId);
    const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    const expiresAt = typeof h.data.expiresAt === 'string' ? Date.parse(h.data.expiresAt) : Number.NaN;
    return {
      seq: h.seq,
      at: h.at,
      kind: h.kind,
      entryId: h.entryId,
      fan: entry ? userLabel(users.get(entry.userPk)) : null,
      position: h.kind === 'joined' ? number(h.data.position) : null,
      offer: h.kind === 'offered' && Number.isFinite(expiresAt) ? { quantity: number(h.data.quantity) ?? entry?.quantity ?? 0, expiresAt } : null,
      reason: typeof h.data.reason === 'string' && h.kind !== 'joined' ? h.data.reason : null,
    };
  });
}

/** The form as the stored settings fill it. */
function formOf(s: { enabled: boolean; offerMinutes: number; quietHours: QuietHours | null; priceCap: PriceCap }): SettingsForm {
  return { enabled: s.enabled ? 'on' : 'off', offerMinutes: String(s.offerMinutes), quietStart: s.quietHours?.start ?? '', quietEnd: s.quietHours?.end ?? '', priceCap: s.priceCap };
}

/**
 * A show's waiting-list page for someone who may read the partner: its settings (the defaults
 * when never set), the line's figures, the page `query.page` of the line (clamped to its last),
 * the fan searched for, and the latest history; null when the person may not read the partner
 * or the event or show is unknown or another partner's (one answer for all). `typed`: the
 * settings form as refused, shown instead of the stored settings.
 */
export async function loadWaitingListPage(
  deps: Pick<AppDeps, 'db' | 'clock' | 'waitingList'>,
  session: ConsoleSession,
  partnerId: string,
  eventId: string,
  showId: string,
  query: WaitingListQuery,
  typed?: SettingsForm,
): Promise<WaitingListPageModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  const now = deps.clock.now();
  return await deps.db.read(
    async (tx) => {
      const found = await showOf(tx, partnerId, eventId, showId);
      if (!found) return null;
      const { event, show } = found;
      const settings = await deps.waitingList.getSettings(tx, partnerId, { externalReferenceEventId: event.externalReferenceId, showId: show.showId });
      const counts = await liveEntryCountsOf(tx, show.id);
      const pages = Math.max(1, Math.ceil(counts.live / QUEUE_PAGE_SIZE));
      const page = Math.min(query.page, pages);
      const offset = (page - 1) * QUEUE_PAGE_SIZE;
      const items = await queueItems(tx, show.id, await liveEntriesPage(tx, show.id, { limit: QUEUE_PAGE_SIZE, offset }), offset + 1);
      let search: WaitingListPageModel['search'] = null;
      if (query.fan !== '') {
        // Stored lowercased; a term that is no e-mail names nobody.
        const user = query.fan.includes('@') ? await userByEmail(tx, partnerId, query.fan.toLowerCase()) : undefined;
        const entry = user ? await liveEntryOfUser(tx, show.id, user.id) : undefined;
        search = { q: query.fan, item: entry ? ((await queueItems(tx, show.id, [entry], await livePositionOf(tx, show.id, entry.seq)))[0] ?? null) : null };
      }
      const venueTimeZone = show.location?.timeZone || event.location.timeZone || null;
      const stored = { enabled: settings.enabled, offerMinutes: settings.offerMinutes, quietHours: settings.quietHours, priceCap: settings.priceCap, updatedAt: settings.updatedAt };
      return {
        event: { externalReferenceId: event.externalReferenceId, title: event.title },
        show: { showId: show.showId, title: show.title, startsAt: show.startsAt, status: show.status, resaleOpen: isResaleOpen(show), started: now >= show.startsAt },
        timeZone: venueTimeZone ?? 'UTC',
        venueTimeZone,
        settings: stored,
        counts,
        queue: { items, page, pages },
        search,
        history: await historyItems(tx, show.id),
        mayAdminister: can(session, 'administer', partnerId),
        form: typed ?? formOf(stored),
      };
    },
    { snapshot: true },
  );
}

/**
 * A show's whole history as the operator's export gives it (`WaitingListService.exportHistory`),
 * for the console's CSV; null when the person may not read the partner or the event or show is
 * unknown or another partner's.
 */
export async function loadHistoryExport(deps: Pick<AppDeps, 'db' | 'waitingList'>, session: ConsoleSession, partnerId: string, eventId: string, showId: string): Promise<{ key: { externalReferenceEventId: string; showId: string }; rows: HistoryExportRow[] } | null> {
  if (!can(session, 'read', partnerId)) return null;
  return await deps.db.read(
    async (tx) => {
      const found = await showOf(tx, partnerId, eventId, showId);
      if (!found) return null;
      const key = { externalReferenceEventId: found.event.externalReferenceId, showId: found.show.showId };
      return { key, rows: await deps.waitingList.exportHistory(tx, partnerId, key) };
    },
    { snapshot: true },
  );
}

/** Wall time `HH:MM`, 00:00 to 23:59 (the service's own check). */
const WALL_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

/** A time as typed, with an hour of one digit made two (`8:00` → `08:00`): what a person types for eight in the morning. */
function timeOf(typed: string): string {
  return /^\d:\d\d$/.test(typed) ? `0${typed}` : typed;
}

/**
 * The settings form read into the service's input, or every error at once by field (in the
 * page's language) with the values as typed. `enabled` is `on` or `off`; `offerMinutes` a whole
 * number from 5 to 1440, empty for the default; the quiet hours both `HH:MM` and different, or
 * both empty for none (read in the venue's zone by the service); `priceCap` one of PRICE_CAPS.
 */
export function settingsFromForm(form: Record<string, string>, lang: Lang): { ok: true; input: SettingsInput; typed: SettingsForm } | { ok: false; errors: Record<string, string>; typed: SettingsForm } {
  const typed: SettingsForm = {
    enabled: form.enabled ?? '',
    offerMinutes: (form.offerMinutes ?? '').trim().slice(0, 20),
    quietStart: timeOf((form.quietStart ?? '').trim().slice(0, 20)),
    quietEnd: timeOf((form.quietEnd ?? '').trim().slice(0, 20)),
    priceCap: form.priceCap ?? '',
  };
  const errors: Record<string, string> = {};
  if (typed.enabled !== 'on' && typed.enabled !== 'off') errors.enabled = wm(lang, 'errEnabled');
  const minutes = typed.offerMinutes === '' ? DEFAULT_OFFER_MINUTES : /^\d{1,5}$/.test(typed.offerMinutes) ? Number(typed.offerMinutes) : Number.NaN;
  if (!(minutes >= MIN_OFFER_MINUTES && minutes <= MAX_OFFER_MINUTES)) errors.offerMinutes = wm(lang, 'errOfferMinutes', { min: MIN_OFFER_MINUTES, max: MAX_OFFER_MINUTES });
  const { quietStart: start, quietEnd: end } = typed;
  if (start !== '' || end !== '') {
    if (start === '') errors.quietStart = wm(lang, 'errBothTimes');
    else if (!WALL_TIME.test(start)) errors.quietStart = wm(lang, 'errTime', { example: '22:00' });
    if (end === '') errors.quietEnd = wm(lang, 'errBothTimes');
    else if (!WALL_TIME.test(end)) errors.quietEnd = wm(lang, 'errTime', { example: '08:00' });
    else if (start === end) errors.quietEnd = wm(lang, 'errSameTimes');
  }
  const priceCap = (PRICE_CAPS as readonly string[]).includes(typed.priceCap) ? (typed.priceCap as PriceCap) : null;
  if (priceCap === null) errors.priceCap = wm(lang, 'errPriceCap');
  // A refused choice is shown unchosen, never as a value the form does not offer.
  if (Object.keys(errors).length > 0 || priceCap === null) return { ok: false, errors, typed: { ...typed, enabled: errors.enabled ? '' : typed.enabled, priceCap: priceCap ?? '' } };
  return { ok: true, input: { enabled: typed.enabled === 'on', offerMinutes: minutes, quietHours: start === '' ? null : { start, end }, priceCap }, typed };
}

/** Where each of the service's error paths shows on the form. */
const FIELD_OF_PATH: Record<string, keyof SettingsForm> = {
  enabled: 'enabled',
  offerMinutes: 'offerMinutes',
  'quietHours.start': 'quietStart',
  'quietHours.end': 'quietEnd',
  // The venue's zone is not a field of the form: said on the quiet hours, which it is for.
  'quietHours.timeZone': 'quietStart',
  priceCap: 'priceCap',
};

/**
 * The errors of a refused `putSettings` (400) on the form's fields: the venue without a time zone
 * in the page's language, anything else the service's message (in English, as the API's
 * validation messages that reach a console form are).
 */
export function settingsErrorsOf(entries: readonly ErrorEntry[], lang: Lang): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const entry of entries) {
    const field = FIELD_OF_PATH[entry.path ?? ''] ?? 'enabled';
    const message = entry.path === 'quietHours.timeZone' && entry.code === 'missing_field' ? wm(lang, 'quietNoZone') : entry.message;
    errors[field] = errors[field] ? `${errors[field]} ${message}` : message;
  }
  return errors;
}
