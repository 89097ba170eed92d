import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import type { DemoStore, DemoUser, WebhookDelivery } from './store.js';

/**
 * The platform's webhook receiver, as a partner writes it:
 *
 * 1. Verify the Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 *    `webhook-signature`: HMAC-SHA256 of `{id}.{timestamp}.{raw body}` with the `whsec_`
 *    secret; a timestamp more than 5 minutes off is refused too) on the raw body, before
 *    parsing anything.
 * 2. Drop duplicates by `webhook-id` (the service delivers at least once: retries and
 *    operator replays carry the same id).
 * 3. Act: on `ticket.update` (a resale completed) move the tickets to the buyer, creating
 *    the buyer's account when the platform does not know them, and give the buyer a new
 *    order number, so the seller's order no longer collects them at will-call; on
 *    `resale.refunded` (the operators undid a resale) give the tickets back to the seller, in
 *    the order they left.
 *
 * Every delivery is recorded with its verdict (the /webhooks page shows them). Work is a
 * few in-memory changes and one file write, so the answer comes well within the service's
 * 10-second limit.
 */

const Person = z.object({ id: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() });

/** The `data` of `ticket.update` (the service's TicketUpdateData; only what the demo uses is checked). */
const TicketUpdateData = z.object({
  resaleId: z.string().min(1),
  eventId: z.string(),
  showId: z.string(),
  paidAt: z.string(),
  buyer: Person.extend({ firstName: z.string().nullable(), lastName: z.string().nullable() }),
  tickets: z
    .array(
      z.object({
        ticketId: z.string().min(1),
        pricePaid: z.number().nonnegative(),
        currency: z.string(),
        orderId: z.string().nullable(),
        previousOwner: Person,
      }),
    )
    .min(1),
});

/** The `data` of `resale.refunded` (the service's ResaleRefundedData; only what the demo uses is checked). */
const ResaleRefundedData = z.object({
  resaleId: z.string().min(1),
  eventId: z.string(),
  tickets: z.array(z.object({ ticketId: z.string().min(1) })).min(1),
});

const Body = z.object({ family: z.string(), action: z.string(), data: z.unknown() });

export interface WebhookOutcome {
  /** HTTP status to answer: 2xx for every verified delivery (even ignored ones), 400 for a bad signature. */
  status: number;
  delivery: WebhookDelivery;
}

/** Receives one delivery: verifies, deduplicates, applies, records. Never throws for bad input. */
export function receiveWebhook(store: DemoStore, verifier: Webhook, raw: string, headers: Record<string, string | undefined>, now: Date): WebhookOutcome {
  const id = headers['webhook-id'] ?? null;
  const base = { id, type: actionOf(raw), receivedAt: now.toISOString(), body: raw };
  const signed: Record<string, string> = {
    'webhook-id': headers['webhook-id'] ?? '',
    'webhook-timestamp': headers['webhook-timestamp'] ?? '',
    'webhook-signature': headers['webhook-signature'] ?? '',
  };
  let payload: unknown;
  try {
    payload = verifier.verify(raw, signed);
  } catch (err) {
    const delivery: WebhookDelivery = { ...base, verified: false, verdict: `REJECTED: ${err instanceof Error ? err.message : 'invalid signature'}` };
    store.recordWebhook(delivery);
    return { status: 400, delivery };
  }
  // Verified, so id is present (the library refuses a delivery without it).
  if (id && store.state.appliedWebhookIds.includes(id)) {
    const delivery: WebhookDelivery = { ...base, verified: true, verdict: 'duplicate: already applied, nothing changed' };
    store.recordWebhook(delivery);
    return { status: 200, delivery };
  }
  const verdict = apply(store, payload);
  const delivery: WebhookDelivery = { ...base, verified: true, verdict };
  store.recordWebhook(delivery, id ?? undefined);
  return { status: 200, delivery };
}

function actionOf(raw: string): string | null {
  try {
    const parsed = Body.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data.action.slice(0, 100) : null;
  } catch {
    return null;
  }
}

