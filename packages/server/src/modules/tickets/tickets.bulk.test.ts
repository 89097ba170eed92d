import { inOrder } from '../../lib/in-order.js';
import { TypeID, typeid } from 'typeid-js';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../db/client.js';
import { encodeBase32, newId, uuidV7 } from '../../lib/ids.js';
import { ManualClock } from '../../lib/clock.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { UsersService, type UserIdentity } from '../users/users.service.js';
import { ROWS_PER_STATEMENT } from './tickets.bulk.js';

/** Applies items straight through the service (the path of jobs and of POST /v1/sync/tickets). */
async function apply(t: TestApp, p: TestPartner, raw: unknown[]) {
  return await t.db.transact(async (tx) => await t.deps.tickets.syncCreate(tx, p.id, raw));
}

const count = (t: TestApp, table: 'tickets' | 'users') => (t.db.$client.prepare(`select count(*) n from ${table}`).get() as { n: number }).n;
const row = (t: TestApp, ticketId: string) => t.db.$client.prepare('select * from tickets where ticket_id = ?').get(ticketId) as Record<string, unknown>;
const ownerEmail = (t: TestApp, ticketId: string) =>
  (t.db.$client.prepare('select u.email from tickets t join users u on u.id = t.owner_pk where t.ticket_id = ?').get(ticketId) as { email: string }).email;

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p);
  return { t, p };
}

