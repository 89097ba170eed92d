import { sharedByProcesses } from '../../db/dialect.js';
import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import { perConnection, prepared } from '../../db/statements.js';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { users } from './users.table.js';

/** How a user is named by the partner: its id, e-mail and/or phone (at least one). */
export interface UserIdentity {
  id?: string | null | undefined;
  email?: string | null | undefined;
  phone?: string | null | undefined;
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
}

import type { UserRow } from './users.queries.js';
export type { UserRow };

/** E-mails compare case-insensitively; we store them lowercased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A phone in E.164 (`+34600111222`), or null when it is not a valid international number. */
export function normalizePhone(phone: string): string | null {
  const parsed = parsePhoneNumberFromString(phone.trim());
  return parsed?.isValid() ? parsed.number : null;
}

/** The identifiers a user is looked up by. */
type Field = 'externalId' | 'email' | 'phone';

/** What the matching rules need from where users live: the database, or a batch in memory. */
interface UserStore {
  find(field: Field, value: string): Promise<UserRow | null> | UserRow | null;
  create(row: UserRow): Promise<void> | void;
  update(found: UserRow, patch: Partial<UserRow>): Promise<UserRow> | UserRow;
}

/** The identifiers of `who`, normalised. @throws 400 when none is usable or the phone is invalid. */
function identifiersOf(who: UserIdentity, path: string, phoneOf: (raw: string) => string | null = normalizePhone) {
  const externalId = who.id?.trim() || null;
  const email = who.email ? normalizeEmail(who.email) : null;
  let phone: string | null = null;
  if (who.phone) {
    phone = phoneOf(who.phone);
    if (!phone) throw ApiError.field('invalid_format', `${path}.phone`, `${path}.phone must be an international phone number such as +34600111222`);
  }
  if (!externalId && !email && !phone) throw ApiError.field('missing_field', path, `${path} needs an id, an e-mail or a phone`);
  return { externalId, email, phone };
}

/**
 * The matching rules, written once for both stores: the partner's user id, then e-mail,
 * then phone; an unknown user is created; identifiers learnt later are added to the
 * matched user when no other user of the partner holds them.
 */
async function match(store: UserStore, partnerId: string, who: UserIdentity, path: string, now: number, phoneOf?: (raw: string) => string | null): Promise<UserRow> {
  const { externalId, email, phone } = identifiersOf(who, path, phoneOf);
  const found = (externalId && await store.find('externalId', externalId)) || (email && await store.find('email', email)) || (phone && await store.find('phone', phone)) || null;
  if (!found) {
    const row: UserRow = { id: newId('user'), partnerId, externalId, email, phone, firstName: who.firstName ?? null, lastName: who.lastName ?? null, createdAt: now, updatedAt: now };
    await store.create(row);
    return row;
  }
  const patch: Partial<UserRow> = {};
  if (externalId && !found.externalId && !(await store.find('externalId', externalId))) patch.externalId = externalId;
  if (email && !found.email && !(await store.find('email', email))) patch.email = email;
  if (phone && !found.phone) patch.phone = phone;
  if (who.firstName && who.firstName !== found.firstName) patch.firstName = who.firstName;
  if (who.lastName && who.lastName !== found.lastName) patch.lastName = who.lastName;
  if (Object.keys(patch).length === 0) return found;
  return await store.update(found, { ...patch, updatedAt: now });
}

/** Values per prepared IN lookup of a batch (well under SQLite's bound-parameter limit). */
const IN_CHUNK = 250;

/** What UsersService is built from (see deps.ts). */
export interface UsersServiceDeps {
  clock: Clock;
}

/**
 * Users per partner. An unknown user is created on first sight. Matching order: the
 * partner's user id, then e-mail, then phone; identifiers learnt later are added to the
 * matched user when no other user of the partner holds them.
 */
/** Users per multi-row insert on PostgreSQL (9 columns: 4,500 parameters, below its 65,535). */
const INSERT_CHUNK = 500;

export class UsersService {
  private readonly clock: Clock;

  constructor(deps: UsersServiceDeps) {
    this.clock = deps.clock;
  }

  /**
   * The lookups and the insert of `resolve` and of batches, prepared on the transaction
   * handle they run in, each when first needed, and kept for that handle's connection (user
   * resolution runs for every synchronised ticket: see `perConnection`).
   */
  private readonly statements = perConnection((tx) => new UserStatements(tx));

