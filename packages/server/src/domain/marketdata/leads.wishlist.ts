import type { Lang } from '@resale/shared/lang';
import { and, eq, inArray, isNull, not, or, sql, type SQL } from 'drizzle-orm';
import { jsonArrayHasAny } from '../../db/dialect.js';
import type { Kernel } from '../../lib/kernel.js';
import type { MessagesService } from '../email/email.service.js';
import type { PartnersService } from '../partners/partners.service.js';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';

import { showsWithEvents, ticketOptionsOfShows } from '../events/events.queries.js';
import { activeOptionPksOfShows } from '../listings/listings.queries.js';
import { leads } from './leads.table.js';
import { partnerOf } from '../partners/partners.queries.js';
import { affected } from '../../db/affected.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';

/**
 * Wishlist notifications: a WISHLIST lead with an e-mail is e-mailed once (template
 * `wishlistAvailable`, linking to the show's market page) when the show has resale stock,
 * i.e. an ACTIVE listing of the show, of the lead's ticket option when it named one, while
 * resale of the show is open (resale enabled, not cancelled or hidden, not started).
 *
 * Why a scheduled scan rather than a `listing.activated` domain event handled in the listing's
 * transaction:
 * - a listing becomes ACTIVE in several places (created in the sell flow, released by an
 *   expired or failed checkout, pushed by a channel), owned by other modules; the scan sees
 *   every one of them, and ones added later, without touching them;
 * - a lead sent when stock is already on the market is notified too (no event would fire);
 * - the e-mails of a popular show (thousands of leads) are rendered here, in batches, not
 *   inside a seller's listing transaction, which would hold SQLite's write lock meanwhile.
 * The cost is latency (at most {@link WISHLIST_EVERY_MS}) and one indexed scan per tick over
 * the leads still waiting (partial index `marketdata_leads_wishlist_pending_idx`).
 *
 * Once, also with several processes: each lead is marked (`notifiedAt`, a conditional update
 * on `notified_at is null`) in the same transaction that puts its e-mail in the outbox, so
 * either both commit or neither does; the outbox guarantees delivery. `notifiedAt` is never
 * reset (an update of the lead keeps it), so a buyer is told once per event and show. A lead
 * whose e-mail cannot be made (a programming error, logged) is marked without a message so it
 * does not block the queue.
 */

/** How often the job looks for leads to notify. */
export const WISHLIST_EVERY_MS = 30_000;
/** Leads notified per transaction. */
export const WISHLIST_BATCH = 200;

type Deps = Pick<Kernel, 'db' | 'clock' | 'config' | 'logger'> & { messages: MessagesService; partners: PartnersService };

class Skip extends Error {}

/**
 * One batch: notifies up to `limit` waiting wishlist leads whose show now has stock.
 *
 * @returns how many leads were marked notified (e-mailed, or skipped for a logged error)
 * @example await notifyWishlists(deps); // 0 when no waiting lead's show has ACTIVE listings
 */
export async function notifyWishlists(deps: Deps, limit = WISHLIST_BATCH): Promise<number> {
  const now = deps.clock.now();
  // A read without the write lock first: most ticks find nothing, and take no lock for it.
  if ((await deps.db.read(async (tx) => await dueLeads(tx, now, 1))).length === 0) return 0;
  return deps.db.transact(async (tx) => {
    const due = await dueLeads(tx, now, limit);

    const langs = new Map<string, Lang>();
    const langOf = async (partnerId: string): Promise<Lang> => {
      let lang = langs.get(partnerId);
      if (lang === undefined) {
        lang = (await partnerOf(tx, partnerId)).settings.defaultLang;
        langs.set(partnerId, lang);
      }
      return lang;
    };

    let marked = 0;
    for (const lead of due) {
      const lang = await langOf(lead.partnerId);
      const query = new URLSearchParams({ showId: lead.showId, lang, ...(lead.ticketOptionId ? { ticketOptionId: lead.ticketOptionId } : {}) });
      const marketUrl = serviceUrl(deps.config.publicBaseUrl, servicePaths.market(lead.partnerId, lead.eventRef, query));
      const timeZone = (lead.showLocation ?? lead.eventLocation).timeZone;
      const mark = async (notificationId: string | null) =>
        affected(await tx.update(leads).set({ notifiedAt: now, notificationId }).where(and(eq(leads.id, lead.id), isNull(leads.notifiedAt)))) === 1;
      try {
        await tx.transact(async (sp) => {
          const messageId = await deps.messages.send(sp, {
            partnerId: lead.partnerId,
            channel: 'email',
            to: lead.email!,
            template: 'wishlistAvailable',
            lang,
            vars: {
              eventTitle: lead.eventTitle,
              showTitle: lead.showTitle,
              showDate: toIso(lead.startsAt),
              marketUrl,
              ticketOptionTitle: lead.optionTitle,
              ...(timeZone ? { timeZone } : {}),
            },
          });
          // Marked by someone else meanwhile: take the message back with the savepoint.
          if (!(await mark(messageId))) throw new Skip();
        });
        marked++;
      } catch (err) {
        if (err instanceof Skip) continue;
        deps.logger.error({ job: 'wishlist', leadId: lead.id, err: { message: (err as Error).message } }, 'wishlist e-mail could not be made; lead marked without a message');
        if (await mark(null)) marked++;
      }
    }
    return marked;
  });
}

