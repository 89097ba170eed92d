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
    uniqueIndex('users_partner_external_uq').on(t.partnerId, t.externalId),
    uniqueIndex('users_partner_email_uq').on(t.partnerId, t.email),
    index('users_partner_phone_idx').on(t.partnerId, t.phone),
  ],
);
