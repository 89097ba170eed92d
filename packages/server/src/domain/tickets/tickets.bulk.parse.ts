import { z } from '@hono/zod-openapi';
import { fitsQrCode, RESERVED_TICKET_IDS, TicketInputSchema, type TicketInput } from './tickets.schemas.js';

/**
 * A fast path for validating the common ticket of a bulk request, exact to
 * `TicketInputSchema` for what it accepts.
 *
 * Why: POST /v1/tickets validates every item inside the transaction that stores the job
 * (the route answers from that transaction), so zod's ~5 µs per item are also time the
 * database's single write lock is held: a 1,000-item request held it ~6 ms for validation
 * alone, while the ingestion worker waited to write. The common item (ids, an e-mail or
 * phone buyer, ticketAccess, price, currency, seating strings, orderId) is checked here in
 * a fraction of that.
 *
 * The contract: `fastTicketInput(value)` returns exactly what `TicketInputSchema.parse`
 * returns (same values, same key order), or null, and then the caller asks zod, which
 * also produces the error entries. It returns null for anything it does not fully check:
 * a key it does not know (every field added to the schema later goes to zod until added
 * here), an object buyer, props, tags, nested buyer data, fees, a string zod would trim,
 * any value outside the rules below. The rules mirror tickets.schemas.ts; the tests compare
 * both on boundary cases of every rule, so a stricter schema fails them.
 */

/** The schema's field order: zod's output lists the present fields in this order. */
const FIELDS = Object.keys(TicketInputSchema.shape) as (keyof TicketInput)[];

/** Fields this fast path checks itself; an item with any other field goes to zod. */
const SIMPLE = new Set<string>(['externalReferenceEventId', 'showId', 'buyer', 'ticketId', 'ticketAccess', 'ticketOptionId', 'priceTypeId', 'price', 'currency', 'section', 'row', 'seat', 'orderId']);
const REQUIRED = ['externalReferenceEventId', 'buyer', 'ticketId', 'ticketAccess', 'ticketOptionId'] as const;
/** Longest value of each plain string field (`str(n)` in the schema). */
const MAX: Record<string, number> = { section: 100, row: 50, seat: 50, orderId: 200 };

/** zod's e-mail pattern, the one `z.email()` checks by default (the schema's first buyer form). */
const EMAIL = z.regexes.email;
const E164 = /^\+[1-9]\d{6,14}$/;
const DECIMAL = /^\d+(\.\d+)?$/;
const CURRENCY = /^[A-Za-z]{3}$/;
const HTTP_URL = /^https?:\/\/[^\s]+$/i;
const ACCESS_TYPES = new Set(['URL', 'API', 'OTHER']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** `id()`: a string of 1 to 200 characters that trimming leaves as it is. */
function isId(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 1 && v.length <= 200 && v.trim() === v;
}

function access(v: unknown): TicketInput['ticketAccess'] | null {
  if (!isPlainObject(v)) return null;
  let n = 0;
  for (const key in v) {
    if (key !== 'type' && key !== 'locator' && key !== 'status') return null;
    n++;
  }
  const { type, locator, status } = v;
  if (typeof type !== 'string' || !ACCESS_TYPES.has(type)) return null;
  if (typeof locator !== 'string' || locator.length < 1 || locator.length > 2048) return null;
  if (type === 'URL' ? !HTTP_URL.test(locator) : !fitsQrCode(locator)) return null;
  if ('status' in v) {
    if (typeof status !== 'string' || status.length > 50) return null;
    return { type: type as 'URL' | 'API' | 'OTHER', locator, status };
  }
  return n === 2 ? { type: type as 'URL' | 'API' | 'OTHER', locator } : null;
}

/**
 * The validated ticket when `value` is a common one this fast path fully checks, else null
 * (ask `TicketInputSchema`).
 */
export function fastTicketInput(value: unknown): TicketInput | null {
  if (!isPlainObject(value)) return null;
  for (const key in value) {
    if (!SIMPLE.has(key) || value[key] === undefined) return null;
  }
  for (const key of REQUIRED) if (!(key in value)) return null;
  const v = value as Record<string, unknown>;
  if (!isId(v.externalReferenceEventId) || !isId(v.ticketId) || !isId(v.ticketOptionId)) return null;
  // A reserved id is refused by the schema, with its reason.
  if ((RESERVED_TICKET_IDS as readonly string[]).includes(v.ticketId)) return null;
  if ('showId' in v && v.showId !== null && !isId(v.showId)) return null;
  if ('priceTypeId' in v && !isId(v.priceTypeId)) return null;
  const buyer = v.buyer;
  if (typeof buyer !== 'string' || !(EMAIL.test(buyer) || E164.test(buyer))) return null;
  const ticketAccess = access(v.ticketAccess);
  if (!ticketAccess) return null;
  if ('price' in v) {
    const price = v.price;
    if (typeof price === 'number') {
      if (!Number.isFinite(price) || !(price >= 0)) return null;
    } else if (typeof price !== 'string' || !DECIMAL.test(price)) return null;
  }
  if ('currency' in v && (typeof v.currency !== 'string' || !CURRENCY.test(v.currency))) return null;
  for (const key in MAX) {
    if (key in v) {
      const s = v[key];
      if (typeof s !== 'string' || s.length > MAX[key]!) return null;
    }
  }
  // zod's output: the present fields in the schema's order, ticketAccess rebuilt.
  const out: Record<string, unknown> = {};
  for (const key of FIELDS) if (key in v) out[key] = key === 'ticketAccess' ? ticketAccess : v[key];
  return out as TicketInput;
}
