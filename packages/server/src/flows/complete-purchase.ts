import type { Tx } from '../db/client.js';
import { toIso } from '../lib/clock.js';
import { toMajor } from '../lib/money.js';
import { channelListingOf } from '../domain/channels/channels.queries.js';
import { priceTypeByPk, showWithEvent, ticketOptionByPk } from '../domain/events/events.queries.js';
import { partnerOf } from '../domain/partners/partners.queries.js';
import { userToApi } from '../domain/users/users.service.js';
import { userOf, usersByPks } from '../domain/users/users.queries.js';
import type { WebhookData } from '../domain/webhooks/webhooks.catalog.js';
import type { TemplateVars } from '../domain/email/email.templates.js';
import { secureViewUrl } from '../domain/tickets/tickets.view.js';
import { saleLines } from '../domain/ledger/ledger.accounts.js';
import type { Kernel } from '../lib/kernel.js';
import type { IntentionsService } from '../domain/intentions/intentions.service.js';
import type { LedgerService } from '../domain/ledger/ledger.service.js';
import type { ListingsService } from '../domain/listings/listings.service.js';
import type { MessagesService } from '../domain/email/email.service.js';
import type { PayoutsService } from '../domain/payouts/payouts.service.js';
import type { TicketsService } from '../domain/tickets/tickets.service.js';
import type { WebhooksService } from '../domain/webhooks/webhooks.service.js';
import { serviceUrl, servicePaths } from '../lib/urls.js';

/** What completing a purchase needs from the modules it composes. */
export type CompletePurchaseDeps = Pick<Kernel, 'clock' | 'config' | 'box'> & { intentions: IntentionsService; listings: ListingsService; tickets: TicketsService; payouts: PayoutsService; webhooks: WebhooksService; messages: MessagesService; ledger: LedgerService };

/**
 * Complete a purchase, in the caller's transaction, once its payment succeeded:
 * 1. the intention PENDING → PAID (intentions; conditional: false when it is not PENDING any
 *    more, and then nothing else happens, so a repeated callback completes nothing twice);
 * 2. its listings RESERVED → SOLD (listings, `listing.updated` each);
 * 3. their tickets to the buyer (tickets);
 * 4. each seller's payout scheduled `payoutDelayDays` after the show (payouts);
 * 5. the sale's journal in the ledger: the charge in, what the sellers are owed, the fees;
 * 6. the partner's `ticket.update` webhook (a channel's tickets carry `channel`, for the
 *    partner to fulfil with it) and the e-mails: sold to each seller, confirmed to the buyer
 *    (seats, order reference, a link to each ticket's secure view and to the receipt).
 */
export async function completePurchase(deps: CompletePurchaseDeps, tx: Tx, intentionId: string, payment: { provider: string; providerRef: string }): Promise<boolean> {
  const paid = await deps.intentions.markPaid(tx, intentionId);
  if (!paid) return false;
  if (!paid.buyerPk) throw new Error('A buy intention was paid without a buyer');
  const sold = await deps.listings.markSold(tx, intentionId);
  if (sold.length !== paid.listingIds.length) throw new Error('A paid intention lost a reserved listing');
  await deps.ledger.post(tx, { partnerId: paid.partnerId, kind: 'sale', key: `sale:${paid.id}`, currency: paid.currency, intentionId: paid.id, provider: payment.provider, providerRef: payment.providerRef, lines: saleLines(sold) });

  const { show, event } = (await showWithEvent(tx, paid.showPk))!;
  const partner = await partnerOf(tx, paid.partnerId);
  const buyer = await userOf(tx, paid.buyerPk);
  const sellers = await usersByPks(tx, sold.map((l) => l.sellerPk));
  const lang = partner.settings.defaultLang;
  const dueAt = deps.payouts.dueAt(show.startsAt, partner.settings.payoutDelayDays);
  const resold: WebhookData<'ticket.update'>['tickets'] = [];
  const bought: TemplateVars['purchaseConfirmed']['tickets'] = [];
  for (const listing of sold) {
    const seller = sellers.get(listing.sellerPk)!;
    const held = await deps.listings.ticketsOf(tx, listing.id);
    await deps.tickets.transfer(tx, held.map((t) => t.id), buyer.id);
    const amountMinor = listing.payoutMinor * listing.quantity;
    await deps.payouts.schedule(tx, { partnerId: paid.partnerId, sellerPk: seller.id, listingId: listing.id, amountMinor, currency: listing.currency, dueAt });
    const option = (await ticketOptionByPk(tx, listing.ticketOptionPk))!;
    const priceTypeId = listing.priceTypePk ? (await priceTypeByPk(tx, listing.priceTypePk))?.priceTypeId : undefined;
    const ch = await channelListingOf(tx, listing.id);
    const channel = ch ? { channel: { channelId: ch.channelId, externalListingId: ch.externalListingId, sellerReference: ch.sellerReference } } : {};
    for (const t of held) {
      // The view link is signed for its new owner: it works for the buyer, and stops when the ticket moves on.
      bought.push({ option: option.title, section: t.section, row: t.row, seat: t.seat, url: secureViewUrl(deps, { id: t.id, ownerPk: buyer.id }) });
      resold.push({
        ticketId: t.ticketId,
        ticketOptionId: option.ticketId,
        ...(priceTypeId ? { priceTypeId } : {}),
        seating: { section: t.section, row: t.row, seat: t.seat },
        orderId: t.orderId,
        listingId: listing.id,
        pricePaid: toMajor(listing.priceMinor + listing.buyerFeeMinor, listing.currency),
        currency: listing.currency,
        previousOwner: userToApi(seller),
        ...channel,
      });
    }
    await deps.messages.toUser(tx, paid.partnerId, seller, 'listingSold', lang, {
      eventTitle: event.title,
      showTitle: show.title,
      amount: { minor: amountMinor, currency: listing.currency },
      payoutDate: toIso(dueAt).slice(0, 10),
    });
  }
  const now = paid.paidAt ?? deps.clock.now();
  await deps.webhooks.enqueue(tx, paid.partnerId, {
    action: 'ticket.update',
    resourceKey: `intention:${paid.id}`,
    data: {
      resaleId: paid.id,
      eventId: event.externalReferenceId,
      showId: show.showId,
      paidAt: toIso(now),
      total: toMajor(paid.totalMinor, paid.currency),
      currency: paid.currency,
      buyer: { ...userToApi(buyer), firstName: buyer.firstName, lastName: buyer.lastName },
      tickets: resold,
    },
  });
  const location = show.location ?? event.location;
  const timeZone = location.timeZone;
  const venue = [location.venueName, location.city].filter(Boolean).join(', ') || location.raw;
  await deps.messages.toUser(tx, paid.partnerId, buyer, 'purchaseConfirmed', lang, {
    eventTitle: event.title,
    showTitle: show.title,
    showDate: toIso(show.startsAt),
    ...(venue ? { venue } : {}),
    amount: { minor: paid.totalMinor, currency: paid.currency },
    orderReference: paid.id,
    tickets: bought,
    receiptUrl: serviceUrl(deps.config.publicBaseUrl, servicePaths.checkoutDone(paid.partnerId, paid.id, { lang })),
    ...(timeZone ? { timeZone } : {}),
  });
  return true;
}
