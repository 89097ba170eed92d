import { z } from 'zod';
import type { Tx } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import type { PartnerRow } from '../partners/partners.service.js';
import type { TicketJobResult } from '../tickets/tickets.service.js';
import type { UserRow } from '../users/users.service.js';
import { platformFetch, type PlatformFailureReason } from './platform-request.js';
import type { Kernel } from '../../lib/kernel.js';
import type { PartnersService } from '../partners/partners.service.js';
import type { TicketsService } from '../tickets/tickets.service.js';

/**
 * The platform's ticket ownership endpoint (spec, platform-side contract 3):
 * `GET {ownershipUrl}?user=<user id or e-mail>` answers the tickets the user owns now.
 * Asked when a user enters the resale flow, before a listing is created, before a sale is
 * confirmed and before a resale purchase completes. Never cached: every check is a call.
 *
 * Outcomes:
 * - 200 with a JSON array: `owned` with the records mapped (a record without its ids is
 *   left out and logged: it proves nothing, and leaving it out never grants ownership);
 *   204, an empty body or `[]`: `owned` with no tickets (a registered user who may buy);
 * - 404: `no_account` (not signed in or no account: callers send the user to the
 *   platform's login or registration);
 * - anything else (timeout, network error, another status, a body that is not JSON or not
 *   an array, no ownershipUrl configured): `unavailable`: the step fails safely, ownership
 *   is never assumed.
 */

/** A ticket the platform says the user owns, in the service's words. */
export interface OwnedTicket {
  ticketId: string;
  /** The platform record's `eventId`. */
  externalReferenceEventId: string;
  showId: string | null;
  ticketOptionId: string;
  /** The platform record's `ticketTypeId`. */
  priceTypeId: string | null;
  /** What the user paid, in major units, as the platform sent it. */
  paidPrice: number | null;
  seating: { row: string | null; seat: string | null; section: string | null } | null;
  /** The platform record's `properties.orderId`. */
  orderId: string | null;
  tags: string[];
  /** Sent by some platforms beside the documented fields; null when absent or malformed. */
  ticketAccess: { type: 'URL' | 'API' | 'OTHER'; locator: string; status?: string | undefined } | null;
}

/** Why ownership could not be checked. */
export type OwnershipUnavailableReason = PlatformFailureReason | 'not_configured' | 'invalid_body';

export type OwnershipResult =
  | { kind: 'owned'; tickets: OwnedTicket[] }
  | { kind: 'no_account' }
  | { kind: 'unavailable'; reason: OwnershipUnavailableReason; status?: number };

/** A user is waiting: ownership checks give up sooner than feed polls. */
export const OWNERSHIP_TIMEOUT_MS = 5_000;
/** A user's tickets are a small answer. */
export const OWNERSHIP_MAX_BYTES = 2 * 1024 * 1024;

// Platforms send ids as strings, sometimes as numbers; both are taken, as strings.
const id = z.union([z.string().trim().min(1).max(200), z.number().int().transform(String)]);
const text = z.union([z.string().max(100), z.number().transform(String)]).nullish();
const amount = z.union([z.number().finite().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/).transform(Number)]);

/**
 * The platform-side ticket record. The documented names come first; the service's own
 * names (`externalReferenceEventId`, `priceTypeId`, `price`, top-level `orderId`) are read
 * too, since the spec lets names differ when identifiers map consistently. Fields that are
 * not identifiers fall back to null when malformed, rather than losing the ticket.
 */
