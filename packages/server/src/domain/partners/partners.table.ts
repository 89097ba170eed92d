import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { timestamps } from '../../db/columns.js';
import type { PartnerSettings } from './partners.settings.js';

/** A tenant: one partner platform. */
export const partners = dbTable('partners', {
  id: text().primaryKey(),
  name: text().notNull(),
  /** Settings without secrets (see partners.settings.ts). */
  settings: text({ mode: 'json' }).$type<PartnerSettings>().notNull(),
  /** Standard Webhooks signing secret (`whsec_…`), sealed with SECRET_KEY. */
  webhookSecretSealed: text().notNull(),
  /** The secret header value sent to the partner platform, sealed; null when unset. */
  platformSecretSealed: text(),
  /**
   * The webhook secret replaced by the last rotation, sealed, while a grace period lets it sign
   * beside the new one (so the partner can switch its verifier without a message failing);
   * null when there is none. Only the latest previous secret is kept.
   */
  previousWebhookSecretSealed: text(),
  /** When the previous webhook secret stops signing (epoch ms; it signs while `now` is before); null with it. */
  previousWebhookSecretUntil: integer(),
  ...timestamps,
});

export const API_KEY_KINDS = ['private', 'public', 'channels'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/** API keys, stored only as SHA-256 hashes. */
export const apiKeys = dbTable(
  'api_keys',
  {
    id: text().primaryKey(),
    partnerId: text()
      .notNull()
      .references(() => partners.id, { onDelete: 'cascade' }),
    kind: text({ enum: API_KEY_KINDS }).notNull(),
    hash: text().notNull(),
    /** Last four characters, so operators can tell keys apart. */
    hint: text().notNull(),
    createdAt: integer().notNull(),
    /** Null while valid; set when rotated (a grace period may keep it valid until then). */
    expiresAt: integer(),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.hash), index('api_keys_partner_idx').on(t.partnerId, t.kind)],
);