/** What the platform does with a verified message; answers the verdict. Mutates the state (the caller saves). */
function apply(store: DemoStore, payload: unknown): string {
  const body = Body.safeParse(payload);
  if (!body.success) return 'ignored: not a {family, action, data} body';
  if (body.data.action === 'resale.refunded') return undoResale(store, body.data.data);
  if (body.data.action !== 'ticket.update') return 'received: nothing to do on the platform';
  const data = TicketUpdateData.safeParse(body.data.data);
  if (!data.success) return 'ignored: malformed ticket.update';
  const { resaleId, buyer: b, paidAt } = data.data;

  const buyer = findOrCreateBuyer(store, b);
  if (!buyer) return 'ignored: the buyer has neither a known id nor an e-mail';
  const moved: string[] = [];
  const unknown: string[] = [];
  // One new order per resale, holding all its tickets (the spec's will-call rule), numbered with
  // the resale's own reference: the fan's receipt and e-mails show it, so one number finds the order.
  const newOrderId = resaleId;
  for (const item of data.data.tickets) {
    const ticket = store.ticket(item.ticketId);
    if (!ticket || ticket.eventId !== data.data.eventId) {
      unknown.push(item.ticketId);
      continue;
    }
    ticket.resale = { resaleId, at: paidAt, fromUserId: ticket.ownerId, fromOrderId: ticket.orderId };
    ticket.ownerId = buyer.id;
    ticket.orderId = newOrderId;
    ticket.paidPrice = item.pricePaid;
    ticket.currency = item.currency;
    moved.push(item.ticketId);
  }
  const parts = [`applied: ${moved.length} ticket(s) moved to ${buyer.email} in order ${newOrderId}`];
  if (unknown.length > 0) parts.push(`unknown ticket(s) left alone: ${unknown.join(', ')}`);
  return parts.join('; ');
}

/** A refunded resale: each of its tickets still held through it goes back to the seller, in the order it left. */
function undoResale(store: DemoStore, raw: unknown): string {
  const data = ResaleRefundedData.safeParse(raw);
  if (!data.success) return 'ignored: malformed resale.refunded';
  const back: string[] = [];
  const left: string[] = [];
  for (const item of data.data.tickets) {
    const ticket = store.ticket(item.ticketId);
    // Only a ticket still held through this resale: one resold again since has a new holder by right.
    if (!ticket || ticket.eventId !== data.data.eventId || ticket.resale?.resaleId !== data.data.resaleId) {
      left.push(item.ticketId);
      continue;
    }
    ticket.ownerId = ticket.resale.fromUserId;
    if (ticket.resale.fromOrderId) ticket.orderId = ticket.resale.fromOrderId;
    ticket.resale = null;
    back.push(item.ticketId);
  }
  const parts = [`applied: ${back.length} ticket(s) back to their seller (resale ${data.data.resaleId} refunded)`];
  if (left.length > 0) parts.push(`left alone (unknown or not held through this resale): ${left.join(', ')}`);
  return parts.join('; ');
}

/** The buyer by the platform's id, then e-mail; a buyer new to the platform gets an account. */
function findOrCreateBuyer(store: DemoStore, b: z.output<typeof TicketUpdateData>['buyer']): DemoUser | null {
  const known = (b.id && store.findUser(b.id)) || (b.email && store.findUser(b.email));
  if (known) return known;
  if (!b.email) return null;
  const email = b.email.trim().toLowerCase();
  const slug = email.split('@')[0]!.replace(/[^a-z0-9]+/g, '-').slice(0, 40) || 'buyer';
  let id = `u-${slug}`;
  for (let n = 2; store.findUser(id); n++) id = `u-${slug}-${n}`;
  const name = [b.firstName, b.lastName].filter(Boolean).join(' ') || email;
  const user: DemoUser = { id, name, email };
  store.state.users.push(user);
  return user;
}
