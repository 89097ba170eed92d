import { inOrder } from '../../lib/in-order.js';
import { and, asc, eq, gt, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { fromIso } from '../../lib/clock.js';
import { ApiError, type ErrorEntry } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { toMinor } from '../../lib/money.js';
import { issuesToEntries } from '../../lib/validation.js';
import { eventByRef, priceTypeOfShow, showsWithEvents, ticketOptionOfShow, ticketOptionsOfShow } from '../events/events.queries.js';
import { LeadInputSchema, leadToApi, type LeadInput, type LeadRecord } from './leads.schemas.js';
import type { LeadType } from './leads.model.js';
import { leads, type LeadRow } from './leads.table.js';
import type { Kernel } from '../../lib/kernel.js';
import type { EventsService } from '../events/events.service.js';

/** What an upsert did. */
export interface LeadUpsert {
  created: boolean;
  lead: LeadRecord;
}

/** One item's outcome in bulk. */
export interface LeadItemResult {
  index: number;
  status: 'created' | 'updated' | 'rejected';
  id?: string;
  errors?: Omit<ErrorEntry, 'in'>[];
}

/** Filters and page of {@link LeadsService.list}. */
export interface LeadListQuery {
  externalReferenceEventId?: string | undefined;
  showId?: string | undefined;
  type?: LeadType | undefined;
  limit: number;
  startingAfter?: string | undefined;
}

/**
 * The buyer's identity, normalised: the partner's user id when sent, else the e-mail
 * (lower-cased), else the phone (E.164, as validated). One identifier wins so that the
 * upsert is one `INSERT … ON CONFLICT` on one unique key; matching on any of several
 * identifiers would need a read before the write, which races.
 *
 * @example buyerKey({ email: 'Ana@Example.com', phone: '+34600111222' }) // 'email:ana@example.com'
 */
export function buyerKey(buyer: { id?: string | undefined; email?: string | undefined; phone?: string | undefined }): string {
  if (buyer.id !== undefined) return `id:${buyer.id}`;
  if (buyer.email !== undefined) return `email:${buyer.email.toLowerCase()}`;
  if (buyer.phone !== undefined) return `phone:${buyer.phone}`;
  throw new Error('buyerKey: a buyer needs an id, an e-mail or a phone (validated upstream)');
}

/**
 * Leads of the market data API (POST /v1/marketdata/users and …/bulk). A lead is upserted by
 * (partner, event, show, buyer identity) with a single `INSERT … ON CONFLICT DO UPDATE` on the
 * unique index `marketdata_leads_identity_uq`: concurrent calls for the same buyer and show,
 * from one process or several, leave exactly one row. Every check comes before the write, so
 * a refused lead writes nothing.
 *
 * An update replaces the lead's fields with the ones sent (an absent optional field becomes
 * null), like a PUT of the whole lead, except the buyer's contact points and names, which are
 * merged (one sent before and absent now is kept: a later lead without the e-mail must not
 * lose the way to reach the buyer). `type` is the last one sent. `notifiedAt` is never reset.
 */
export class LeadsService {
  constructor(private readonly deps: Pick<Kernel, 'clock'> & { events: EventsService }) {}

  /**
   * Creates or updates one lead.
   *
   * @throws ApiError 404 unknown (or another partner's) event or show; 400 a ticket option or
   *   price type not of the show, a price with more decimals than its currency, a price without
   *   a currency when the show's options have several
   * @example svc.upsert(tx, partnerId, { type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'fan@example.com' } })
   */
  async upsert(tx: Tx, partnerId: string, input: LeadInput): Promise<LeadUpsert> {
    const { event, show } = await this.deps.events.findShow(tx, partnerId, input.externalReferenceEventId, input.showId);
    let optionCurrency: string | null = null;
    if (input.ticketOptionId !== undefined) {
      const option = await ticketOptionOfShow(tx, show.id, input.ticketOptionId);
      if (!option) throw ApiError.field('invalid_value', 'ticketOptionId', `ticketOptionId '${input.ticketOptionId}' is not a ticket option of show '${show.showId}'`);
      optionCurrency = option.currency;
    }
    if (input.priceTypeId !== undefined && !(await priceTypeOfShow(tx, show.id, input.priceTypeId))) {
      throw ApiError.field('invalid_value', 'priceTypeId', `priceTypeId '${input.priceTypeId}' is not a price type of show '${show.showId}'`);
    }
    const price = 'price' in input ? input.price : undefined;
    let currency = ('currency' in input ? input.currency : undefined) ?? null;
    if (price !== undefined && currency === null) currency = optionCurrency ?? await this.showCurrency(tx, show.id, show.showId);
    const priceMinor = price === undefined || currency === null ? null : toMinor(price, currency, 'price');

    const now = this.deps.clock.now();
    const buyer = input.buyer;
    const email = buyer.email?.toLowerCase();
    const fields = {
      type: input.type,
      ticketOptionId: input.ticketOptionId ?? null,
      priceTypeId: input.priceTypeId ?? null,
      date: input.date === undefined ? null : fromIso(input.date),
      ticketId: ('ticketId' in input ? input.ticketId : undefined) ?? null,
      priceMinor,
      currency,
      seating: ('seating' in input ? input.seating : undefined) ?? null,
      attributes: ('attributes' in input ? input.attributes : undefined) ?? [],
      tags: input.tags ?? [],
      metadata: input.metadata ?? null,
      updatedAt: now,
    };
    const id = newId('lead');
    const row = (await tx
      .insert(leads)
      .values({
        id,
        partnerId,
        eventPk: event.id,
        showPk: show.id,
        buyerKey: buyerKey(buyer),
        buyerId: buyer.id ?? null,
        buyerEmail: email ?? null,
        buyerPhone: buyer.phone ?? null,
        buyerFirstName: buyer.firstName ?? null,
        buyerLastName: buyer.lastName ?? null,
        ...fields,
        notifiedAt: null,
        notificationId: null,
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [leads.partnerId, leads.eventPk, leads.showPk, leads.buyerKey],
        set: {
          ...fields,
          buyerId: keepIfAbsent('buyer_id', leads.buyerId),
          buyerEmail: keepIfAbsent('buyer_email', leads.buyerEmail),
          buyerPhone: keepIfAbsent('buyer_phone', leads.buyerPhone),
          buyerFirstName: keepIfAbsent('buyer_first_name', leads.buyerFirstName),
          buyerLastName: keepIfAbsent('buyer_last_name', leads.buyerLastName),
        },
      })
      .returning())[0]!;
    // The conflict branch keeps the stored id: ours came back only if the row is new.
    return { created: row.id === id, lead: leadToApi(row, { externalReferenceEventId: event.externalReferenceId, showId: show.showId }) };
  }

  /**
   * Applies many leads (bulk), each validated and applied on its own in a savepoint of `tx`:
   * a rejected item writes nothing and does not stop the others. Results are in request order.
   */
  async bulk(tx: Tx, partnerId: string, items: readonly unknown[]): Promise<LeadItemResult[]> {
    return await inOrder(items, async (raw, index): Promise<LeadItemResult> => {
      const parsed = LeadInputSchema.safeParse(raw);
      if (!parsed.success) return { index, status: 'rejected', errors: issuesToEntries(parsed.error.issues, 'body').map(stripIn) };
      try {
        const { created, lead } = await tx.transact(async (sp) => await this.upsert(sp, partnerId, parsed.data));
        return { index, status: created ? 'created' : 'updated', id: lead.id };
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return { index, status: 'rejected', errors: err.entries.map(stripIn) };
      }
    });
  }

  /** One lead of the partner. @throws ApiError 404 */
  async get(tx: Tx, partnerId: string, leadId: string): Promise<LeadRecord> {
    const row = (await tx.select().from(leads).where(and(eq(leads.partnerId, partnerId), eq(leads.id, leadId))).limit(1))[0];
    if (!row) throw ApiError.notFound('lead', leadId);
    return (await this.toRecords(tx, [row]))[0]!;
  }

  /**
   * The partner's leads, oldest first, optionally of one event, show and type; cursor
   * pagination on the lead id (ids sort by creation).
   *
   * @throws ApiError 404 unknown event or show; 400 showId without externalReferenceEventId
   */
  async list(tx: Tx, partnerId: string, q: LeadListQuery): Promise<{ items: LeadRecord[]; nextCursor: string | null }> {
    const where: SQL[] = [eq(leads.partnerId, partnerId)];
    if (q.externalReferenceEventId !== undefined) {
      if (q.showId !== undefined) {
        where.push(eq(leads.showPk, (await this.deps.events.findShow(tx, partnerId, q.externalReferenceEventId, q.showId)).show.id));
      } else {
        const event = await eventByRef(tx, partnerId, q.externalReferenceEventId);
        if (!event) throw ApiError.notFound('event', q.externalReferenceEventId);
        where.push(eq(leads.eventPk, event.id));
      }
    } else if (q.showId !== undefined) {
      throw ApiError.field('missing_field', 'externalReferenceEventId', 'externalReferenceEventId is required with showId', 'query');
    }
    if (q.type !== undefined) where.push(eq(leads.type, q.type));
    if (q.startingAfter !== undefined) where.push(gt(leads.id, q.startingAfter));
    const rows = await tx
      .select()
      .from(leads)
      .where(and(...where))
      .orderBy(asc(leads.id))
      .limit(q.limit + 1);
    const page = rows.slice(0, q.limit);
    return { items: await this.toRecords(tx, page), nextCursor: rows.length > q.limit ? page[page.length - 1]!.id : null };
  }

  /** Leads as the API answers them, with their event's and show's ids (read in one go from the events module). */
  private async toRecords(tx: Tx, rows: readonly LeadRow[]): Promise<LeadRecord[]> {
    const shows = await showsWithEvents(tx, rows.map((r) => r.showPk));
    return rows.map((r) => {
      const s = shows.get(r.showPk);
      if (!s) throw new Error(`No show ${r.showPk} for lead ${r.id}`);
      return leadToApi(r, { externalReferenceEventId: s.event.externalReferenceId, showId: s.show.showId });
    });
  }

  /** The currency of the show's ticket options when they share one; a price needs one. */
  private async showCurrency(tx: Tx, showPk: string, showId: string): Promise<string> {
    const currencies = [...new Set((await ticketOptionsOfShow(tx, showPk)).map((o) => o.currency))];
    if (currencies.length !== 1) {
      throw ApiError.field('missing_field', 'currency', `currency is required with price: show '${showId}' has ${currencies.length === 0 ? 'no ticket options' : 'options in several currencies'}`);
    }
    return currencies[0]!;
  }
}

/** The value sent (`excluded.<column>`), or the stored one when nothing was sent. */
function keepIfAbsent(column: string, stored: AnyColumn): SQL {
  return sql`coalesce(${sql.raw(`excluded.${column}`)}, ${stored})`;
}

function stripIn(e: ErrorEntry): Omit<ErrorEntry, 'in'> {
  const { in: _in, ...rest } = e;
  return rest;
}