/** Tag of the Wishlist lead a waiting-list entry makes (flows/waiting-list-join.ts): market data tells them apart, and this job leaves them to the list's offers. */
export const WAITING_LIST_LEAD_TAG = 'waitinglist';

/** Shows per statement when the waiting leads are read (each show binds its options' ids too). */
const SHOWS_PER_STATEMENT = 200;

/** A waiting wishlist lead (e-mail, not notified yet): the partial index's condition, word for word, so SQLite uses it. */
const waiting = () => sql`${leads.type} = 'WISHLIST' and ${leads.notifiedAt} is null and ${leads.buyerEmail} is not null`;

/**
 * Waiting wishlist leads whose show has stock now, with what their e-mail needs. Composed from
 * the owners' reads: the shows with waiting leads (a covering scan of the partial index
 * `marketdata_leads_wishlist_pending_idx`), those whose resale is open (events), those with
 * ACTIVE listings and of which options (listings), then the waiting leads of those shows that
 * named no option or an option with stock.
 */
async function dueLeads(tx: Tx, now: number, limit: number) {
  const pending = await tx.selectDistinct({ showPk: leads.showPk }).from(leads).where(waiting());
  if (pending.length === 0) return [];
  const shows = await showsWithEvents(tx, pending.map((r) => r.showPk));
  const open = [...shows.values()].filter(({ show }) => show.resaleEnabled && show.status !== 'CANCELLED' && show.status !== 'HIDDEN' && show.startsAt > now);
  if (open.length === 0) return [];
  const stock = await activeOptionPksOfShows(tx, open.map((s) => s.show.id));
  const stocked = open.filter((s) => stock.has(s.show.id));
  if (stocked.length === 0) return [];
  // The partner's ids of the options with stock, per show, and every option's title (by show and partner id).
  const optionIds = new Map<string, string[]>();
  const titles = new Map<string, string>();
  for (const o of await ticketOptionsOfShows(tx, stocked.map((s) => s.show.id))) {
    titles.set(`${o.showPk}\u0000${o.ticketId}`, o.title);
    if (stock.get(o.showPk)?.has(o.id)) optionIds.set(o.showPk, [...(optionIds.get(o.showPk) ?? []), o.ticketId]);
  }

  const rows: (typeof leads.$inferSelect)[] = [];
  for (let i = 0; i < stocked.length && rows.length < limit; i += SHOWS_PER_STATEMENT) {
    const scope: SQL[] = stocked.slice(i, i + SHOWS_PER_STATEMENT).map(({ show }) => {
      const ids = optionIds.get(show.id) ?? [];
      // The option the lead named (none: any stock of the show; one no longer existing: no stock matches).
      return and(eq(leads.showPk, show.id), ids.length > 0 ? or(isNull(leads.ticketOptionId), inArray(leads.ticketOptionId, ids)) : isNull(leads.ticketOptionId))!;
    });
    rows.push(
      ...await tx
        .select()
        .from(leads)
        // A fan in the show's waiting list is offered what fits them (flows/waiting-list-offers.ts): no generic e-mail besides.
        .where(and(waiting(), not(jsonArrayHasAny(leads.tags, [WAITING_LIST_LEAD_TAG])), or(...scope)))
        // No ORDER BY: with one, SQLite walks the whole table in id order instead of the partial index.
        .limit(limit - rows.length),
    );
  }
  return rows.map((lead) => {
    const { show, event } = shows.get(lead.showPk)!;
    return {
      id: lead.id,
      partnerId: lead.partnerId,
      email: lead.buyerEmail,
      ticketOptionId: lead.ticketOptionId,
      eventRef: event.externalReferenceId,
      eventTitle: event.title,
      eventLocation: event.location,
      showId: show.showId,
      showTitle: show.title,
      showLocation: show.location,
      startsAt: show.startsAt,
      optionTitle: lead.ticketOptionId === null ? null : (titles.get(`${lead.showPk}\u0000${lead.ticketOptionId}`) ?? null),
    };
  });
}
