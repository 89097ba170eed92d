import { sql } from 'drizzle-orm';
import { dbTable, index, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';

/**
 * People of a partner: ticket owners, sellers, buyers. Identified by the partner's user id,
 * an e-mail (stored lowercased) or a phone (stored in E.164); any of them may be missing,
 * but not all. An unknown user is created on first sight.
 */
export const users = dbTable(
  'users',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    externalId: text(),
    email: text(),
    phone: text(),
    firstName: text(),
    lastName: text(),
    ...timestamps,
  },
  (t) => [
    // Partial where the column is often empty (see tickets_order_idx): lookups by e-mail then
    // never take the phone or external-id index on a table not analyzed yet.
    uniqueIndex('users_partner_external_uq').on(t.partnerId, t.externalId).where(sql`${t.externalId} is not null`),
    uniqueIndex('users_partner_email_uq').on(t.partnerId, t.email),
    index('users_partner_phone_idx').on(t.partnerId, t.phone).where(sql`${t.phone} is not null`),
  ],
);
