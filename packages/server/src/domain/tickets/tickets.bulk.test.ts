import { inOrder } from '../../lib/in-order.js';
import { TypeID, typeid } from 'typeid-js';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { encodeBase32, newId, uuidV7 } from '../../lib/ids.js';
import { ManualClock } from '../../lib/clock.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { createTestApp, testDb, type TestApp, type TestPartner } from '../../testing/harness.js';
import { insertionOrder, sqlRows } from '../../testing/sql.js';
import { UsersService, type UserIdentity } from '../users/users.service.js';
import { ROWS_PER_STATEMENT } from './tickets.bulk.js';

/** Applies items straight through the service (the path of jobs and of POST /v1/sync/tickets). */
async function apply(t: TestApp, p: TestPartner, raw: unknown[]) {
  return await t.db.transact(async (tx) => await t.deps.tickets.syncCreate(tx, p.id, raw));
}

// Stored rows, read through `db`: the test's database, or the transaction of an event handler
// (which sees what the batch wrote so far).
const count = async (t: TestApp, table: 'tickets' | 'users') => (await sqlRows<{ n: number }>(t.db, `select count(*) n from ${table}`))[0]!.n;
const row = async (db: Db, ticketId: string) => (await sqlRows(db, sql`select * from tickets where ticket_id = ${ticketId}`))[0]!;
const ownerEmail = async (db: Db, ticketId: string) =>
  (await sqlRows<{ email: string }>(db, sql`select u.email from tickets t join users u on u.id = t.owner_pk where t.ticket_id = ${ticketId}`))[0]!.email;