const PlatformRecord = z
  .object({
    ticketId: id,
    eventId: id.optional(),
    externalReferenceEventId: id.optional(),
    showId: id.nullish().catch(null),
    ticketOptionId: id,
    ticketTypeId: id.nullish().catch(null),
    priceTypeId: id.nullish().catch(null),
    paidPrice: amount.nullish().catch(null),
    price: amount.nullish().catch(null),
    seating: z.object({ row: text, seat: text, section: text }).nullish().catch(null),
    properties: z.looseObject({ orderId: id.nullish().catch(null) }).nullish().catch(null),
    orderId: id.nullish().catch(null),
    tags: z
      .array(z.unknown())
      .nullish()
      .catch(null)
      .transform((tags) => (tags ?? []).filter((t): t is string => typeof t === 'string')),
    ticketAccess: z
      .object({ type: z.enum(['URL', 'API', 'OTHER']), locator: z.string().min(1).max(2048), status: z.string().max(50).optional() })
      .nullish()
      .catch(null),
  })
  .refine((r) => r.eventId !== undefined || r.externalReferenceEventId !== undefined, { message: 'eventId is required', path: ['eventId'] });

function toOwned(r: z.output<typeof PlatformRecord>): OwnedTicket {
  const seating = r.seating ? { row: r.seating.row ?? null, seat: r.seating.seat ?? null, section: r.seating.section ?? null } : null;
  return {
    ticketId: r.ticketId,
    externalReferenceEventId: (r.eventId ?? r.externalReferenceEventId)!,
    showId: r.showId ?? null,
    ticketOptionId: r.ticketOptionId,
    priceTypeId: r.ticketTypeId ?? r.priceTypeId ?? null,
    paidPrice: r.paidPrice ?? r.price ?? null,
    seating: seating && (seating.row || seating.seat || seating.section) ? seating : null,
    orderId: r.properties?.orderId ?? r.orderId ?? null,
    tags: r.tags,
    ticketAccess: r.ticketAccess ?? null,
  };
}

/**
 * Asks the platform which tickets `userIdentifier` (the partner's user id or e-mail)
 * owns now, with the partner's secret header and a time limit. Never throws for a remote
 * failure and never caches.
 *
 * @example
 * const owned = await checkOwnership(deps, partner, user.externalId ?? user.email!);
 * if (owned.kind === 'no_account') return requireLogin();
 * if (owned.kind === 'unavailable') return tryLaterPage();
 * if (!owned.tickets.some((t) => t.ticketId === ticketId)) return notYours();
 */
export async function checkOwnership(
  deps: Pick<Kernel, 'logger'> & { partners: PartnersService },
  partner: PartnerRow,
  userIdentifier: string,
  opts: { timeoutMs?: number } = {},
): Promise<OwnershipResult> {
  const url = partner.settings.ownershipUrl;
  if (!url) return { kind: 'unavailable', reason: 'not_configured' };
  const res = await platformFetch(deps, partner, url, {
    query: { user: userIdentifier },
    timeoutMs: opts.timeoutMs ?? OWNERSHIP_TIMEOUT_MS,
    maxBytes: OWNERSHIP_MAX_BYTES,
  });
  // Logs name the partner and the failure, never the user (the query holds an e-mail).
  if (!res.ok) {
    if (res.reason === 'http' && res.status === 404) return { kind: 'no_account' };
    deps.logger.warn({ partnerId: partner.id, reason: res.reason, status: res.status }, `ownership check failed: ${res.message}`);
    return res.status === undefined ? { kind: 'unavailable', reason: res.reason } : { kind: 'unavailable', reason: res.reason, status: res.status };
  }
  if (res.json === null) return { kind: 'owned', tickets: [] };
  if (!Array.isArray(res.json)) {
    deps.logger.warn({ partnerId: partner.id, status: res.status }, 'ownership check failed: the platform did not answer a JSON array');
    return { kind: 'unavailable', reason: 'invalid_body', status: res.status };
  }
  const tickets: OwnedTicket[] = [];
  let dropped = 0;
  for (const item of res.json) {
    const parsed = PlatformRecord.safeParse(item);
    if (parsed.success) tickets.push(toOwned(parsed.data));
    else dropped++;
  }
  if (dropped > 0) deps.logger.warn({ partnerId: partner.id, dropped, kept: tickets.length }, 'ownership records without ticketId, eventId or ticketOptionId were left out');
  return { kind: 'owned', tickets };
}

