import type { AppDeps } from '../../../context.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { eventByRef, priceTypesOfShow, searchEvents, showsOfEvent, ticketOptionsOfShows, type EventListItem, type EventRow, type ShowRow } from '../../../domain/events/events.queries.js';
import { admissionCodesOf, isResaleOpen, type ShowAdmissionCodes } from '../../../domain/events/events.model.js';
import type { DoorView } from '../../../domain/admission/admission.doors.js';
import { CERTIFICATE_AFTER_START_MS } from '../../../domain/admission/admission.service.js';
import { listingCountsOfShows } from '../../../domain/listings/listings.queries.js';
import { leadCountsOfEvent } from '../../../domain/marketdata/marketdata.queries.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { ruleToApi, type StoredRuleItemOutput } from '../../../domain/rules/rules.schemas.js';
import { ticketCountsOfShows } from '../../../domain/tickets/tickets.queries.js';
import { lastFeedRun, latestFeedRuns, type FeedRunRow } from '../../../domain/feeds/feeds.queries.js';
import { FEED_KINDS, type FeedKind } from '../../../domain/feeds/feeds.service.js';
import { waitingListSettingsOf, type WaitinglistSettingsRow } from '../../../domain/waitinglist/waitinglist.queries.js';

/** Events per page of a partner's list. */
export const EVENT_PAGE_SIZE = 50;

/** The furthest page the list goes to (a search narrows it). */
export const MAX_EVENT_PAGE = 1_000;

/** A page of a partner's events: the search, the page number (from 1), and whether a next one exists. */
export interface EventListModel {
  items: EventListItem[];
  q: string;
  page: number;
  hasNext: boolean;
}

/** A page of the partner's events whose title or id contains `q`, newest first. */
export async function loadEventList(deps: Pick<AppDeps, 'db'>, partnerId: string, q: string, page: number): Promise<EventListModel> {
  const term = q.trim().slice(0, 200);
  const rows = await deps.db.read(async (tx) => await searchEvents(tx, partnerId, term, { limit: EVENT_PAGE_SIZE + 1, offset: (page - 1) * EVENT_PAGE_SIZE }));
  return { items: rows.slice(0, EVENT_PAGE_SIZE), q: term, page, hasNext: rows.length > EVENT_PAGE_SIZE };
}

/** What the console counts of a show: its tickets, what is for sale and sold on the resale market, its leads. */
export interface ShowCounts {
  /** Tickets known for the show, but those deleted or cancelled. */
  tickets: number;
  /** Listings for sale (ACTIVE, or RESERVED in a checkout) and the tickets they hold. */
  forSale: { listings: number; tickets: number };
  /** Listings sold on the resale market and the tickets they held. */
  sold: { listings: number; tickets: number };
  leads: number;
}

/** A show in the event's table. */
export interface ShowSummary {
  showId: string;
  title: string;
  startsAt: number;
  status: ShowRow['status'];
  resaleEnabled: boolean;
  /** Resale enabled and the status lets it be (not cancelled nor hidden). */
  resaleOpen: boolean;
  ticketShield: boolean;
  counts: ShowCounts;
}

/** A ticket option of the selected show, and whether it is left out of the buy access layer (for this show, for every show of the event). */
export interface CategoryItem {
  ticketOptionId: string;
  title: string;
  area: string | null;
  disabledInShow: boolean;
  disabledInEvent: boolean;
}

/** The selected show's categories, price types and rules (as GET /v1/rules answers them). */
export interface ShowDetail {
  showId: string;
  title: string;
  categories: CategoryItem[];
  priceTypes: { priceTypeId: string; title: string | null }[];
  rules: StoredRuleItemOutput[];
  /** The show's waiting list: on or off, the fans in its line, and whether it was ever set (`updatedAt` null: never). */
  waitingList: { enabled: boolean; waiting: number; updatedAt: number | null };
  /** The show's door links, oldest first, what they check there (see {@link DoorChecks}), and for how many hours after the show starts they work. */
  doors: { checks: DoorChecks; rotationSeconds: number; hoursAfterStart: number; list: DoorView[] };
}

/**
 * What a door link of the show checks: the rotating codes (`rotating`), or nothing, because
 * ticket protection is off (`shield_off`: the fans show the partner's own tickets) or because
 * the venue scans the partner's own QR (`partner_qr`). The page says which: a door made for a
 * show without rotating codes opens, and then has nothing to check.
 */
export type DoorChecks = 'rotating' | 'shield_off' | 'partner_qr';

/** What a door link checks at a show of these admission codes (the partner's setting and the show's own: {@link admissionCodesOf}). */
function doorChecksOf(codes: ShowAdmissionCodes): DoorChecks {
  if (codes.rotating) return 'rotating';
  return codes.venueScans === 'rotating' ? 'shield_off' : 'partner_qr';
}

/** An event's page: its shows with their switches and counts, and one show in detail. */
export interface EventPageModel {
  event: Pick<EventRow, 'externalReferenceId' | 'title' | 'source'>;
  /** The time zone the event's dates are shown in (its location's, else UTC). */
  timeZone: string;
  shows: ShowSummary[];
  selected: ShowDetail | null;
  mayAdminister: boolean;
}

/** A show's waiting list as the event page sums it up (off and empty when never set). */
function waitingListOf(row: WaitinglistSettingsRow | undefined): ShowDetail['waitingList'] {
  return row ? { enabled: row.enabled, waiting: row.waiting, updatedAt: row.updatedAt } : { enabled: false, waiting: 0, updatedAt: null };
}

