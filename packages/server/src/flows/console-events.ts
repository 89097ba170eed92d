import type { Tx } from '../db/client.js';
import { serializeOn } from '../db/dialect.js';
import { ApiError } from '../lib/errors.js';
import type { Kernel } from '../lib/kernel.js';
import { auditChange, type AuditContext, type AuditService } from '../domain/audit/audit.service.js';
import { eventByRef, showOfEvent, showsOfEventByShowId, ticketOptionOfShow, ticketOptionsOfShows, type EventRow, type ShowRow } from '../domain/events/events.queries.js';
import type { EventsService } from '../domain/events/events.service.js';
import { partnerById } from '../domain/partners/partners.queries.js';
import type { PartnersService } from '../domain/partners/partners.service.js';
import type { BuyAccessLayerSettings } from '../domain/partners/partners.settings.js';
import type { AppliedRule, RulesService } from '../domain/rules/rules.service.js';
import { ruleToApi, type RuleItemInput } from '../domain/rules/rules.schemas.js';
import { DEFAULT_BUY_ACCESS_LAYER } from './accesslayer/accesslayer.buy.js';

/**
 * The console's changes to a partner's events (http/pages/console/console.events.tsx): resale
 * of a show on or off, a ticket option (category) left out of the buy access layer or back in,
 * rules added or replaced. Each is the owner's command (events, partners, rules) and its audit
 * entry in ONE transaction, as flows/operator-changes.ts does for the operator's changes
 * (ticketShield is switched there, by `setTicketShield`). A change refused (404, 400) writes
 * nothing and records nothing.
 */

/** The stable action names of these changes in the audit log. */
export const CONSOLE_EVENT_ACTIONS = {
  /** Resale of an event's shows (or one show) switched: each show, `shows.<showId>`, before → after; the target is `<eventId>` or `<eventId>/<showId>`. */
  setResale: 'event.resale.set',
  /** A category left out of the buy access layer: `disabled` false → true; the target is `<eventId>/<showId>/<ticketOptionId>`, `*` as the show for every show of the event. */
  disableCategory: 'category.disable',
  /** A category back in the buy access layer: `disabled` true → false; the target as for `category.disable`. */
  enableCategory: 'category.enable',
  /** Rules or combinations of a show added or replaced: each one changed, `rules.<ticketOptionId>[+<priceTypeId>] <ruleType>`, before → after; the target is `<eventId>/<showId>`. */
  applyRules: 'rules.apply',
} as const;

/** What these changes need: the database and the modules they change. */
export type ConsoleEventsDeps = Pick<Kernel, 'db'> & { events: EventsService; partners: PartnersService; rules: RulesService; audit: AuditService };

/** The event of a partner and the shows a change names: one (`showId`), or every show; 404 for an unknown partner, event or show. */
async function targetShows(tx: Tx, partnerId: string, eventId: string, showId: string | undefined): Promise<{ event: EventRow; shows: ShowRow[] }> {
  if (!(await partnerById(tx, partnerId))) throw ApiError.notFound('partner', partnerId);
  const event = await eventByRef(tx, partnerId, eventId);
  if (!event) throw ApiError.notFound('event', eventId);
  const one = showId === undefined ? undefined : await showOfEvent(tx, event.id, showId);
  const shows = showId === undefined ? await showsOfEventByShowId(tx, event.id) : one ? [one] : [];
  if (shows.length === 0) throw ApiError.notFound('show', showId);
  return { event, shows };
}

/** A show after {@link setResale}: whether resale is on, and whether this switch changed it. */
export interface ResaleResult {
  showId: string;
  enabled: boolean;
  changed: boolean;
}

/**
 * Switches resale of an event's shows (or one show) on or off: the show's `resaleEnabled`, the
 * same flag the partner sends in PUT /v1/events (so a partner that later sends `resaleEnabled:
 * true` turns it on again), written through `EventsService.update`. Off closes the show's
 * resale (`isResaleOpen`): no new listing, nothing for sale in the buy access layer. Records
 * `event.resale.set`.
 *
 * @throws ApiError 404 for an unknown partner, event or show (nothing switched, nothing recorded)
 * @example await setResale(deps, ctx, 'ptr_…', { eventId: 'tour-2026', showId: 'show-1', enabled: false }); // [{ showId: 'show-1', enabled: false, changed: true }]
 */