/** What {@link syncUnknownTickets} did, by the partner's ticket ids. */
export interface OwnedSyncReport {
  created: string[];
  /** Already known to the service: left as they are (ticket sync from the partner rules them). */
  known: string[];
  rejected: { ticketId: string; errors: NonNullable<TicketJobResult['errors']> }[];
}

const TAG = /^[^:\s][^:]*:.+$/;

/** The buyer of a synchronised ticket: the user's identifiers. */
function buyerOf(user: UserRow): { id?: string; email?: string; phone?: string } {
  const buyer: { id?: string; email?: string; phone?: string } = {};
  if (user.externalId) buyer.id = user.externalId;
  if (user.email) buyer.email = user.email;
  if (user.phone) buyer.phone = user.phone;
  return buyer;
}

/**
 * The ticket sync payload (spec, platform-side contract 5) of an owned ticket: the record
 * as the platform sent it, the user as buyer, `ticketAccess` `{type: OTHER, locator:
 * <ticketId>}` when the platform gave none (the ticket id is the only code we have; the
 * partner's own sync replaces it with the real access later), tags that are not
 * `key:value` left out, `price` = `paidPrice` in the ticket option's currency.
 */
export function ownedTicketPayload(user: UserRow, t: OwnedTicket): Record<string, unknown> {
  return {
    externalReferenceEventId: t.externalReferenceEventId,
    ...(t.showId ? { showId: t.showId } : {}),
    ticketId: t.ticketId,
    ticketOptionId: t.ticketOptionId,
    ...(t.priceTypeId ? { priceTypeId: t.priceTypeId } : {}),
    buyer: buyerOf(user),
    ticketAccess: t.ticketAccess ?? { type: 'OTHER', locator: t.ticketId },
    ...(t.paidPrice !== null ? { price: t.paidPrice } : {}),
    ...(t.seating?.section ? { section: t.seating.section } : {}),
    ...(t.seating?.row ? { row: t.seating.row } : {}),
    ...(t.seating?.seat ? { seat: t.seating.seat } : {}),
    ...(t.orderId ? { orderId: t.orderId } : {}),
    tags: t.tags.filter((tag) => TAG.test(tag) && tag.length <= 200).slice(0, 100),
  };
}

/**
 * On-the-spot ticket sync (spec: "sync is orchestrated by the service when the user
 * reaches sell URLs"): creates, through TicketsService, the owned tickets the service does
 * not know yet, in the caller's transaction. Known tickets are left untouched. A record
 * the ticket rules refuse (unknown event or option, say) is reported, not thrown.
 *
 * @example
 * const owned = await checkOwnership(deps, partner, identifier);
 * if (owned.kind === 'owned') await deps.db.transact((tx) => syncUnknownTickets(deps, tx, partner.id, user, owned.tickets));
 */
export async function syncUnknownTickets(deps: { tickets: TicketsService }, tx: Tx, partnerId: string, user: UserRow, ownedTickets: readonly OwnedTicket[]): Promise<OwnedSyncReport> {
  const report: OwnedSyncReport = { created: [], known: [], rejected: [] };
  const unknown: OwnedTicket[] = [];
  const seen = new Set<string>();
  for (const t of ownedTickets) {
    if (seen.has(t.ticketId)) continue;
    seen.add(t.ticketId);
    try {
      await deps.tickets.get(tx, partnerId, t.ticketId);
      report.known.push(t.ticketId);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
      unknown.push(t);
    }
  }
  if (unknown.length === 0) return report;
  const { valid, rejected } = deps.tickets.parseItems(unknown.map((t) => ownedTicketPayload(user, t)));
  const results = [...rejected, ...await deps.tickets.applyItems(tx, partnerId, valid)].sort((a, b) => a.index - b.index);
  for (const r of results) {
    const ticketId = unknown[r.index]!.ticketId;
    if (r.status === 'rejected') report.rejected.push({ ticketId, errors: r.errors ?? [] });
    else report.created.push(ticketId);
  }
  return report;
}
