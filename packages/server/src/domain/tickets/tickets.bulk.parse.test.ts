import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { fastTicketInput } from './tickets.bulk.parse.js';
import { BuyerSchema, TicketInputSchema } from './tickets.schemas.js';

const base = {
  externalReferenceEventId: 'tour',
  showId: 'show-1',
  buyer: 'fan@example.com',
  ticketId: 't-1',
  ticketAccess: { type: 'URL', locator: 'https://partner.example/qr/1' },
  ticketOptionId: 'opt-field',
  priceTypeId: 'pt-early',
  price: 45.5,
  currency: 'EUR',
  section: 'A',
  row: '3',
  seat: '12',
  orderId: 'order-1',
};

const long = (n: number) => 'x'.repeat(n);
const ids = ['', ' ', 'a', ' a', 'a ', '\ta', 'a\nb', 'é', long(200), long(201), ` ${long(199)}`, 5, null, true, {}, []];
const variants: Record<string, unknown[]> = {
  externalReferenceEventId: ids,
  ticketId: ids,
  ticketOptionId: ids,
  priceTypeId: ids,
  showId: [...ids, null],
  buyer: [
    'a@b.co', 'A.B+c@ex-ample.com', "o'hara@x.io", 'a_b@x-y.io', 'a@b', 'a@b.c', '@b.co', 'a@.co', 'a..b@c.co', 'a@b..co', 'a.@b.co', 'a@-x.io', 'a@b.c0m',
    ' a@b.co', 'a@b.co ', '+34600111222', '+1234567', '+123456', '+123456789012345', '+1234567890123456', '+0123456789', '34600111222', '+34 600 111 222', '',
    5, null, { email: 'a@b.co' }, { id: 'u-1' }, ['a@b.co'],
  ],
  ticketAccess: [
    { type: 'URL', locator: 'ftp://x' }, { type: 'URL', locator: 'http://' }, { type: 'URL', locator: 'HTTPS://X' }, { type: 'URL', locator: 'https://a b' },
    { type: 'API', locator: 'code' }, { type: 'OTHER', locator: 'c', status: 'LOCKED' }, { type: 'OTHER', locator: 'c', status: long(50) },
    { type: 'OTHER', locator: 'c', status: long(51) }, { type: 'OTHER', locator: 'c', status: 5 }, { type: 'OTHER', locator: 'c', status: null },
    { type: 'OTHER', locator: '' }, { type: 'OTHER', locator: long(2048) }, { type: 'OTHER', locator: long(2049) }, { type: 'url', locator: 'https://x.io' },
    // A code must fit in a QR code: 2,331 bytes in UTF-8 (1,166 two-byte letters do not; a URL is not encoded).
    { type: 'API', locator: 'é'.repeat(1165) }, { type: 'API', locator: 'é'.repeat(1166) }, { type: 'URL', locator: `https://x.io/${'é'.repeat(1166)}` },
    { type: 'OTHER', locator: 'c', extra: 1 }, { type: 'OTHER' }, { locator: 'c' }, { locator: 'c', type: 'API' }, null, 'x', [],
  ],
  price: [0, -0, 45.5, 1e21, -1, '19.99', '0', '0012', '19.', '.5', '-1', ' 1', '1e3', null, true, Number.NaN, Number.POSITIVE_INFINITY],
  currency: ['EUR', 'eur', 'EU', 'EURO', 'E1R', '', 5, null],
  section: ['', long(100), long(101), ' A ', 5, null],
  row: [long(50), long(51), null],
  seat: [long(50), long(51), 7],
  orderId: [long(200), long(201), {}],
};
const extras: Record<string, unknown>[] = [
  { props: {} },
  { props: { seating: { row: '1' } } },
  { tags: ['a:b'] },
  { tags: [] },
  { primarySaleBuyerData: {} },
  { nominalTicket: { fullName: 'X' } },
  { primarySalesFee: { amount: 1 } },
  { buyerEmailExternal: 'a@b.co' },
  { flags: {} },
  { unknown: 1 },
  { showId: undefined },
];

/** Every case: the base, each field changed to each variant or removed, extra fields, non-objects. */
function corpus(): unknown[] {
  const items: unknown[] = [base, { ...base, showId: null }, null, 5, 'x', [], [base], Object.assign(Object.create(null), base), new (class T {})()];
  for (const [key, values] of Object.entries(variants)) {
    for (const value of values) items.push({ ...base, [key]: value });
    const { [key]: _, ...without } = base as Record<string, unknown>;
    items.push(without);
  }
  for (const extra of extras) items.push({ ...base, ...extra });
  // Minimal items and reordered keys.
  const { priceTypeId: _p, price: _pr, currency: _c, section: _s, row: _r, seat: _se, orderId: _o, showId: _sh, ...minimal } = base;
  items.push(minimal, Object.fromEntries(Object.entries(base).reverse()), { ...minimal, buyer: '+34600111222', ticketAccess: { locator: 'X-1', type: 'OTHER' } });
  return items;
}

describe('fastTicketInput', () => {
  it('answers exactly what TicketInputSchema answers (same values, same key order), or defers to it', () => {
    let fast = 0;
    for (const item of corpus()) {
      const got = fastTicketInput(item);
      if (got === null) continue;
      fast++;
      const expected = TicketInputSchema.safeParse(item);
      expect(expected.success, JSON.stringify(item)).toBe(true);
      expect(got).toStrictEqual(expected.data);
      expect(JSON.stringify(got)).toBe(JSON.stringify(expected.data));
    }
    // The fast path is not vacuous: most valid variants take it.
    expect(fast).toBeGreaterThan(60);
  });

  it('takes the common shapes of a bulk request', () => {
    expect(fastTicketInput(base)).not.toBeNull();
    expect(fastTicketInput({ ...base, buyer: '+34600111222', showId: null, price: '39.00', ticketAccess: { type: 'OTHER', locator: 'CODE', status: 'LOCKED' } })).not.toBeNull();
    const { priceTypeId: _p, currency: _c, section: _s, row: _r, seat: _se, orderId: _o, ...minimal } = base;
    expect(fastTicketInput(minimal)).not.toBeNull();
  });

  it('relies on the schema checking e-mail buyers with zod’s default pattern', () => {
    const first = (BuyerSchema as unknown as { _zod: { def: { options: { _zod: { def: { pattern?: RegExp } } }[] } } })._zod.def.options[0]!;
    expect(first._zod.def.pattern).toBe(z.regexes.email);
  });
});

describe('parseItems', () => {
  it('gives the same valid items and the same rejections as zod alone', () => {
    const t = createTestApp();
    const raw = corpus();
    const { valid, rejected } = t.deps.tickets.parseItems(raw);
    const zod = raw.map((value, index) => ({ index, parsed: TicketInputSchema.safeParse(value) }));
    expect(JSON.stringify(valid)).toBe(JSON.stringify(zod.filter((r) => r.parsed.success).map((r) => ({ index: r.index, item: r.parsed.data }))));
    expect(rejected.map((r) => r.index)).toEqual(zod.filter((r) => !r.parsed.success).map((r) => r.index));
  });
});