export async function setResale(deps: ConsoleEventsDeps, ctx: AuditContext, partnerId: string, input: { eventId: string; showId?: string | undefined; enabled: boolean }): Promise<ResaleResult[]> {
  return deps.db.transact(async (tx) => {
    const { event, shows } = await targetShows(tx, partnerId, input.eventId, input.showId);
    const changing = shows.filter((s) => s.resaleEnabled !== input.enabled);
    if (changing.length > 0) await deps.events.update(tx, partnerId, { externalReferenceId: event.externalReferenceId, shows: changing.map((s) => ({ showId: s.showId, resaleEnabled: input.enabled })) });
    const was = Object.fromEntries(shows.map((s) => [s.showId, s.resaleEnabled]));
    const is = Object.fromEntries(shows.map((s) => [s.showId, input.enabled]));
    const target = input.showId === undefined ? input.eventId : `${input.eventId}/${input.showId}`;
    await deps.audit.record(tx, ctx, { action: CONSOLE_EVENT_ACTIONS.setResale, partnerId, target, ...auditChange({ shows: was }, { shows: is }) });
    return shows.map((s) => ({ showId: s.showId, enabled: input.enabled, changed: s.resaleEnabled !== input.enabled }));
  });
}

/** One entry of `buyAccessLayer.disabledTicketOptions`. */
export type DisabledCategory = BuyAccessLayerSettings['disabledTicketOptions'][number];

/** The most entries `disabledTicketOptions` holds (the settings' schema). */
export const MAX_DISABLED_CATEGORIES = 1_000;

/** Whether `d` is the entry of a category of `eventId`, in the show `showId` (undefined: the entry for every show). */
export function isCategoryEntry(d: DisabledCategory, eventId: string, showId: string | undefined, ticketOptionId: string): boolean {
  return d.eventId === eventId && d.ticketOptionId === ticketOptionId && d.showId === showId;
}

/**
 * Leaves a ticket option (category) out of the buy access layer, or brings it back: an entry of
 * the partner setting `buyAccessLayer.disabledTicketOptions` for one show (`showId`) or for every
 * show of the event, added or removed through `PartnersService.updateIn` (the other components
 * of the setting kept; a partner without the setting gets the default set with the entry). A disabled category
 * is absent from the buy access layer's answer (its categories, map, counts and best listing).
 * Enabling removes only the entry of that scope: a category disabled for every show stays
 * disabled in a show until that entry goes too. Records `category.disable` or `category.enable`.
 *
 * @throws ApiError 404 for an unknown partner, event or show, or (disabling) a ticket option the show (or no show of the event) has; 400 past {@link MAX_DISABLED_CATEGORIES} entries
 * @example await setCategoryDisabled(deps, ctx, 'ptr_…', { eventId: 'tour-2026', ticketOptionId: 'opt-vip', disabled: true }); // every show of the event
 */