  /** Finds or creates the user named by `who`. @throws 400 when no identifier is usable. */
  async resolve(tx: Tx, partnerId: string, who: UserIdentity, path = 'buyer'): Promise<UserRow> {
    const store: UserStore = {
      find: async (field, value) => await this.findBy(tx, partnerId, field, value),
      // Two first requests of one new user at once (a double click, a retry, two gates) both
      // find nobody and both insert; on PostgreSQL the second insert waits for the first to
      // commit and would then violate the unique index, aborting its whole transaction (a 500).
      // So the insert skips a taken identifier, and matching runs again: its lookups now see
      // the other's committed user. (SQLite runs one writer at a time: the second finds it.)
      create: async (row) => {
        if ((await this.statements(tx).insertUnlessTaken().execute(row)).length === 0) throw new UserCreatedMeanwhile();
      },
      update: async (found, patch) => (await tx.update(users).set(patch).where(eq(users.id, found.id)).returning())[0]!,
    };
    try {
      return await match(store, partnerId, who, path, this.clock.now());
    } catch (err) {
      if (!(err instanceof UserCreatedMeanwhile)) throw err;
      return await match(store, partnerId, who, path, this.clock.now());
    }
  }

  /**
   * A resolver for many identities at once (ticket ingestion): `resolve` answers exactly
   * what `UsersService.resolve` would answer called in the same order, but the lookups of a
   * whole batch are a few prepared IN queries (`prefetch`) and the writes wait for `flush`.
   * Call `flush` before anything else reads or references the users it returned (a
   * ticket's owner_pk, for instance), and before the transaction ends.
   *
   * @example
   * const batch = deps.users.batch(tx, partnerId);
   * batch.prefetch(items.map((i) => i.buyer));
   * const owners = items.map((i) => batch.resolve(i.buyer));
   * batch.flush();
   */
  batch(tx: Tx, partnerId: string): UserBatch {
    return new UserBatch(this, tx, partnerId, this.clock);
  }

  /** A user of the partner by service id; 404 otherwise. */
  async get(tx: Tx, partnerId: string, id: string): Promise<UserRow> {
    const row = (await tx.select().from(users).where(and(eq(users.partnerId, partnerId), eq(users.id, id))).limit(1))[0];
    if (!row) throw ApiError.notFound('user');
    return row;
  }

  /** A user by any identifier string (e-mail, phone or the partner's id), without creating one. */
  async find(tx: Tx, partnerId: string, identifier: string): Promise<UserRow | null> {
    const value = identifier.trim();
    if (value.includes('@')) return await this.findBy(tx, partnerId, 'email', normalizeEmail(value));
    const phone = value.startsWith('+') ? normalizePhone(value) : null;
    return (phone && await this.findBy(tx, partnerId, 'phone', phone)) || await this.findBy(tx, partnerId, 'externalId', value);
  }

  /** @internal The first user of the partner holding `value` as `field` (the lookup of `resolve`). */
  async findBy(tx: Tx, partnerId: string, field: Field, value: string): Promise<UserRow | null> {
    return (await this.statements(tx).lookup(field).execute({ partnerId, value }))[0] ?? null;
  }

  /** @internal Inserts one user (a statement prepared on `tx`, see `statements`). */
  async insert(tx: Tx, row: UserRow): Promise<void> {
    await this.statements(tx).insert().execute(row);
  }

