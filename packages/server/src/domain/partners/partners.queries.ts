import { desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { perConnection, prepared } from '../../db/statements.js';
import { apiKeys, partners, type ApiKeyKind } from './partners.table.js';
import { jsonArrayContains, jsonTextOrEmpty } from '../../db/dialect.js';

export { API_KEY_KINDS, type ApiKeyKind } from './partners.table.js';

/**
 * Reads of the partners module other modules may use. Only `partners.service.ts` writes the
 * partners and API key tables.
 */
export type PartnerRow = typeof partners.$inferSelect;

/** A partner by id, or undefined. */
export async function partnerById(tx: Tx, partnerId: string): Promise<PartnerRow | undefined> {
  return (await partnerStatement(tx).execute({ partnerId }))[0];
}

/**
 * The statement of {@link partnerById}, prepared once per connection: every webhook put in the
 * outbox reads it (a door's admissions, thousands a minute), where building drizzle's SQL cost
 * several times running it.
 */
const partnerStatement = perConnection((tx) => prepared(tx.select().from(partners).where(eq(partners.id, sql.placeholder('partnerId'))), 'partners_partnerStatement'));

/** An API key's row and its partner's, as {@link apiKeyWithPartner} reads them. */
export interface ApiKeyWithPartner {
  key: typeof apiKeys.$inferSelect;
  partner: PartnerRow;
}

/**
 * An API key and its partner by the key's SHA-256 (`hashSecret`), or undefined: what every API
 * request authenticates with (`PartnersService.authenticate`). The statement is prepared once
 * per connection: built by drizzle for each request, it cost several times its run (some 60 µs
 * of a request's time, a tenth of a door's scan).
 */
export async function apiKeyWithPartner(tx: Tx, hash: string): Promise<ApiKeyWithPartner | undefined> {
  return (await keyWithPartnerStatement(tx).execute({ hash }))[0];
}

const keyWithPartnerStatement = perConnection((tx) =>
  prepared(tx.select({ key: apiKeys, partner: partners }).from(apiKeys).innerJoin(partners, eq(partners.id, apiKeys.partnerId)).where(eq(apiKeys.hash, sql.placeholder('hash'))), 'partners_keyWithPartner'),
);

/** What {@link apiKeyHolder} reads: the key's hash, kind and expiry, its partner's id and API rate limit (as the engine gives it: '' when not set). */
export interface ApiKeyHolderRow {
  hash: string;
  kind: ApiKeyKind;
  expiresAt: number | null;
  partnerId: string;
  rateLimitPerMinute: string | number;
}

/**
 * An API key by its SHA-256 with only what a call that uses nothing else of its partner needs
 * (a door's online scan, `http/api/admission.verify.fast.ts`): no partner row is read or
 * mapped. Measured on a scan: the wide lookup ({@link apiKeyWithPartner}, every column of the
 * key and of the partner, its settings parsed) cost some 30 µs of SQLite and as much again
 * of mapping; this one a few. Prepared once per connection.
 */
export async function apiKeyHolder(tx: Tx, hash: string): Promise<ApiKeyHolderRow | undefined> {
  return (await keyHolderStatement(tx).execute({ hash }))[0];
}

const keyHolderStatement = perConnection((tx) =>
  prepared(
    tx
      .select({ hash: apiKeys.hash, kind: apiKeys.kind, expiresAt: apiKeys.expiresAt, partnerId: apiKeys.partnerId, rateLimitPerMinute: jsonTextOrEmpty(partners.settings, 'rateLimitPerMinute') })
      .from(apiKeys)
      .innerJoin(partners, eq(partners.id, apiKeys.partnerId))
      .where(eq(apiKeys.hash, sql.placeholder('hash'))),
    'partners_keyHolder',
  ),
);

/** A partner that must exist (its id came from a row that references it). */
export async function partnerOf(tx: Tx, partnerId: string): Promise<PartnerRow> {
  const row = await partnerById(tx, partnerId);
  if (!row) throw new Error(`No partner ${partnerId}`);
  return row;
}

/**
 * Whether any partner lists `origin` in its settings' `allowedOrigins` (CORS preflights carry
 * no key, so they are answered for an origin some partner allows). The statement is prepared
 * once per connection (see `perConnection`).
 *
 * @example await db.read((tx) => anyPartnerAllowsOrigin(tx, 'https://tickets.acme.example')); // true
 */
export async function anyPartnerAllowsOrigin(tx: Tx, origin: string): Promise<boolean> {
  return (await originStatement(tx).execute({ origin }))[0] !== undefined;
}

const originStatement = perConnection((tx) =>
  prepared(tx
    .select({ one: sql<number>`1` })
    .from(partners)
    .where(jsonArrayContains(partners.settings, 'allowedOrigins', sql.placeholder('origin')))
    .limit(1), 'partners_originStatement'),
);

/**
 * When an API key expires (`expires_at`, null for a key without end), by the key's SHA-256
 * (`hashSecret`); undefined for an unknown hash. The statement is prepared once; call the
 * returned function per request (the buy access layer's key cache reads it on every miss).
 *
 * @example apiKeyExpiry(tx, hashSecret(presented)); // null
 */
export async function apiKeyExpiry(tx: Tx, hash: string): Promise<number | null | undefined> {
  return (await expiryStatement(tx).execute({ hash }))[0]?.expiresAt;
}

/** The statement of `apiKeyExpiry`, prepared once per connection on the handle it is given. */
const expiryStatement = perConnection((tx) => prepared(tx.select({ expiresAt: apiKeys.expiresAt }).from(apiKeys).where(eq(apiKeys.hash, sql.placeholder('hash'))), 'partners_expiryStatement'));

/**
 * Partners whose name or id contains `term`, ignoring case, newest first, at most `limit`; every
 * partner when `term` is empty. `%`, `_` and `\` in the term are matched as themselves.
 */
export async function searchPartners(tx: Tx, term: string, limit: number): Promise<PartnerRow[]> {
  const query = tx.select().from(partners);
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  // lower() on both sides and an explicit ESCAPE: the same matching on SQLite (LIKE ignores ASCII case, no default escape) and PostgreSQL (LIKE keeps case).
  const contains = (column: typeof partners.name | typeof partners.id) => sql`lower(${column}) like ${pattern} escape '\\'`;
  const filtered = term ? query.where(or(contains(partners.name), contains(partners.id))) : query;
  return await filtered.orderBy(desc(partners.createdAt)).limit(limit);
}

/** The names of the partners `ids`, by id (unknown ids are absent). */
export async function partnerNames(tx: Tx, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.select({ id: partners.id, name: partners.name }).from(partners).where(inArray(partners.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r.name]));
}