describe('set-based ingestion', () => {
  it('reports created and updated exactly; a batch sent again updates in place and keeps ids and createdAt', async () => {
    const { t, p } = await setup();
    const first = await apply(t, p, Array.from({ length: 30 }, (_, i) => ticketBody(`k${i}`, { buyer: `fan${i % 4}@example.com`, section: `S${i}` })));
    expect(first.map((r) => r.status)).toEqual(Array(30).fill('created'));
    const before = row(t, 'k7');
    t.clock.advance(5000);
    const second = await apply(t, p, [...Array.from({ length: 10 }, (_, i) => ticketBody(`k${i}`, { buyer: `fan${i % 4}@example.com`, price: 50 })), ticketBody('k-new')]);
    expect(second.map((r) => `${r.ticketId}:${r.status}`)).toEqual([...Array.from({ length: 10 }, (_, i) => `k${i}:updated`), 'k-new:created']);
    const after = row(t, 'k7');
    expect(after).toMatchObject({ id: before.id, created_at: before.created_at, price_minor: 5000, section: null, updated_at: (before.updated_at as number) + 5000 });
    expect(count(t, 'tickets')).toBe(31);
  });

  it('writes a ticket sent twice in one batch once, as last sent: created, then updated', async () => {
    const { t, p } = await setup();
    const seen: string[] = [];
    // Handlers run after the batch so far is written: they see the ticket as the batch left it.
    t.deps.bus.on('ticket.invalidated', (_tx, e) => void seen.push(`${e.reason}:${e.ticketPk === row(t, 'd1').id}:${ownerEmail(t, 'd1')}`));
    const res = await apply(t, p, [ticketBody('d1', { seat: '1' }), ticketBody('d2'), ticketBody('d1', { seat: '2', buyer: 'second@example.com', price: 60 })]);
    expect(res.map((r) => `${r.ticketId}:${r.status}`)).toEqual(['d1:created', 'd2:created', 'd1:updated']);
    expect(count(t, 'tickets')).toBe(2);
    expect(row(t, 'd1')).toMatchObject({ seat: '2', price_minor: 6000, state: 'VALID' });
    expect(ownerEmail(t, 'd1')).toBe('second@example.com');
    expect(seen).toEqual(['owner_changed:true:second@example.com']);
  });

  it('raises ticket.invalidated for owner changes and moves of stored tickets, and not for plain updates', async () => {
    const { t, p } = await setup();
    await apply(t, p, [ticketBody('m1'), ticketBody('m2'), ticketBody('m3'), ticketBody('m4')]);
    const seen: string[] = [];
    t.deps.bus.on('ticket.invalidated', (_tx, e) => void seen.push(`${e.reason}:${t.db.$client.prepare('select ticket_id from tickets where id = ?').pluck().get(e.ticketPk)}`));
    await apply(t, p, [ticketBody('m1', { buyer: 'b@example.com' }), ticketBody('m2', { showId: 'show-2' }), ticketBody('m3', { price: 1 }), ticketBody('m4', { ticketOptionId: 'opt-vip' })]);
    expect(seen).toEqual(['owner_changed:m1', 'moved:m2', 'moved:m4']);
  });

  it('resolves owners for the whole batch: one user per person, reused across items and batches', async () => {
    const { t, p } = await setup();
    await apply(t, p, [
      ticketBody('o1', { buyer: 'ana@example.com' }),
      ticketBody('o2', { buyer: 'ANA@example.com ' }),
      ticketBody('o3', { buyer: { id: 'user-1', email: 'ana@example.com', firstName: 'Ana' } }),
      ticketBody('o4', { buyer: { id: 'user-1' } }),
      ticketBody('o5', { buyer: '+34600111222' }),
      ticketBody('o6', { buyer: { phone: '+34 600 111 222', lastName: 'Ruiz' } }),
    ]);
    expect(count(t, 'users')).toBe(2);
    const users = t.db.$client.prepare('select external_id, email, phone, first_name, last_name from users order by rowid').all();
    expect(users).toEqual([
      { external_id: 'user-1', email: 'ana@example.com', phone: null, first_name: 'Ana', last_name: null },
      { external_id: null, email: null, phone: '+34600111222', first_name: null, last_name: 'Ruiz' },
    ]);
    await apply(t, p, [ticketBody('o7', { buyer: 'ana@example.com' }), ticketBody('o8', { buyer: { id: 'user-1', phone: '+34600999888' } })]);
    expect(count(t, 'users')).toBe(2);
    expect(ownerEmail(t, 'o7')).toBe('ana@example.com');
    expect(t.db.$client.prepare('select phone from users where external_id = ?').pluck().get('user-1')).toBe('+34600999888');
  });

  it('leaves no ticket and no user behind for rejected items, and applies the others', async () => {
    const { t, p } = await setup();
    await apply(t, p, [ticketBody('gone')]);
    await t.db.transact(async (tx) => await t.deps.tickets.delete(tx, p.id, 'gone'));
    const res = await apply(t, p, [
      ticketBody('r1', { buyer: 'bad-option@example.com', ticketOptionId: 'opt-ghost' }),
      ticketBody('r2', { buyer: { phone: '12' } }),
      ticketBody('r3', { buyer: 'bad-price@example.com', price: 10.555 }),
      ticketBody('gone', { buyer: 'resurrect@example.com' }),
      ticketBody('r4', { buyer: 'bad-combo@example.com', ticketOptionId: 'opt-vip', priceTypeId: 'pt-early' }),
      ticketBody('ok', { buyer: 'fine@example.com' }),
    ]);
    expect(res.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'created']);
    expect(res[3]!.errors![0]).toMatchObject({ code: 'conflict', message: expect.stringMatching(/deletion is final/) });
    expect(t.db.$client.prepare('select ticket_id from tickets order by ticket_id').pluck().all()).toEqual(['gone', 'ok']);
    expect(t.db.$client.prepare('select email from users order by email').pluck().all()).toEqual(['fan@example.com', 'fine@example.com']);
  });

  it('writes batches larger than one statement holds, in order', async () => {
    const { t, p } = await setup();
    const n = ROWS_PER_STATEMENT * 2 + 37;
    const res = await apply(t, p, Array.from({ length: n }, (_, i) => ticketBody(`w${i}`, { buyer: `w${i}@example.com`, row: String(i) })));
    expect(res.filter((r) => r.status === 'created')).toHaveLength(n);
    expect(count(t, 'tickets')).toBe(n);
    expect(count(t, 'users')).toBe(n);
    // Inserted in item order (rowid), each with its own owner.
    const rows = t.db.$client.prepare('select t.ticket_id, t.row, u.email from tickets t join users u on u.id = t.owner_pk order by t.rowid').all() as { ticket_id: string; row: string; email: string }[];
    expect(rows.map((r) => r.ticket_id)).toEqual(Array.from({ length: n }, (_, i) => `w${i}`));
    expect(rows.every((r, i) => r.row === String(i) && r.email === `w${i}@example.com`)).toBe(true);
  });

  it('stores every column as drizzle does, JSON columns included', async () => {
    const { t, p } = await setup();
    await apply(t, p, [
      ticketBody('j1', { props: { seating: { section: 'B', row: '3', seat: '4' }, extra: { x: [1, 2] } }, tags: ['gate:3'], primarySaleBuyerData: { firstName: 'Z' } }),
      ticketBody('j2'),
    ]);
    expect(row(t, 'j1')).toMatchObject({
      // Keys in the order of the validated item (zod's output), as before.
      props: '{"seating":{"row":"3","seat":"4","section":"B"},"extra":{"x":[1,2]}}',
      tags: '["gate:3"]',
      primary_sale_buyer_data: '{"firstName":"Z"}',
      ticket_access: '{"type":"URL","locator":"https://partner.example/qr/j1"}',
      section: 'B',
      row: '3',
      seat: '4',
    });
    // Absent JSON values are bound through drizzle's JSON encoder, as its prepared statements did: the text 'null'.
    expect(row(t, 'j2')).toMatchObject({ props: 'null', flags: 'null', nominal_ticket: 'null', primary_sales_fee: 'null', tags: '[]', section: null, admitted_at: null });
    const api = (await t.request('GET', '/v1/tickets/j2', { key: p.keys.private })).body.data;
    expect(api).not.toHaveProperty('props');
    expect(api.tags).toEqual([]);
  });

  it('reads again what an event handler changed: the rest of a pack freed by an ended listing stays VALID', async () => {
    const { t, p } = await setup();
    await apply(t, p, [ticketBody('p1', { orderId: 'ord-1', buyer: 'seller@example.com' }), ticketBody('p2', { orderId: 'ord-1', buyer: 'seller@example.com' })]);
    const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
    await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket('p1')).ownerPk, ticketPks: [(await ticket('p1')).id, (await ticket('p2')).id], priceMinor: 5000 }));
    expect([(await ticket('p1')).state, (await ticket('p2')).state]).toEqual(['LISTED', 'LISTED']);
    // p1 changes hands: its listing ends and frees p2; p2, sent unchanged later in the same batch, must not be written back as LISTED.
    const res = await apply(t, p, [ticketBody('p1', { orderId: 'ord-1', buyer: 'new-owner@example.com' }), ticketBody('p2', { orderId: 'ord-1', buyer: 'seller@example.com' })]);
    expect(res.map((r) => r.status)).toEqual(['updated', 'updated']);
    expect([(await ticket('p1')).state, (await ticket('p2')).state]).toEqual(['VALID', 'VALID']);
  });
});

