import { z } from '@hono/zod-openapi';
import { whenPresent } from '../../lib/validation.js';
import { TICKET_STATES } from './tickets.table.js';

/**
 * Ticket request and response shapes. Where the spec says "not shown" we decided:
 * - `buyer`: an e-mail string (as the spec's examples), a phone string in E.164, or an
 *   object `{id?, email?, phone?, firstName?, lastName?}` with at least one of id, e-mail, phone.
 * - `ticketAccess`: `{type: URL | API | OTHER, locator, status?}`; for URL the locator is an
 *   http(s) URL of the QR image or page, for API/OTHER a code.
 * - `primarySaleBuyerData`, `nominalTicket`: the product's documented fields.
 * - `props`: free-form additional properties; `props.seating {row, seat, section, door, image}`
 *   and `props.willCallNumber` are understood.
 * - seating may also be sent top level as `section`, `row`, `seat` (these win over props.seating).
 * - `orderId`: the primary-sale order (sell-order flow, will-call); `props.orderId` is read too.
 */

const str = (max = 500) => z.string().max(max);
const id = () => z.string().trim().min(1, 'must not be empty').max(200);

export const BuyerSchema = z
  .union([
    z.email({ error: whenPresent('must be an e-mail address, an E.164 phone or an object') }).openapi({ example: 'fan@example.com' }),
    z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an e-mail address, an E.164 phone or an object').openapi({ example: '+34600111222' }),
    z
      .strictObject({
        id: id().optional().openapi({ description: "The partner's user id (preferred identifier).", example: 'user-881' }),
        email: z.email().max(254).optional(),
        phone: z.string().max(32).optional().openapi({ example: '+34600111222' }),
        firstName: str(100).optional(),
        lastName: str(100).optional(),
      })
      .refine((b) => b.id || b.email || b.phone, 'needs at least one of id, email, phone'),
  ])
  .openapi('Buyer', { description: 'The owner: an e-mail, an E.164 phone, or an object with id, email and/or phone.' });

/**
 * The most a code may take when it is shown as a QR code (type API or OTHER): the byte-mode
 * capacity of the largest QR code at error correction M (version 40), in UTF-8 bytes. Up to
 * 2,048 characters of ASCII always fit; 2,048 accented letters or emoji do not.
 */
export const QR_MAX_BYTES = 2331;

/** Whether a code fits in a QR code (see {@link QR_MAX_BYTES}). */
export function fitsQrCode(code: string): boolean {
  return Buffer.byteLength(code, 'utf8') <= QR_MAX_BYTES;
}

export const TicketAccessSchema = z
  .strictObject({
    type: z.enum(['URL', 'API', 'OTHER']).openapi({ description: 'URL: locator is a link to the QR; API/OTHER: locator is a code.' }),
    locator: z.string().min(1).max(2048).openapi({ example: 'https://partner.example/qr/8f2a1c', description: `A URL (type URL), or the code the secure view shows as a QR code (API, OTHER: at most ${QR_MAX_BYTES} bytes in UTF-8).` }),
    status: z.string().max(50).optional().openapi({ example: 'LOCKED' }),
  })
  .refine((a) => a.type !== 'URL' || /^https?:\/\/[^\s]+$/i.test(a.locator), { message: 'must be an http(s) URL when type is URL', path: ['locator'] })
  .refine((a) => a.type === 'URL' || fitsQrCode(a.locator), { message: `must fit in a QR code when type is API or OTHER: at most ${QR_MAX_BYTES} bytes in UTF-8`, path: ['locator'] })
  .openapi('TicketAccess');

const price = () => z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal amount such as 19.99')]);
const tag = () => z.string().regex(/^[^:\s][^:]*:.+$/, 'must be a key:value tag').max(200);

/**
 * Ticket ids refused at creation: `/v1/tickets/jobs/{jobId}` and `/v1/tickets/batch/eventAdmission`
 * would answer for a ticket of that id in `GET /v1/tickets/{ticketId}/url` and
 * `POST /v1/tickets/{ticketId}/eventAdmission`. Refusing the two ids keeps every path as it is
 * (the batch one is the spec's) and no partner's ticket unreachable.
 */
export const RESERVED_TICKET_IDS = ['jobs', 'batch'] as const;