export async function setCategoryDisabled(
  deps: ConsoleEventsDeps,
  ctx: AuditContext,
  partnerId: string,
  input: { eventId: string; showId?: string | undefined; ticketOptionId: string; disabled: boolean },
): Promise<{ changed: boolean }> {
  return deps.db.transact(async (tx) => {
    // Read, change, write the setting: one change at a time per partner (on PostgreSQL; SQLite's writes are one at a time).
    await serializeOn(tx, `partner-settings:${partnerId}`);
    const { event, shows } = await targetShows(tx, partnerId, input.eventId, input.showId);
    if (input.disabled) {
      const known = input.showId === undefined ? (await ticketOptionsOfShows(tx, shows.map((s) => s.id))).some((o) => o.ticketId === input.ticketOptionId) : (await ticketOptionOfShow(tx, shows[0]!.id, input.ticketOptionId)) !== undefined;
      if (!known) throw ApiError.notFound('ticket option', input.ticketOptionId);
    }
    const partner = (await partnerById(tx, partnerId))!;
    const stored = partner.settings.buyAccessLayer;
    const current = stored?.disabledTicketOptions ?? [];
    const was = current.some((d) => isCategoryEntry(d, event.externalReferenceId, input.showId, input.ticketOptionId));
    if (was !== input.disabled) {
      const entry: DisabledCategory = { eventId: event.externalReferenceId, ...(input.showId !== undefined ? { showId: input.showId } : {}), ticketOptionId: input.ticketOptionId };
      const next = input.disabled ? [...current, entry] : current.filter((d) => !isCategoryEntry(d, event.externalReferenceId, input.showId, input.ticketOptionId));
      if (next.length > MAX_DISABLED_CATEGORIES) throw ApiError.field('invalid_value', 'ticketOptionId', `At most ${MAX_DISABLED_CATEGORIES} categories may be disabled; enable some first`);
      // A partner without the setting has the default set: it is kept, with the entries.
      await deps.partners.updateIn(tx, partnerId, { settings: { buyAccessLayer: { ...(stored ?? DEFAULT_BUY_ACCESS_LAYER), disabledTicketOptions: next } } });
    }
    const target = `${input.eventId}/${input.showId ?? '*'}/${input.ticketOptionId}`;
    const action = input.disabled ? CONSOLE_EVENT_ACTIONS.disableCategory : CONSOLE_EVENT_ACTIONS.enableCategory;
    await deps.audit.record(tx, ctx, { action, partnerId, target, ...auditChange({ disabled: was }, { disabled: input.disabled }) });
    return { changed: was !== input.disabled };
  });
}

/** The audit key of a stored rule or combination: `<ticketOptionId>[+<priceTypeId>] <ruleType>`. */
function ruleKey(r: AppliedRule): string {
  return `${r.ticketOptionId}${r.priceTypeId === null ? '' : `+${r.priceTypeId}`} ${r.ruleType}`;
}

/** A show's rules and combinations as the API answers them (without `updatedAt`), by {@link ruleKey}. */
async function rulesByKey(deps: ConsoleEventsDeps, tx: Tx, partnerId: string, ids: { externalReferenceEventId: string; showId: string }): Promise<Record<string, unknown>> {
  const list = await deps.rules.list(tx, partnerId, ids);
  return Object.fromEntries(
    list.map((r) => {
      const { updatedAt: _u, externalReferenceEventId: _e, showId: _s, ticketOptionId: _o, priceTypeId: _p, ruleType: _t, ...value } = ruleToApi(r) as Record<string, unknown>;
      return [ruleKey(r), value];
    }),
  );
}

/**
 * Adds or replaces rules and combinations of one show, items validated by the schema of
 * POST /v1/rules (`RulesRequest`) and applied by the same service (`RulesService.apply`: in
 * order, all or nothing; a stored rule of the same scope and type is replaced, superSwapConfig
 * merges). Records `rules.apply` with each rule or combination that changed, before → after,
 * as GET /v1/rules answers it.
 *
 * @throws ApiError 404 for an unknown event or show; 400 naming the item's field (`1.priceTypeId`, `0.rules.value` …) as POST /v1/rules does
 * @example await applyRules(deps, ctx, 'ptr_…', [{ externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', ruleType: 'maxSell', rules: { maxTickets: 4 } }]);
 */
export async function applyRules(deps: ConsoleEventsDeps, ctx: AuditContext, partnerId: string, items: RuleItemInput[]): Promise<AppliedRule[]> {
  const first = items[0];
  if (!first) return [];
  return deps.db.transact(async (tx) => {
    const ids = { externalReferenceEventId: first.externalReferenceEventId, showId: first.showId };
    await targetShows(tx, partnerId, ids.externalReferenceEventId, ids.showId);
    const before = await rulesByKey(deps, tx, partnerId, ids);
    const applied = await deps.rules.apply(tx, partnerId, items);
    const after = await rulesByKey(deps, tx, partnerId, ids);
    await deps.audit.record(tx, ctx, { action: CONSOLE_EVENT_ACTIONS.applyRules, partnerId, target: `${ids.externalReferenceEventId}/${ids.showId}`, ...auditChange({ rules: before }, { rules: after }) });
    return applied;
  });
}
