import { and, eq, isNull } from 'drizzle-orm';
import type { Kernel } from '../../lib/kernel.js';
import type { EventsService } from '../events/events.service.js';
import type { MessagesService } from '../email/email.service.js';
import type { WebhooksService } from '../webhooks/webhooks.service.js';
import type { RulesService } from '../rules/rules.service.js';
import { affected } from '../../db/affected.js';
import { toIso } from '../../lib/clock.js';
import { effectiveConfiguration } from '../events/events.model.js';
import { shieldedShowsStartingBetween } from '../events/events.queries.js';
import { partnerOf, type PartnerRow } from '../partners/partners.queries.js';
import { usersByPks } from '../users/users.queries.js';
import { qrUnlockAt } from './tickets.access.js';
import { ticketPdf } from './tickets.pdf.js';
import { tickets } from './tickets.table.js';
import { buildTicketView, hasDownload, secureViewUrl } from './tickets.view.js';

const DAY = 86_400_000;
/** A qrUnlock rule may open at most 720 h (30 days) before the show. */
const LOOKAHEAD = 31 * DAY;

/**
 * At the QR unlock moment of ticketShield shows:
 * - the partner gets `event.unlock` `{eventId, showId}` once per show (at the show's unlock
 *   moment without option rules);
 * - each owner of a valid ticket gets the "your ticket is available" e-mail (or SMS) with
 *   the ticket as a PDF, once per ticket (its own unlock moment, rules included).
 * Marks are set with conditional updates, so two workers never notify twice.
 */
export async function runUnlocks(deps: Pick<Kernel, 'db' | 'clock' | 'config' | 'box' | 'logger'> & { events: EventsService; messages: MessagesService; webhooks: WebhooksService; rules: RulesService }, limit = 200): Promise<{ announced: number; notified: number }> {
  const now = deps.clock.now();
  const { candidates, partners } = await deps.db.read(async (tx) => {
    const candidates = await shieldedShowsStartingBetween(tx, now - DAY, now + LOOKAHEAD);
    const partners = new Map<string, PartnerRow>();
    for (const { show } of candidates) if (!partners.has(show.partnerId)) partners.set(show.partnerId, await partnerOf(tx, show.partnerId));
    return { candidates, partners };
  });
  let announced = 0;
  let notified = 0;
  for (const { show, event } of candidates) {
    const partner = partners.get(show.partnerId)!;
    const configuration = effectiveConfiguration(event.configuration, show.configuration);
    const showUnlock = qrUnlockAt({ startsAt: show.startsAt, configuration, partnerHoursBeforeShow: partner.settings.qrLockHoursBeforeShow });
    if (show.unlockAnnouncedAt === null && showUnlock <= now) {
      const claimed = await deps.db.transact(async (tx) => {
        if (!(await deps.events.claimUnlockAnnouncement(tx, show.id, now))) return false;
        await deps.webhooks.enqueue(tx, partner.id, { action: 'event.unlock', resourceKey: `show:${event.externalReferenceId}/${show.showId}`, data: { eventId: event.externalReferenceId, showId: show.showId } });
        return true;
      });
      if (claimed) announced++;
    }
    const { pending, owners } = await deps.db.read(async (tx) => {
      const pending = await tx
        .select()
        .from(tickets)
        .where(and(eq(tickets.showPk, show.id), eq(tickets.state, 'VALID'), isNull(tickets.unlockNotifiedAt)))
        .limit(limit - notified);
      return { pending, owners: await usersByPks(tx, pending.map((t) => t.ownerPk)) };
    });
    for (const ticket of pending) {
      const owner = owners.get(ticket.ownerPk)!;
      const view = await buildTicketView(deps, ticket.id);
      if (view.access.unlockAt > now) continue;
      const url = secureViewUrl(deps, ticket);
      const lang = partner.settings.defaultLang;
      const pdf = hasDownload(view) ? await ticketPdf(view, url, lang) : null;
      const sent = await deps.db.transact(async (tx) => {
        const claimed = await tx.update(tickets).set({ unlockNotifiedAt: now }).where(and(eq(tickets.id, ticket.id), isNull(tickets.unlockNotifiedAt)));
        if (affected(claimed) !== 1) return false;
        const vars = { eventTitle: event.title, showTitle: show.title, showDate: toIso(show.startsAt), ticketUrl: url, ...(view.timeZone ? { timeZone: view.timeZone } : {}), ...(view.rotating ? { rotationSeconds: view.rotating.rotationSeconds } : {}) };
        const attachments = pdf ? [{ filename: `ticket-${ticket.ticketId}.pdf`.replace(/[^\w.-]/g, '_'), contentType: 'application/pdf', content: pdf }] : [];
        if ((await deps.messages.toUser(tx, partner.id, owner, 'ticketUnlocked', lang, vars, { attachments })) === null) {
          deps.logger.warn({ ticketPk: ticket.id }, 'ticket unlocked but its owner has no e-mail or phone');
        }
        return true;
      });
      if (sent) notified++;
      if (notified >= limit) return { announced, notified };
    }
  }
  return { announced, notified };
}