const ticketFields = {
  externalReferenceEventId: id().openapi({ example: 'tour-2026' }),
  showId: id().nullable().optional().openapi({ example: 'show-1', description: 'Required when the event has several shows.' }),
  buyer: BuyerSchema,
  ticketId: id()
    .refine((v) => !(RESERVED_TICKET_IDS as readonly string[]).includes(v), `is reserved: ${RESERVED_TICKET_IDS.join(' and ')} are paths of their own under /v1/tickets`)
    .openapi({
      example: 'tkt-000123',
      description: `The partner's ticket id; sending it again updates the ticket. Not ${RESERVED_TICKET_IDS.map((r) => `\`${r}\``).join(' nor ')}: those are paths of their own under /v1/tickets.`,
    }),
  ticketAccess: TicketAccessSchema,
  ticketOptionId: id().openapi({ example: 'opt-field' }),
  priceTypeId: id().optional().openapi({ example: 'pt-early', description: 'Must form an existing combination with ticketOptionId.' }),
  price: price().optional().openapi({ example: 45.5, description: 'Final price paid by the user, in major units.' }),
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code').optional().openapi({ example: 'EUR', description: 'Defaults to the ticket option’s currency.' }),
  buyerEmailExternal: z.email().max(254).optional(),
  primarySaleBuyerData: z
    .strictObject({
      firstName: str(100).optional(),
      lastName: str(100).optional(),
      identificationType: str(50).optional(),
      identificationNumber: str(100).optional(),
      phoneNumber: str(32).optional(),
    })
    .optional(),
  nominalTicket: z.strictObject({ fullName: str(200).optional(), identification: str(100).optional() }).optional(),
  props: z
    .object({
      seating: z
        .object({ row: str(50).optional(), seat: str(50).optional(), section: str(100).optional(), door: str(50).optional(), image: str(2048).optional() })
        .optional(),
      urls: z.unknown().optional(),
      orderId: str(200).optional(),
      willCallNumber: str(100).optional(),
    })
    .catchall(z.unknown())
    .optional()
    .openapi({ description: 'Additional properties. seating, orderId and willCallNumber are understood; the rest is kept as sent.' }),
  primarySalesFee: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Fee of the primary sale, kept as sent.', example: { amount: 2.5, currency: 'EUR' } }),
  tags: z.array(tag()).max(100).optional(),
  section: str(100).optional(),
  row: str(50).optional(),
  seat: str(50).optional(),
  orderId: str(200).optional().openapi({ example: 'order-5531', description: 'The primary-sale order the ticket belongs to.' }),
};

/** One ticket of POST /v1/tickets and /v1/sync/tickets. */
export const TicketInputSchema = z.strictObject(ticketFields).openapi('TicketInput');
export type TicketInput = z.output<typeof TicketInputSchema>;

/** PUT /v1/tickets/:ticketId: every field optional (partners send them all), plus `flags`. */
export const TicketUpdateSchema = z
  .strictObject({
    ...ticketFields,
    flags: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Partner flags, kept as sent.', example: { vip: true } }),
  })
  .partial()
  .openapi('TicketUpdate');
export type TicketUpdate = z.output<typeof TicketUpdateSchema>;

/** Items per request: the asynchronous endpoint is for volume, the synchronous one is not. */
export const MAX_ASYNC_ITEMS = 5000;
export const MAX_SYNC_ITEMS = 500;

export const TicketRecordSchema = z
  .object({
    id: z.string().openapi({ example: 'tkt_01jd8x3k4f5g6h7j8k9m0n1p2q', description: 'The service’s id, linked to ticketId.' }),
    ticketId: z.string(),
    externalReferenceEventId: z.string(),
    showId: z.string(),
    ticketOptionId: z.string(),
    priceTypeId: z.string().nullable(),
    state: z.enum(TICKET_STATES).openapi({
      description:
        'VALID (owned, usable, sellable); LISTED (an active resale listing); SOLD (resold: the seller no longer holds it); ADMITTED (used at the venue); DELETED (invalidated by the partner, final); CANCELLED (its show was cancelled, final).',
    }),
    price: z.number().nullable(),
    currency: z.string().nullable(),
    owner: z.object({ id: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() }),
    ticketAccess: TicketAccessSchema,
    seating: z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() }).nullable(),
    orderId: z.string().nullable(),
    tags: z.array(z.string()),
    buyerEmailExternal: z.string().optional(),
    primarySaleBuyerData: z.record(z.string(), z.unknown()).optional(),
    nominalTicket: z.record(z.string(), z.unknown()).optional(),
    props: z.record(z.string(), z.unknown()).optional(),
    primarySalesFee: z.record(z.string(), z.unknown()).optional(),
    flags: z.record(z.string(), z.unknown()).optional(),
    admittedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Ticket');
export type TicketRecord = z.output<typeof TicketRecordSchema>;

export const ItemErrorSchema = z.object({ code: z.string(), message: z.string(), path: z.string().optional() });

export const ItemResultSchema = z
  .object({
    index: z.number().int().openapi({ description: 'Position of the item in the request.' }),
    ticketId: z.string().nullable(),
    status: z.enum(['created', 'updated', 'rejected']),
    errors: z.array(ItemErrorSchema).optional().openapi({ description: 'Why the item was rejected; paths are relative to the item.' }),
  })
  .openapi('TicketItemResult');

export const JobSchema = z
  .object({
    jobId: z.string().openapi({ example: 'job_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    state: z.enum(['queued', 'done']).openapi({ description: 'queued until its items are applied, all of them in one transaction with the job marked done: a job is never half applied.' }),
    total: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    rejected: z.number().int(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    results: z.array(ItemResultSchema).openapi({ description: 'Per item, once known (items rejected on arrival are known at once).' }),
  })
  .openapi('TicketJob');

export const AdmissionBatchItemSchema = z
  .strictObject({
    ticketId: id(),
    entryDate: z.iso.datetime({ offset: true, error: whenPresent('must be an ISO 8601 date-time such as 2023-09-01T12:00:00Z') }).openapi({ example: '2026-05-01T19:42:10Z' }),
  })
  .openapi('AdmissionItem');
