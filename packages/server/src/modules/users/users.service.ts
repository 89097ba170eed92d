import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
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

export type UserRow = typeof users.$inferSelect;

/** E-mails compare case-insensitively; we store them lowercased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A phone in E.164 (`+34600111222`), or null when it is not a valid international number. */
export function normalizePhone(phone: string): string | null {
  const parsed = parsePhoneNumberFromString(phone.trim());
  return parsed?.isValid() ? parsed.number : null;
}

/**
 * Users per partner. An unknown user is created on first sight. Matching order: the
 * partner's user id, then e-mail, then phone; identifiers learnt later are added to the
 * matched user when no other user of the partner holds them.
 */
export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Lookups prepared once: user resolution runs for every synchronised ticket. They run on
   * the connection of the enclosing transaction (better-sqlite3 has one connection).
   */
  private insertStatement?: { run: (row: UserRow) => unknown };
  private lookups?: Record<'externalId' | 'email' | 'phone', { get: (v: { partnerId: string; value: string }) => UserRow | undefined }>;

  /** Finds or creates the user named by `who`. @throws 400 when no identifier is usable. */
  resolve(tx: Tx, partnerId: string, who: UserIdentity, path = 'buyer'): UserRow {
    const externalId = who.id?.trim() || null;
    const email = who.email ? normalizeEmail(who.email) : null;
    let phone: string | null = null;
    if (who.phone) {
      phone = normalizePhone(who.phone);
      if (!phone) throw ApiError.field('invalid_format', `${path}.phone`, `${path}.phone must be an international phone number such as +34600111222`);
    }
    if (!externalId && !email && !phone) throw ApiError.field('missing_field', path, `${path} needs an id, an e-mail or a phone`);

    const found =
      (externalId && this.findBy(tx, partnerId, 'externalId', externalId)) ||
      (email && this.findBy(tx, partnerId, 'email', email)) ||
      (phone && this.findBy(tx, partnerId, 'phone', phone)) ||
      null;
    const now = this.clock.now();
    if (!found) {
      const row: UserRow = { id: newId('user'), partnerId, externalId, email, phone, firstName: who.firstName ?? null, lastName: who.lastName ?? null, createdAt: now, updatedAt: now };
      this.insertStatement ??= this.db
        .insert(users)
        .values(Object.fromEntries(Object.keys(row).map((k) => [k, sql.placeholder(k)])) as never)
        .prepare();
      this.insertStatement.run(row);
      return row;
    }
    const patch: Partial<UserRow> = {};
    if (externalId && !found.externalId && !this.findBy(tx, partnerId, 'externalId', externalId)) patch.externalId = externalId;
    if (email && !found.email && !this.findBy(tx, partnerId, 'email', email)) patch.email = email;
    if (phone && !found.phone) patch.phone = phone;
    if (who.firstName && who.firstName !== found.firstName) patch.firstName = who.firstName;
    if (who.lastName && who.lastName !== found.lastName) patch.lastName = who.lastName;
    if (Object.keys(patch).length === 0) return found;
    return tx
      .update(users)
      .set({ ...patch, updatedAt: now })
      .where(eq(users.id, found.id))
      .returning()
      .get();
  }

  /** A user of the partner by service id; 404 otherwise. */
  get(tx: Tx, partnerId: string, id: string): UserRow {
    const row = tx.select().from(users).where(and(eq(users.partnerId, partnerId), eq(users.id, id))).get();
    if (!row) throw ApiError.notFound('user');
    return row;
  }

  /** A user by any identifier string (e-mail, phone or the partner's id), without creating one. */
  find(tx: Tx, partnerId: string, identifier: string): UserRow | null {
    const value = identifier.trim();
    if (value.includes('@')) return this.findBy(tx, partnerId, 'email', normalizeEmail(value));
    const phone = value.startsWith('+') ? normalizePhone(value) : null;
    return (phone && this.findBy(tx, partnerId, 'phone', phone)) || this.findBy(tx, partnerId, 'externalId', value);
  }

  private findBy(_tx: Tx, partnerId: string, field: 'externalId' | 'email' | 'phone', value: string): UserRow | null {
    this.lookups ??= {
      externalId: this.prepareLookup('externalId'),
      email: this.prepareLookup('email'),
      phone: this.prepareLookup('phone'),
    };
    return this.lookups[field].get({ partnerId, value }) ?? null;
  }

  private prepareLookup(field: 'externalId' | 'email' | 'phone') {
    return this.db
      .select()
      .from(users)
      .where(and(eq(users.partnerId, sql.placeholder('partnerId')), eq(users[field], sql.placeholder('value'))))
      .limit(1)
      .prepare();
  }
}

/** The partner-facing view of a user: its identifiers, never our internal id alone. */
export function userToApi(u: UserRow) {
  return { id: u.externalId, email: u.email, phone: u.phone };
}
