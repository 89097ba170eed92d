import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { isCurrency, toMajor } from '../../lib/money.js';
import { whenPresent } from '../../lib/validation.js';
import { LEAD_TYPES } from './leads.model.js';
import type { LeadRow } from './leads.table.js';

/**
 * Request and response shapes of POST /v1/marketdata/users, …/users/bulk and the lead reads.
 * Where the spec says "not shown" we decided (docs/api.md, "Market data"):
 * - `type` is one of {@link LEAD_TYPES}; each kind is a strict object with the spec's fields,
 *   so a field of another kind (`seating` on a VIRTUAL_QUEUE lead) is 400 `unknown_field`;
 * - `buyer` is an object with at least one of `id`, `email`, `phone` (E.164);
 * - `price` is a number in major units; `currency` defaults to the ticket option's (or the
 *   show's, when all its options share one);
 * - `metadata` is a free JSON object of at most {@link MAX_METADATA_BYTES} bytes; `tags` and
 *   `attributes` at most {@link MAX_TAGS} strings of at most 200 characters;
 * - bulk takes `{items: [...]}`, 1 to {@link MAX_BULK_LEADS} leads (the product's documented limit).
 */

/** The product's documented limit of leads per bulk request. */
export const MAX_BULK_LEADS = 1000;
/** Largest `metadata` object, as JSON text. */
export const MAX_METADATA_BYTES = 4096;
/** Most `tags` (and `attributes`) of a lead. */
export const MAX_TAGS = 50;

const E164 = /^\+[1-9]\d{6,14}$/;
const id = () => z.string().trim().min(1, 'must not be empty').max(200);
const label = (max: number) => z.string().trim().max(max);
const strings = () => z.array(z.string().trim().min(1, 'must not be empty').max(200)).max(MAX_TAGS);

export const LeadBuyerSchema = z
  .strictObject({
    id: id().optional().openapi({ description: "The partner's user id. The strongest identifier: when sent, it alone identifies the buyer.", example: 'user-881' }),
    email: z
      .email({ error: whenPresent('must be an e-mail address') })
      .max(254)
      .optional()
      .openapi({ description: 'E-mail address (compared lower-cased). Identifies the buyer when no id is sent; WISHLIST leads are e-mailed here.', example: 'fan@example.com' }),
    phone: z
      .string()
      .regex(E164, 'must be an E.164 phone number such as +34600111222')
      .optional()
      .openapi({ description: 'Phone number in E.164. Identifies the buyer when neither id nor email is sent.', example: '+34600111222' }),
    firstName: label(100).optional().openapi({ description: 'Given name, kept as sent.', example: 'Ana' }),
    lastName: label(100).optional().openapi({ description: 'Family name, kept as sent.', example: 'García' }),
  })
  .refine((b) => b.id !== undefined || b.email !== undefined || b.phone !== undefined, 'needs at least one of id, email, phone')
  .openapi('LeadBuyer', { description: 'Who the lead is. At least one of id, email, phone; the identity is id, else email, else phone.' });

const SeatingSchema = z
  .strictObject({
    section: label(100).optional().openapi({ description: 'Section.', example: 'A' }),
    row: label(50).optional().openapi({ description: 'Row.', example: '12' }),
    seat: label(50).optional().openapi({ description: 'Seat.', example: '7' }),
    door: label(50).optional().openapi({ description: 'Door or gate.', example: 'North' }),
  })
  .openapi('LeadSeating', { description: 'Seating of the ticket.' });

const price = () => z.number().nonnegative().max(1_000_000_000).openapi({ description: 'Price per ticket in major units of `currency`.', example: 45.5 });
const currency = () =>
  z
    .string()
    .refine(isCurrency, 'must be an ISO 4217 currency code')
    .transform((c) => c.toUpperCase())
    .openapi({ description: "ISO 4217 code. Defaults to the ticket option's currency (or the show's, when all its options share one).", example: 'EUR' });
const ticketId = () => id().openapi({ description: "The partner's ticket id the lead is about.", example: 'tkt-000123' });

