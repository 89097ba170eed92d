import type { Kernel } from '../lib/kernel.js';
import type { TicketsService } from '../domain/tickets/tickets.service.js';
import { ApiError } from '../lib/errors.js';
import { toMinor } from '../lib/money.js';
import type { PartnerRow } from '../domain/partners/partners.service.js';
import { checkOwnership, syncUnknownTickets } from '../domain/platform/ownership.js';
import type { UserRow } from '../domain/users/users.service.js';

/**
 * The sell flow's steps that are not HTTP: the live ownership check (never from cache),
 * on-the-spot sync of tickets the service does not know, and reading a price typed by a
 * person.
 */
export type Verified = { kind: 'ok'; ticketIds: Set<string> } | { kind: 'no_account' } | { kind: 'unavailable' };

/**
 * Asks the platform which tickets the user owns now, creates the ones the service does not
 * know, and, for `claim` tickets the platform confirms but our record gives to someone else
 * (a transfer we were not told of), moves them to the user: the platform is the source of
 * truth, and it has just answered.
 */
export async function verifyOwnership(deps: Parameters<typeof checkOwnership>[0] & Parameters<typeof syncUnknownTickets>[0] & Pick<Kernel, 'db'> & { tickets: TicketsService }, partner: PartnerRow, user: UserRow, claim: readonly string[] = []): Promise<Verified> {
  const identifier = user.externalId ?? user.email ?? user.phone;
  if (!identifier) return { kind: 'no_account' };
  const owned = await checkOwnership(deps, partner, identifier);
  if (owned.kind !== 'owned') return owned.kind === 'no_account' ? { kind: 'no_account' } : { kind: 'unavailable' };
  const ticketIds = new Set(owned.tickets.map((t) => t.ticketId));
  await deps.db.transact(async (tx) => {
    await syncUnknownTickets(deps, tx, partner.id, user, owned.tickets);
    for (const ticketId of claim) {
      if (!ticketIds.has(ticketId)) continue;
      const ticket = await deps.tickets.get(tx, partner.id, ticketId);
      if (ticket.ownerPk !== user.id && (ticket.state === 'VALID' || ticket.state === 'LISTED')) {
        await deps.tickets.update(tx, partner.id, ticketId, { buyer: { ...(user.externalId ? { id: user.externalId } : {}), ...(user.email ? { email: user.email } : {}), ...(user.phone ? { phone: user.phone } : {}) } });
      }
    }
  });
  return { kind: 'ok', ticketIds };
}

/**
 * A price as a person types it ("45.5", "45,50", "€ 45") to minor units.
 * @throws 400 naming `price`
 */
export function parseTypedPrice(raw: unknown, currency: string): number | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  let text = raw.replace(/[\s\u00a0€$£]/g, '');
  if (/^\d+,\d{1,3}$/.test(text)) text = text.replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(text)) throw ApiError.field('invalid_value', 'price', 'Enter the price as a number, such as 45.50');
  return toMinor(text, currency, 'price');
}