const column = async <T>(db: Db, query: ReturnType<typeof sql>) => (await sqlRows<{ v: T }>(db, query)).map((r) => r.v);

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
    const before = await row(t.db, 'k7');
    t.clock.advance(5000);
    const second = await apply(t, p, [...Array.from({ length: 10 }, (_, i) => ticketBody(`k${i}`, { buyer: `fan${i % 4}@example.com`, price: 50 })), ticketBody('k-new')]);
    expect(second.map((r) => `${r.ticketId}:${r.status}`)).toEqual([...Array.from({ length: 10 }, (_, i) => `k${i}:updated`), 'k-new:created']);
    const after = await row(t.db, 'k7');
    expect(after).toMatchObject({ id: before.id, created_at: before.created_at, price_minor: 5000, section: null, updated_at: (before.updated_at as number) + 5000 });
    expect(await count(t, 'tickets')).toBe(31);
  });

  it('writes a ticket sent twice in one batch once, as last sent: created, then updated', async () => {
    const { t, p } = await setup();
    const seen: string[] = [];
    // Handlers run after the batch so far is written: they see the ticket as the batch left it.
    t.deps.bus.on('ticket.invalidated', async (tx, e) => void seen.push(`${e.reason}:${e.ticketPk === (await row(tx, 'd1')).id}:${await ownerEmail(tx, 'd1')}`));
    const res = await apply(t, p, [ticketBody('d1', { seat: '1' }), ticketBody('d2'), ticketBody('d1', { seat: '2', buyer: 'second@example.com', price: 60 })]);
    expect(res.map((r) => `${r.ticketId}:${r.status}`)).toEqual(['d1:created', 'd2:created', 'd1:updated']);
    expect(await count(t, 'tickets')).toBe(2);
    expect(await row(t.db, 'd1')).toMatchObject({ seat: '2', price_minor: 6000, state: 'VALID' });
    expect(await ownerEmail(t.db, 'd1')).toBe('second@example.com');
    expect(seen).toEqual(['owner_changed:true:second@example.com']);
  });

  it('raises ticket.invalidated for owner changes and moves of stored tickets, and not for plain updates', async () => {
    const { t, p } = await setup();
    await apply(t, p, [ticketBody('m1'), ticketBody('m2'), ticketBody('m3'), ticketBody('m4')]);
    const seen: string[] = [];
    t.deps.bus.on('ticket.invalidated', async (tx, e) => void seen.push(`${e.reason}:${(await column<string>(tx, sql`select ticket_id as v from tickets where id = ${e.ticketPk}`))[0]}`));
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
    expect(await count(t, 'users')).toBe(2);
    // In creation order (users' ids sort so; a batch writes them in that order).
    const users = await sqlRows(t.db, 'select external_id, email, phone, first_name, last_name from users order by id');
    expect(users).toEqual([
      { external_id: 'user-1', email: 'ana@example.com', phone: null, first_name: 'Ana', last_name: null },
      { external_id: null, email: null, phone: '+34600111222', first_name: null, last_name: 'Ruiz' },
    ]);
    await apply(t, p, [ticketBody('o7', { buyer: 'ana@example.com' }), ticketBody('o8', { buyer: { id: 'user-1', phone: '+34600999888' } })]);
    expect(await count(t, 'users')).toBe(2);
    expect(await ownerEmail(t.db, 'o7')).toBe('ana@example.com');
    expect((await column<string>(t.db, sql`select phone as v from users where external_id = ${'user-1'}`))[0]).toBe('+34600999888');
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
    expect(await column(t.db, sql`select ticket_id as v from tickets order by ticket_id`)).toEqual(['gone', 'ok']);
    expect(await column(t.db, sql`select email as v from users order by email`)).toEqual(['fan@example.com', 'fine@example.com']);
  });

  it('writes batches larger than one statement holds, in order', async () => {
    const { t, p } = await setup();
    const n = ROWS_PER_STATEMENT * 2 + 37;
    const res = await apply(t, p, Array.from({ length: n }, (_, i) => ticketBody(`w${i}`, { buyer: `w${i}@example.com`, row: String(i) })));
    expect(res.filter((r) => r.status === 'created')).toHaveLength(n);
    expect(await count(t, 'tickets')).toBe(n);
    expect(await count(t, 'users')).toBe(n);
    // Inserted in item order (rowid; ctid on PostgreSQL), each with its own owner.
    const rows = await sqlRows<{ ticket_id: string; row: string; email: string }>(t.db, `select t.ticket_id, t.row, u.email from tickets t join users u on u.id = t.owner_pk order by ${insertionOrder('t')}`);
    expect(rows.map((r) => r.ticket_id)).toEqual(Array.from({ length: n }, (_, i) => `w${i}`));
    expect(rows.every((r, i) => r.row === String(i) && r.email === `w${i}@example.com`)).toBe(true);
  });

  it('stores every column as drizzle does, JSON columns included', async () => {
    const { t, p } = await setup();
    await apply(t, p, [
      ticketBody('j1', { props: { seating: { section: 'B', row: '3', seat: '4' }, extra: { x: [1, 2] } }, tags: ['gate:3'], primarySaleBuyerData: { firstName: 'Z' } }),
      ticketBody('j2'),
    ]);
    // JSON columns as text (`cast`: the stored JSON on SQLite, jsonb's text on PostgreSQL), and
    // the JSON they hold (jsonb keeps no key order, so the values are compared parsed).
    const stored = async (ticketId: string) =>
      (await sqlRows<Record<string, string | null>>(
        t.db,
        sql`select cast(props as text) as props, cast(tags as text) as tags, cast(primary_sale_buyer_data as text) as primary_sale_buyer_data,
          cast(ticket_access as text) as ticket_access, cast(flags as text) as flags, cast(nominal_ticket as text) as nominal_ticket,
          cast(primary_sales_fee as text) as primary_sales_fee, section, row, seat, admitted_at from tickets where ticket_id = ${ticketId}`,
      ))[0]!;
    const JSON_COLUMNS = ['props', 'tags', 'primary_sale_buyer_data', 'ticket_access', 'flags', 'nominal_ticket', 'primary_sales_fee'];
    const parsed = (r: Record<string, string | null>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, JSON_COLUMNS.includes(k) && v !== null ? (JSON.parse(v) as unknown) : v]));
    const j1 = await stored('j1');
    expect(parsed(j1)).toMatchObject({
      props: { seating: { row: '3', seat: '4', section: 'B' }, extra: { x: [1, 2] } },
      tags: ['gate:3'],
      primary_sale_buyer_data: { firstName: 'Z' },
      ticket_access: { type: 'URL', locator: 'https://partner.example/qr/j1' },
      section: 'B',
      row: '3',
      seat: '4',
    });
    // Absent JSON values are bound through drizzle's JSON encoder, as its prepared statements did: the JSON 'null' (not SQL NULL).
    expect(await stored('j2')).toMatchObject({ props: 'null', flags: 'null', nominal_ticket: 'null', primary_sales_fee: 'null', tags: '[]', section: null, admitted_at: null });
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

  /** The users, in creation order (their ids sort so; a batch writes them in that order). */
  async function users(db: Db) {
    return await sqlRows(db, 'select external_id, email, phone, first_name, last_name, created_at, updated_at from users order by id');
  }

  it('answers exactly what resolve() answers one call after another, and writes the same users', async () => {
    const one = testDb();
    const many = testDb();
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
    expect(await users(many)).toEqual(await users(one));
  });

  it('rejects an unusable identity as resolve() does, and creates nothing for it', async () => {
    const db = testDb();
    const svc = new UsersService({ clock: new ManualClock() });
    await db.transact(async (tx) => {
      const batch = svc.batch(tx, 'ptr_1');
      await expect(batch.resolve({ phone: '12' })).rejects.toThrow(/buyer.phone must be an international phone number/);
      await expect(batch.resolve({ id: '  ' }, 'owner')).rejects.toThrow(/owner needs an id, an e-mail or a phone/);
      await batch.flush();
    });
    expect(await users(db)).toEqual([]);
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
    expect([await count(b, 'tickets'), await count(b, 'users')]).toEqual([2, 2]);
    expect([await count(a, 'tickets'), await count(a, 'users')]).toEqual([0, 0]);
    // The same services go on working on their own connection.
    const pa = await a.partner('Again');
    await withEvent(a, pa);
    expect((await apply(a, pa, [ticketBody('y1')])).map((r) => r.status)).toEqual(['created']);
    expect(await count(a, 'tickets')).toBe(1);
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