  /**
   * @internal Inserts many users, in creation order: multi-row statements where a statement is
   * a round trip to a server (PostgreSQL: one per 500 users instead of one per user, 20,000
   * round trips fewer per 100,000 new owners); the prepared single-row insert on SQLite, where
   * multi-row statements measured no faster (the cost there is index maintenance).
   */
  async insertMany(tx: Tx, rows: readonly UserRow[]): Promise<void> {
    if (!sharedByProcesses) {
      for (const row of rows) await this.insert(tx, row);
      return;
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insert(users).values(rows.slice(i, i + INSERT_CHUNK));
  }

  /**
   * @internal The users of the partner holding any of `values` as `field`, in one prepared
   * statement per `IN_CHUNK` values (a short chunk is padded by repeating a value).
   */
  async findMany(tx: Tx, partnerId: string, field: Field, values: readonly string[]): Promise<UserRow[]> {
    const lookup = this.statements(tx).many(field);
    const found: UserRow[] = [];
    const params: Record<string, string> = { partnerId };
    for (let i = 0; i < values.length; i += IN_CHUNK) {
      for (let k = 0; k < IN_CHUNK; k++) params[`v${k}`] = values[Math.min(i + k, values.length - 1)]!;
      for (const row of await lookup.execute(params)) found.push(row);
    }
    return found;
  }
}

/** The prepared statements of UsersService on one transaction handle, each prepared when first used. */
class UserStatements {
  private readonly lookups: Partial<Record<Field, ReturnType<typeof prepareLookup>>> = {};
  private readonly manyLookups: Partial<Record<Field, ReturnType<typeof prepareManyLookup>>> = {};
  private insertStatement?: ReturnType<typeof prepareInsert>;
  private insertUnlessTakenStatement?: ReturnType<typeof prepareInsertUnlessTaken>;

  constructor(private readonly tx: Tx) {}

  /** The first user of a partner holding a value as `field`. */
  lookup(field: Field) {
    return (this.lookups[field] ??= prepareLookup(this.tx, field));
  }

  /** The users of a partner holding any of `IN_CHUNK` values as `field`. */
  many(field: Field) {
    return (this.manyLookups[field] ??= prepareManyLookup(this.tx, field));
  }

  insert() {
    return (this.insertStatement ??= prepareInsert(this.tx));
  }

  /** The insert of `resolve`: nothing when another user already holds one of its identifiers (it answers the inserted id, or none). */
  insertUnlessTaken() {
    return (this.insertUnlessTakenStatement ??= prepareInsertUnlessTaken(this.tx));
  }
}

/** Another transaction created the user `resolve` was creating (see `UsersService.resolve`). */
class UserCreatedMeanwhile extends Error {}

function prepareLookup(tx: Tx, field: Field) {
  return prepared(tx
    .select()
    .from(users)
    .where(and(eq(users.partnerId, sql.placeholder('partnerId')), eq(users[field], sql.placeholder('value'))))
    .limit(1), `users_lookup_${field}`);
}

function prepareManyLookup(tx: Tx, field: Field) {
  return prepared(tx
    .select()
    .from(users)
    .where(and(eq(users.partnerId, sql.placeholder('partnerId')), inArray(users[field], Array.from({ length: IN_CHUNK }, (_, k) => sql.placeholder(`v${k}`))))), `users_lookup_many_${field}`);
}

/** The insert of one user, every column bound by name from the row. */
function prepareInsert(tx: Tx) {
  return prepared(tx.insert(users).values(everyColumnBound()), 'users_insert');
}

/** Every column of a user row as a placeholder of its name. */
function everyColumnBound() {
  return Object.fromEntries(Object.keys(getTableColumns(users)).map((k) => [k, sql.placeholder(k)])) as never;
}

/** {@link prepareInsert}, skipping a row whose identifier another user of the partner holds. */
function prepareInsertUnlessTaken(tx: Tx) {
  return prepared(tx.insert(users).values(everyColumnBound()).onConflictDoNothing().returning({ id: users.id }), 'users_insert_unless_taken');
}

/**
 * Users of one partner as a batch of ingestion sees them: what the database held when it
 * was asked, plus the users this batch created or changed and has not written yet.
 * See `UsersService.batch`.
 */
export class UserBatch {
  /** Per identifier value: its user (the first one, for a phone), or null when none holds it. Absent: not asked yet. */
  private readonly known: Record<Field, Map<string, UserRow | null>> = { externalId: new Map(), email: new Map(), phone: new Map() };
  /** Users created by this batch and not written yet, in creation order. */
  private readonly created = new Map<string, UserRow>();
  /** Changes to stored users not written yet, by user id. */
  private readonly patched = new Map<string, Partial<UserRow>>();
  /** Phones normalised once per batch (libphonenumber is the costly part of a lookup). */
  private readonly phones = new Map<string, string | null>();
  private readonly store: UserStore;