describe('UserBatch', () => {
  /** Identities in an order that exercises matching, merging and the phone shared by two users. */
  const sequence: UserIdentity[] = [
    { email: 'a@example.com' },
    { id: 'u1', email: 'A@example.com', firstName: 'Ann' },
    { id: 'u1', phone: '+34600111222' },
    { phone: '+34 600 111 222' },
    { id: 'u2', phone: '+34600111222' },
    { email: 'b@example.com', phone: '+34600111222' },
    { id: 'u3', email: 'b@example.com', lastName: 'Bo' },
    { id: 'u3', email: 'a@example.com' },
    { email: 'c@example.com' },
    { id: 'u4', email: 'c@example.com', phone: '+34600333444' },
    { phone: '+34600333444', firstName: 'Cy' },
    { id: 'u4', firstName: 'Cyd' },
  ];

  function users(db: ReturnType<typeof createDb>) {
    return db.$client.prepare('select external_id, email, phone, first_name, last_name, created_at, updated_at from users order by rowid').all();
  }

  it('answers exactly what resolve() answers one call after another, and writes the same users', async () => {
    const one = createDb(':memory:');
    const many = createDb(':memory:');
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    const seed = async (db: typeof one) => await db.transact(async (tx) => await new UsersService({ clock }).resolve(tx, 'ptr_1', { id: 'u2', email: 'd@example.com' }));
    await seed(one);
    await seed(many);
    const expected = await one.transact(async (tx) => await inOrder(sequence, async (who) => await new UsersService({ clock }).resolve(tx, 'ptr_1', who)));
    const got = await many.transact(async (tx) => {
      const batch = new UsersService({ clock }).batch(tx, 'ptr_1');
      await batch.prefetch(sequence);
      const out = await inOrder(sequence, async (who) => await batch.resolve(who));
      await batch.flush();
      return out;
    });
    const shape = (rows: { externalId: string | null; email: string | null; phone: string | null; firstName: string | null; lastName: string | null }[]) =>
      rows.map((u) => [u.externalId, u.email, u.phone, u.firstName, u.lastName]);
    expect(shape(got)).toEqual(shape(expected));
    // The same person gets the same user in both.
    const ids = (rows: { id: string }[]) => rows.map((u) => rows.findIndex((v) => v.id === u.id));
    expect(ids(got)).toEqual(ids(expected));
    expect(users(many)).toEqual(users(one));
  });

  it('rejects an unusable identity as resolve() does, and creates nothing for it', async () => {
    const db = createDb(':memory:');
    const svc = new UsersService({ clock: new ManualClock() });
    await db.transact(async (tx) => {
      const batch = svc.batch(tx, 'ptr_1');
      await expect(batch.resolve({ phone: '12' })).rejects.toThrow(/buyer.phone must be an international phone number/);
      await expect(batch.resolve({ id: '  ' }, 'owner')).rejects.toThrow(/owner needs an id, an e-mail or a phone/);
      await batch.flush();
    });
    expect(users(db)).toEqual([]);
  });
});

