import { and, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import type { Db, Tx } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import { hashSecret, randomToken, safeEqual, type SecretBox } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { apiKeys, partners, type ApiKeyKind } from './partners.table.js';
import { DEFAULT_SETTINGS, mergeSettings, type PartnerSettings, type PartnerSettingsPatch } from './partners.settings.js';

/** Key prefixes: they tell a human which key is which; lookup is by hash only. */
export const KEY_PREFIX: Record<ApiKeyKind, string> = { private: 'sk_', public: 'pk_', channels: 'sk_ch_' };

import type { PartnerRow } from './partners.queries.js';
export type { PartnerRow };

/** A freshly minted secret set, shown once. */
export interface PartnerSecrets {
  keys: Record<ApiKeyKind, string>;
  webhookSecret: string;
}

/** The key that authenticated a request. */
export interface Authenticated {
  partner: PartnerRow;
  kind: ApiKeyKind;
}

export function newApiKey(kind: ApiKeyKind): string {
  return KEY_PREFIX[kind] + randomToken(256);
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

/** What PartnersService is built from (see deps.ts). */
export interface PartnersServiceDeps {
  db: Db;
  clock: Clock;
  /** Seals the webhook and platform secrets (SECRET_KEY). */
  box: SecretBox;
}

/** Partners, their keys and settings. No HTTP here. */
export class PartnersService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly box: SecretBox;

  constructor(deps: PartnersServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.box = deps.box;
  }

  /** Creates a partner with new keys and webhook secret; the secrets are returned once. */
  create(name: string, patch: PartnerSettingsPatch = {}): { partner: PartnerRow; secrets: PartnerSecrets } {
    const now = this.clock.now();
    const secrets: PartnerSecrets = {
      keys: { private: newApiKey('private'), public: newApiKey('public'), channels: newApiKey('channels') },
      webhookSecret: newWebhookSecret(),
    };
    const partner = this.db.transaction((tx) => {
      const row = tx
        .insert(partners)
        .values({
          id: newId('partner'),
          name,
          settings: mergeSettings(DEFAULT_SETTINGS, patch),
          webhookSecretSealed: this.box.seal(secrets.webhookSecret),
          platformSecretSealed: patch.platformSecret ? this.box.seal(patch.platformSecret) : null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      for (const kind of Object.keys(secrets.keys) as ApiKeyKind[]) this.insertKey(tx, row.id, kind, secrets.keys[kind]);
      return row;
    });
    return { partner, secrets };
  }

  list(): PartnerRow[] {
    return this.db.select().from(partners).orderBy(desc(partners.createdAt)).all();
  }

  /** @throws 404 when unknown. */
  get(id: string): PartnerRow {
    const row = this.db.select().from(partners).where(eq(partners.id, id)).get();
    if (!row) throw ApiError.notFound('partner', id);
    return row;
  }

  update(id: string, change: { name?: string; settings?: PartnerSettingsPatch }): PartnerRow {
    const current = this.get(id);
    const settings = change.settings ? mergeSettings(current.settings, change.settings) : current.settings;
    const secret = change.settings?.platformSecret;
    return this.db
      .update(partners)
      .set({
        name: change.name ?? current.name,
        settings,
        platformSecretSealed: secret === undefined ? current.platformSecretSealed : secret === null ? null : this.box.seal(secret),
        updatedAt: this.clock.now(),
      })
      .where(eq(partners.id, id))
      .returning()
      .get();
  }

  /**
   * Replaces one key kind (or the webhook secret). The old key stays valid for
   * `graceSeconds` so a partner can roll its deployments without downtime.
   */
  rotate(id: string, kind: ApiKeyKind | 'webhookSecret', graceSeconds = 0): { secret: string; previousValidUntil: number | null } {
    this.get(id);
    const now = this.clock.now();
    const until = now + graceSeconds * 1000;
    if (kind === 'webhookSecret') {
      const secret = newWebhookSecret();
      this.db.update(partners).set({ webhookSecretSealed: this.box.seal(secret), updatedAt: now }).where(eq(partners.id, id)).run();
      return { secret, previousValidUntil: null };
    }
    const secret = newApiKey(kind);
    this.db.transaction((tx) => {
      tx.update(apiKeys)
        .set({ expiresAt: until })
        .where(and(eq(apiKeys.partnerId, id), eq(apiKeys.kind, kind), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, until))))
        .run();
      this.insertKey(tx, id, kind, secret);
    });
    return { secret, previousValidUntil: graceSeconds > 0 ? until : null };
  }

  /** The partner and key kind of a presented key, or null when unknown or expired. */
  authenticate(presented: string): Authenticated | null {
    const hash = hashSecret(presented);
    const row = this.db
      .select({ key: apiKeys, partner: partners })
      .from(apiKeys)
      .innerJoin(partners, eq(partners.id, apiKeys.partnerId))
      .where(eq(apiKeys.hash, hash))
      .get();
    if (!row) return null;
    // The lookup is by hash; the comparison below keeps the final check constant-time.
    if (!safeEqual(row.key.hash, hash)) return null;
    if (row.key.expiresAt !== null && row.key.expiresAt <= this.clock.now()) return null;
    return { partner: row.partner, kind: row.key.kind };
  }

  webhookSecret(partner: PartnerRow): string {
    return this.box.open(partner.webhookSecretSealed);
  }

  platformSecret(partner: PartnerRow): string | null {
    return partner.platformSecretSealed ? this.box.open(partner.platformSecretSealed) : null;
  }

  /**
   * Makes sure the partner named `sandbox` exists with exactly the given keys (older keys
   * of each kind expire at once) and the given settings. Run at every start. `initialSettings`
   * apply only when the partner is created, so what an operator changes later survives restarts.
   */
  ensureSandbox(opts: { keys: Record<ApiKeyKind, string>; webhookSecret?: string; settings: PartnerSettingsPatch; initialSettings?: PartnerSettingsPatch }): PartnerRow {
    const now = this.clock.now();
    return this.db.transaction((tx) => {
      let partner = tx.select().from(partners).where(eq(partners.name, 'sandbox')).orderBy(partners.createdAt).get();
      if (!partner) {
        partner = tx
          .insert(partners)
          .values({
            id: newId('partner'),
            name: 'sandbox',
            settings: mergeSettings(DEFAULT_SETTINGS, opts.initialSettings ?? {}),
            webhookSecretSealed: this.box.seal(opts.webhookSecret ?? newWebhookSecret()),
            platformSecretSealed: null,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get();
      }
      const settings = mergeSettings(partner.settings, opts.settings);
      const platformSecret = opts.settings.platformSecret;
      partner = tx
        .update(partners)
        .set({
          settings,
          ...(opts.webhookSecret ? { webhookSecretSealed: this.box.seal(opts.webhookSecret) } : {}),
          ...(platformSecret ? { platformSecretSealed: this.box.seal(platformSecret) } : {}),
          updatedAt: now,
        })
        .where(eq(partners.id, partner.id))
        .returning()
        .get();
      for (const kind of Object.keys(opts.keys) as ApiKeyKind[]) {
        const hash = hashSecret(opts.keys[kind]);
        const existing = tx.select().from(apiKeys).where(eq(apiKeys.hash, hash)).get();
        if (existing && existing.partnerId !== partner.id) throw new Error(`SANDBOX ${kind} key is already used by another partner`);
        tx.update(apiKeys)
          .set({ expiresAt: now })
          .where(and(eq(apiKeys.partnerId, partner.id), eq(apiKeys.kind, kind), isNull(apiKeys.expiresAt)))
          .run();
        if (existing) tx.update(apiKeys).set({ expiresAt: null, kind }).where(eq(apiKeys.id, existing.id)).run();
        else this.insertKey(tx, partner.id, kind, opts.keys[kind]);
      }
      return partner;
    });
  }

  private insertKey(tx: Tx, partnerId: string, kind: ApiKeyKind, secret: string): void {
    tx.insert(apiKeys)
      .values({ id: newId('apiKey'), partnerId, kind, hash: hashSecret(secret), hint: secret.slice(-4), createdAt: this.clock.now(), expiresAt: null })
      .run();
  }
}

/** Settings as shown to operators: stored settings plus whether a platform secret is set. */
export function publicSettings(p: PartnerRow): PartnerSettings & { platformSecretSet: boolean } {
  return { ...DEFAULT_SETTINGS, ...p.settings, platformSecretSet: p.platformSecretSealed !== null };
}

export type { PartnerSettings };