  constructor(
    private readonly service: UsersService,
    private readonly tx: Tx,
    private readonly partnerId: string,
    private readonly clock: Clock,
  ) {
    this.store = {
      find: async (field, value) => await this.find(field, value),
      create: (row) => {
        this.created.set(row.id, row);
        this.remember(row);
      },
      update: (found, patch) => this.update(found, patch),
    };
  }

  /** Reads, in a few IN queries, every stored user that any of `identities` may match. Invalid identities are skipped (resolve reports them). */
  async prefetch(identities: Iterable<UserIdentity>): Promise<void> {
    const wanted: Record<Field, Set<string>> = { externalId: new Set(), email: new Set(), phone: new Set() };
    const want = (field: Field, value: string | null) => {
      if (value && !this.known[field].has(value)) wanted[field].add(value);
    };
    for (const who of identities) {
      want('externalId', who.id?.trim() || null);
      want('email', who.email ? normalizeEmail(who.email) : null);
      if (who.phone) want('phone', this.phoneOf(who.phone));
    }
    if (wanted.externalId.size + wanted.email.size + wanted.phone.size === 0) return;
    // The database must hold this batch's changes before it is asked.
    await this.flush();
    for (const field of ['externalId', 'email', 'phone'] as const) {
      if (wanted[field].size === 0) continue;
      const values = [...wanted[field]];
      const holders = new Map<string, UserRow[]>();
      for (const row of await this.service.findMany(this.tx, this.partnerId, field, values)) {
        const list = holders.get(row[field]!);
        if (list) list.push(row);
        else holders.set(row[field]!, [row]);
      }
      for (const value of values) {
        const list = holders.get(value);
        // A phone held by several users: the single lookup decides which one answers.
        const row = !list ? null : list.length === 1 ? list[0]! : await this.service.findBy(this.tx, this.partnerId, field, value);
        this.known[field].set(value, row);
      }
    }
  }

  /** Same answer as `UsersService.resolve` at this point of the batch; the write waits for `flush`. */
  async resolve(who: UserIdentity, path = 'buyer'): Promise<UserRow> {
    return await match(this.store, this.partnerId, who, path, this.clock.now(), (raw) => this.phoneOf(raw));
  }

  /**
   * Writes the users created and changed since the last flush, in creation order
   * (`UsersService.insertMany`).
   */
  async flush(): Promise<void> {
    await this.service.insertMany(this.tx, [...this.created.values()]);
    this.created.clear();
    for (const [id, patch] of this.patched) await this.tx.update(users).set(patch).where(eq(users.id, id));
    this.patched.clear();
  }

  private phoneOf(raw: string): string | null {
    let phone = this.phones.get(raw);
    if (phone === undefined) this.phones.set(raw, (phone = normalizePhone(raw)));
    return phone;
  }

  private async find(field: Field, value: string): Promise<UserRow | null> {
    const map = this.known[field];
    const hit = map.get(value);
    if (hit !== undefined) return hit;
    // Not prefetched: ask the database, which must first hold this batch's users.
    await this.flush();
    const row = await this.service.findBy(this.tx, this.partnerId, field, value);
    map.set(value, row);
    return row;
  }

  private remember(row: UserRow): void {
    if (row.externalId) this.known.externalId.set(row.externalId, row);
    if (row.email) this.known.email.set(row.email, row);
    if (row.phone) {
      const holder = this.known.phone.get(row.phone);
      // A phone may be shared; the lookup answers the oldest holder. A new user is never older.
      if (holder === null) this.known.phone.set(row.phone, row);
      else if (holder && holder.id === row.id) this.known.phone.set(row.phone, row);
    }
  }

  private update(found: UserRow, patch: Partial<UserRow>): UserRow {
    const row = { ...found, ...patch };
    if (this.created.has(row.id)) this.created.set(row.id, row);
    else this.patched.set(row.id, { ...this.patched.get(row.id), ...patch });
    if (patch.phone) {
      const holder = this.known.phone.get(patch.phone);
      // Another user holds this phone too: which one the lookup answers depends on their age
      // in the table, so forget it and let the next lookup ask the database.
      if (holder && holder.id !== row.id) this.known.phone.delete(patch.phone);
    }
    this.remember(row);
    return row;
  }
}

/** The partner-facing view of a user: its identifiers, never our internal id alone. */
export function userToApi(u: UserRow) {
  return { id: u.externalId, email: u.email, phone: u.phone };
}