const common = {
  externalReferenceEventId: id().openapi({ description: "The partner's event id; the event must exist for this partner.", example: 'tour-2026' }),
  showId: id().openapi({ description: 'The show of the event.', example: 'show-1' }),
  buyer: LeadBuyerSchema,
  ticketOptionId: id().optional().openapi({ description: 'A ticket option of the show. For WISHLIST, only stock of this option triggers the e-mail.', example: 'opt-field' }),
  priceTypeId: id().optional().openapi({ description: 'A price type of the show.', example: 'pt-early' }),
  date: z.iso
    .datetime({ offset: true, error: whenPresent('must be an ISO 8601 date-time with offset, such as 2026-04-01T18:30:00+02:00') })
    .optional()
    .openapi({ description: 'When the lead happened (purchase, abandoned cart, queue exit, subscription), ISO 8601.', example: '2026-04-01T18:30:00+02:00' }),
  metadata: z
    .record(z.string().max(100), z.unknown())
    .refine((m) => JSON.stringify(m).length <= MAX_METADATA_BYTES, `must be at most ${MAX_METADATA_BYTES} bytes as JSON`)
    .optional()
    .openapi({ description: `Free JSON object, kept as sent (at most ${MAX_METADATA_BYTES} bytes as JSON).`, example: { campaign: 'spring' } }),
  tags: strings()
    .optional()
    .openapi({ description: `Labels, at most ${MAX_TAGS}.`, example: ['newsletter'] }),
};

const kind = <T extends (typeof LEAD_TYPES)[number]>(type: T, description: string) =>
  z.literal(type).openapi({ description, example: type });

export const TicketHolderLeadSchema = z
  .strictObject({
    type: kind('TICKET_HOLDER', 'Bought in the primary sale and owns a valid ticket: a potential reseller.'),
    ...common,
    ticketId: ticketId(),
    price: price(),
    currency: currency().optional(),
    seating: SeatingSchema.nullable().optional().openapi({ description: 'Seating of the ticket; null or absent: not known.' }),
    attributes: strings().optional().openapi({ description: `Attributes of the ticket, at most ${MAX_TAGS}.`, example: ['accessible'] }),
  })
  .openapi('TicketHolderLead');

export const AbandonedCartLeadSchema = z
  .strictObject({
    type: kind('ABANDONED_CART', 'Started a primary purchase without completing it.'),
    ...common,
    ticketId: ticketId().optional(),
    price: price().optional(),
    currency: currency().optional(),
    seating: SeatingSchema.nullable().optional().openapi({ description: 'Seating of the ticket; null or absent: not known.' }),
  })
  .openapi('AbandonedCartLead');

export const VirtualQueueLeadSchema = z
  .strictObject({
    type: kind('VIRTUAL_QUEUE', 'Was in the virtual queue and left without buying.'),
    ...common,
    price: price().optional(),
    currency: currency().optional(),
  })
  .openapi('VirtualQueueLead');

export const WishlistLeadSchema = z
  .strictObject({
    type: kind('WISHLIST', 'Subscribed to availability notifications: e-mailed once when resale stock appears for the show (and option).'),
    ...common,
    ticketId: ticketId().optional(),
    price: price().optional(),
    currency: currency().optional(),
  })
  .openapi('WishlistLead');

/** One lead of POST /v1/marketdata/users (and each item of …/bulk), selected by `type`. */
export const LeadInputSchema = z
  .discriminatedUnion('type', [TicketHolderLeadSchema, AbandonedCartLeadSchema, VirtualQueueLeadSchema, WishlistLeadSchema], {
    error: (iss) => {
      if (iss.code !== 'invalid_union') return undefined;
      const type = typeof iss.input === 'object' && iss.input !== null ? (iss.input as { type?: unknown }).type : undefined;
      // "is required" is the validation layer's marker of a missing field (missing_field).
      return type === undefined ? 'is required' : `must be one of ${LEAD_TYPES.join(', ')}`;
    },
  })
  .openapi('LeadInput', { description: 'A lead; `type` selects the kind and its fields.' });
export type LeadInput = z.output<typeof LeadInputSchema>;

/** Body of POST /v1/marketdata/users/bulk: items are validated one by one, so one bad lead does not refuse the others. */
export const LeadBulkSchema = z.strictObject({
  // Items are parsed one by one (LeadsService.bulk), so even a non-object item is only that item's rejection.
  items: z.array(z.unknown()).min(1).max(MAX_BULK_LEADS),
});

/** The same body as documented (see `documentBodyAs`): items are LeadInputs, so a generated client types them. */
export const LeadBulkDocumentedSchema = z
  .strictObject({
    items: z
      .array(LeadInputSchema)
      .min(1)
      .max(MAX_BULK_LEADS)
      .openapi({ description: `1 to ${MAX_BULK_LEADS} leads. Each is validated and applied on its own; an invalid one is rejected with its reasons and the others go on.` }),
  })
  .openapi('LeadBulk');