/**
 * An event's page for someone who may read the partner: its shows (earliest first) with their
 * counts, and the show `showId` (the first when none is named) in detail; null when the event is
 * not the partner's (or unknown) or the named show is not the event's.
 */
export async function loadEventPage(deps: Pick<AppDeps, 'db' | 'rules' | 'doors'>, session: ConsoleSession, partnerId: string, eventId: string, showId: string | undefined): Promise<EventPageModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  return await deps.db.read(
    async (tx) => {
      const event = await eventByRef(tx, partnerId, eventId);
      if (!event) return null;
      const shows = await showsOfEvent(tx, event.id);
      const selected = showId === undefined ? shows[0] : shows.find((s) => s.showId === showId);
      if (showId !== undefined && !selected) return null;
      const pks = shows.map((s) => s.id);
      const tickets = await ticketCountsOfShows(tx, pks);
      const listings = await listingCountsOfShows(tx, pks);
      const leads = await leadCountsOfEvent(tx, partnerId, event.id);
      const summaries = shows.map((s): ShowSummary => {
        const t = tickets.get(s.id) ?? {};
        const l = listings.get(s.id) ?? {};
        const none = { listings: 0, tickets: 0 };
        const active = l.ACTIVE ?? none;
        const reserved = l.RESERVED ?? none;
        return {
          showId: s.showId,
          title: s.title,
          startsAt: s.startsAt,
          status: s.status,
          resaleEnabled: s.resaleEnabled,
          resaleOpen: isResaleOpen(s),
          ticketShield: s.ticketShield,
          counts: {
            tickets: Object.entries(t).reduce((sum, [state, n]) => (state === 'DELETED' || state === 'CANCELLED' ? sum : sum + n), 0),
            forSale: { listings: active.listings + reserved.listings, tickets: active.tickets + reserved.tickets },
            sold: l.SOLD ?? none,
            leads: leads.get(s.id) ?? 0,
          },
        };
      });
      let detail: ShowDetail | null = null;
      if (selected) {
        const partner = await partnerById(tx, partnerId);
        const disabled = partner?.settings.buyAccessLayer?.disabledTicketOptions ?? [];
        const mine = disabled.filter((d) => d.eventId === event.externalReferenceId);
        const options = await ticketOptionsOfShows(tx, [selected.id]);
        const priceTypes = (await priceTypesOfShow(tx, selected.id)).sort((a, b) => a.position - b.position);
        const rules = await deps.rules.list(tx, partnerId, { externalReferenceEventId: event.externalReferenceId, showId: selected.showId });
        const codes = admissionCodesOf(selected, partner?.settings ?? {});
        detail = {
          showId: selected.showId,
          title: selected.title,
          categories: options.map((o) => ({
            ticketOptionId: o.ticketId,
            title: o.title,
            area: o.area,
            disabledInShow: mine.some((d) => d.showId === selected.showId && d.ticketOptionId === o.ticketId),
            disabledInEvent: mine.some((d) => d.showId === undefined && d.ticketOptionId === o.ticketId),
          })),
          priceTypes: priceTypes.map((p) => ({ priceTypeId: p.priceTypeId, title: p.title })),
          rules: rules.map(ruleToApi),
          waitingList: waitingListOf(await waitingListSettingsOf(tx, selected.id)),
          doors: { checks: doorChecksOf(codes), rotationSeconds: codes.rotationSeconds, hoursAfterStart: CERTIFICATE_AFTER_START_MS / 3_600_000, list: await deps.doors.listOfShow(tx, selected) },
        };
      }
      return {
        event: { externalReferenceId: event.externalReferenceId, title: event.title, source: event.source },
        timeZone: event.location.timeZone ?? 'UTC',
        shows: summaries,
        selected: detail,
        mayAdminister: can(session, 'administer', partnerId),
      };
    },
    { snapshot: true },
  );
}

/** How many of the latest feed runs the events page lists. */
export const FEED_RUNS_SHOWN = 10;

/** The partner's two feeds (where from, the last run of each), how often they are polled, the latest runs, and whether this person may poll now. */
export interface FeedsModel {
  feeds: { kind: FeedKind; url: string | null; last: FeedRunRow | null }[];
  pollSeconds: number;
  runs: FeedRunRow[];
  mayPoll: boolean;
}

/** The feeds panel of the events page, or null for a partner this person may not read. */
export async function loadFeeds(deps: Pick<AppDeps, 'db'>, session: ConsoleSession, partnerId: string): Promise<FeedsModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  return await deps.db.read(async (tx) => {
    const partner = await partnerById(tx, partnerId);
    if (!partner) return null;
    const runs = await latestFeedRuns(tx, partnerId, FEED_RUNS_SHOWN);
    const urls: Record<FeedKind, string | null> = { events: partner.settings.eventsFeedUrl, cancelled: partner.settings.cancelledFeedUrl };
    const feeds = [];
    // A feed's last run may be older than the latest ten of both: asked for on its own.
    for (const kind of FEED_KINDS) feeds.push({ kind, url: urls[kind], last: runs.find((r) => r.feed === kind) ?? (await lastFeedRun(tx, partnerId, kind)) });
    return { feeds, pollSeconds: partner.settings.feedPollSeconds, runs, mayPoll: can(session, 'administer', partnerId) && feeds.some((f) => f.url !== null) };
  });
}