describe('statements follow the transaction they are given', () => {
  it('writes tickets and users through the connection of the caller\'s transaction, not the service\'s own', async () => {
    const { t: a } = await setup();
    const { t: b, p: pb } = await setup();
    // A's services, B's transaction: every read and write (prefetch, user lookups and inserts,
    // the multi-row upsert) happens in B, and nothing in A.
    const results = await b.db.transact(async (tx) => await a.deps.tickets.syncCreate(tx, pb.id, [ticketBody('x1', { buyer: 'new-fan@example.com' }), ticketBody('x2')]));
    expect(results.map((r) => r.status)).toEqual(['created', 'created']);
    expect([count(b, 'tickets'), count(b, 'users')]).toEqual([2, 2]);
    expect([count(a, 'tickets'), count(a, 'users')]).toEqual([0, 0]);
    // The same services go on working on their own connection.
    const pa = await a.partner('Again');
    await withEvent(a, pa);
    expect((await apply(a, pa, [ticketBody('y1')])).map((r) => r.status)).toEqual(['created']);
    expect(count(a, 'tickets')).toBe(1);
  });
});

describe('ids', () => {
  it('keeps the TypeID format: a prefix, then the 26-character base32 of a UUIDv7', () => {
    const id = newId('ticket');
    expect(id).toMatch(/^tkt_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/);
    const parsed = TypeID.fromString(id);
    expect(parsed.getType()).toBe('tkt');
    const uuid = parsed.toUUID();
    expect(uuid[14]).toBe('7');
    expect('89ab').toContain(uuid[19]);
    expect(Math.abs(Number.parseInt(uuid.replace(/-/g, '').slice(0, 12), 16) - Date.now())).toBeLessThan(60_000);
  });

  it('encodes exactly as typeid-js does', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = uuidV7();
      const hex = Buffer.from(bytes).toString('hex');
      const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      expect(`usr_${encodeBase32(bytes)}`).toBe(TypeID.fromUUID('usr', uuid).toString());
    }
    expect(newId('ticket')).toHaveLength(typeid('tkt').toString().length);
  });

  it('sorts in creation order, within one millisecond too, and never repeats', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('ticket'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