export const LeadSchema = z
  .object({
    id: z.string().openapi({ description: 'The service’s id of the lead.', example: 'ld_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    type: z.enum(LEAD_TYPES).openapi({ description: 'The kind of lead (the last one sent).', example: 'WISHLIST' }),
    externalReferenceEventId: z.string().openapi({ description: "The partner's event id.", example: 'tour-2026' }),
    showId: z.string().openapi({ description: 'The show.', example: 'show-1' }),
    buyer: z
      .object({
        id: z.string().nullable().openapi({ example: 'user-881' }),
        email: z.string().nullable().openapi({ example: 'fan@example.com' }),
        phone: z.string().nullable().openapi({ example: '+34600111222' }),
        firstName: z.string().nullable().openapi({ example: 'Ana' }),
        lastName: z.string().nullable().openapi({ example: 'García' }),
      })
      .openapi({ description: 'The buyer; e-mail lower-cased.' }),
    ticketOptionId: z.string().nullable().openapi({ example: 'opt-field' }),
    priceTypeId: z.string().nullable().openapi({ example: 'pt-early' }),
    date: z.string().nullable().openapi({ description: 'ISO 8601 in UTC.', example: '2026-04-01T16:30:00.000Z' }),
    ticketId: z.string().nullable().openapi({ example: 'tkt-000123' }),
    price: z.number().nullable().openapi({ description: 'Major units of currency.', example: 45.5 }),
    currency: z.string().nullable().openapi({ example: 'EUR' }),
    seating: SeatingSchema.nullable(),
    attributes: z.array(z.string()).openapi({ example: ['accessible'] }),
    tags: z.array(z.string()).openapi({ example: ['newsletter'] }),
    metadata: z.record(z.string(), z.unknown()).nullable().openapi({ example: { campaign: 'spring' } }),
    notifiedAt: z.string().nullable().openapi({ description: 'WISHLIST: when the availability e-mail was sent to the outbox (once); null before.', example: null }),
    createdAt: z.string().openapi({ example: '2026-04-01T16:30:00.000Z' }),
    updatedAt: z.string().openapi({ example: '2026-04-01T16:30:00.000Z' }),
  })
  .openapi('Lead');
export type LeadRecord = z.output<typeof LeadSchema>;

export const LeadUpsertResultSchema = z
  .object({
    created: z.boolean().openapi({ description: 'true: a new lead; false: the lead of this buyer, event and show was updated.', example: true }),
    lead: LeadSchema,
  })
  .openapi('LeadUpsertResult');

const ItemErrorSchema = z.object({
  code: z.string().openapi({ example: 'missing_field' }),
  message: z.string().openapi({ example: 'ticketId is required' }),
  path: z.string().optional().openapi({ description: 'Relative to the item.', example: 'ticketId' }),
});

export const LeadItemResultSchema = z
  .object({
    index: z.number().int().openapi({ description: 'Position of the item in `items`.', example: 0 }),
    status: z.enum(['created', 'updated', 'rejected']).openapi({ example: 'created' }),
    id: z.string().optional().openapi({ description: 'The lead’s id, unless rejected.', example: 'ld_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    errors: z.array(ItemErrorSchema).optional().openapi({ description: 'Why the item was rejected; paths are relative to the item.' }),
  })
  .openapi('LeadItemResult');

export const LeadBulkResultSchema = z
  .object({
    created: z.number().int().openapi({ example: 2 }),
    updated: z.number().int().openapi({ example: 1 }),
    rejected: z.number().int().openapi({ example: 0 }),
    results: z.array(LeadItemResultSchema).openapi({ description: 'One per item, in request order.' }),
  })
  .openapi('LeadBulkResult');

export const LeadListSchema = z
  .object({
    items: z.array(LeadSchema).openapi({ description: 'Oldest first.' }),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `startingAfter` for the next page; null on the last page.', example: null }),
  })
  .openapi('LeadList');

/** The wire form of a stored lead. */
export function leadToApi(row: LeadRow, ref: { externalReferenceEventId: string; showId: string }): LeadRecord {
  return {
    id: row.id,
    type: row.type,
    externalReferenceEventId: ref.externalReferenceEventId,
    showId: ref.showId,
    buyer: { id: row.buyerId, email: row.buyerEmail, phone: row.buyerPhone, firstName: row.buyerFirstName, lastName: row.buyerLastName },
    ticketOptionId: row.ticketOptionId,
    priceTypeId: row.priceTypeId,
    date: row.date === null ? null : toIso(row.date),
    ticketId: row.ticketId,
    price: row.priceMinor === null || row.currency === null ? null : toMajor(row.priceMinor, row.currency),
    currency: row.currency,
    seating: row.seating,
    attributes: row.attributes,
    tags: row.tags,
    metadata: row.metadata,
    notifiedAt: row.notifiedAt === null ? null : toIso(row.notifiedAt),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
