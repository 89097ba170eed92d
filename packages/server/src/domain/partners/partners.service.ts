import { serializeOn } from '../../db/dialect.js';
import { and, asc, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import type { Db, Tx } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import { hashSecret, randomToken, resealAt, safeEqual, type ResealCount, type SecretBox } from '../../lib/crypto.js';
import { affected } from '../../db/affected.js';
import { newId } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import type { DomainEvents } from '../../lib/domain-events.js';
import { API_KEY_KINDS, apiKeys, partners, type ApiKeyKind } from './partners.table.js';
import { DEFAULT_SETTINGS, mergeSettings, type PartnerSettings, type PartnerSettingsPatch } from './partners.settings.js';

/** Key prefixes: they tell a human which key is which; lookup is by hash only. */
export const KEY_PREFIX: Record<ApiKeyKind, string> = { private: 'sk_', public: 'pk_', channels: 'sk_ch_' };

import { apiKeyHolder, apiKeyWithPartner, partnerById, type PartnerRow } from './partners.queries.js';
export type { PartnerRow };

/** A freshly minted secret set, shown once. */
export interface PartnerSecrets {
  keys: Record<ApiKeyKind, string>;
  webhookSecret: string;
}

/** The name of the partner `npm start` and the SANDBOX_* settings make: a partner for trying things, whose market may be reset. */
export const SANDBOX_PARTNER_NAME = 'sandbox';

/** Whether `partner` is the sandbox (see {@link SANDBOX_PARTNER_NAME}). */
export function isSandboxPartner(partner: Pick<PartnerRow, 'name'>): boolean {
  return partner.name === SANDBOX_PARTNER_NAME;
}

/** What {@link PartnersService.update} changes: the name, settings (any subset, `platformSecret` write-only). */
export interface PartnerChange {
  name?: string;
  settings?: PartnerSettingsPatch;
}

/** The key that authenticated a request. */
export interface Authenticated {
  partner: PartnerRow;
  kind: ApiKeyKind;
}

/**
 * Who holds a key, narrowly: its partner's id, its kind and the partner's API rate limit (null:
 * the service's default), for the calls that use nothing else of the partner
 * ({@link PartnersService.keyHolder}).
 */
export interface KeyHolder {
  partnerId: string;
  kind: ApiKeyKind;
  rateLimitPerMinute: number | null;
}

export function newApiKey(kind: ApiKeyKind): string {
  return KEY_PREFIX[kind] + randomToken(256);
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

/** The grace of a webhook secret rotation when none is given: a day, both secrets sign meanwhile. */
export const DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS = 86_400;

/** The longest grace of a rotation (keys and webhook secret): 7 days. */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;

/** Rows read per statement while resealing. */
const RESEAL_BATCH = 500;

/** What PartnersService is built from (see deps.ts). */
export interface PartnersServiceDeps {
  db: Db;
  clock: Clock;
  /** Seals the webhook and platform secrets (SECRET_KEY). */
  box: SecretBox;
  /** Where a new `webhookUrl` is announced (`partner.webhook_url.set`); none in tools that change no settings. */
  bus?: DomainEvents;
}

/** What a rotation replaces: one of the three API key kinds, or the webhook signing secret. */
export const ROTATABLE_KINDS = [...API_KEY_KINDS, 'webhookSecret'] as const;
/** One of {@link ROTATABLE_KINDS}. */
export type RotatableKind = (typeof ROTATABLE_KINDS)[number];

/** A partner's name as {@link PartnersService.namedAs} compares it. */
function partnerNameKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Partners, their keys and settings. No HTTP here. */
export class PartnersService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly box: SecretBox;
  private readonly bus: DomainEvents | null;

  constructor(deps: PartnersServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.box = deps.box;
    this.bus = deps.bus ?? null;
  }

  /** Creates a partner with new keys and webhook secret; the secrets are returned once. */
  async create(name: string, patch: PartnerSettingsPatch = {}): Promise<{ partner: PartnerRow; secrets: PartnerSecrets }> {
    return this.db.transact(async (tx) => await this.createIn(tx, name, patch));
  }

  /** {@link create} inside the caller's transaction (the test harness's `t.partner()`). */
  async createIn(tx: Tx, name: string, patch: PartnerSettingsPatch = {}): Promise<{ partner: PartnerRow; secrets: PartnerSecrets }> {
    const now = this.clock.now();
    const secrets: PartnerSecrets = {
      keys: { private: newApiKey('private'), public: newApiKey('public'), channels: newApiKey('channels') },
      webhookSecret: newWebhookSecret(),
    };
    const partner = (await tx
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
      .returning())[0]!;
    for (const kind of Object.keys(secrets.keys) as ApiKeyKind[]) await this.insertKey(tx, partner.id, kind, secrets.keys[kind]);
    return { partner, secrets };
  }

  /**
   * The partners whose name reads as `name` (letter case and runs of spaces aside), oldest
   * first: the console asks before making a second partner of a name, so that a form sent
   * twice (a reload of the page that showed the keys, a double click) is not a second partner
   * by accident. Names are not unique (two organisers may share one): the console asks, it
   * does not forbid.
   */
  async namedAs(name: string): Promise<{ id: string; name: string }[]> {
    return this.db.read(async (tx) => await this.namedAsIn(tx, name));
  }

  /** {@link namedAs} in the caller's transaction. */
  async namedAsIn(tx: Tx, name: string): Promise<{ id: string; name: string }[]> {
    const key = partnerNameKey(name);
    // Compared here, not in SQL: SQLite's lower() folds ASCII only, and the partners are few.
    const rows = await tx.select({ id: partners.id, name: partners.name }).from(partners).orderBy(asc(partners.createdAt), asc(partners.id));
    return rows.filter((r) => partnerNameKey(r.name) === key);
  }

  /**
   * {@link createIn} unless a partner is named as `name` already ({@link namedAs}); two at
   * once (a double click, on PostgreSQL) one after the other, so the second sees the first.
   *
   * @throws ApiError 409 on `name`, `partner_name_taken`
   */
  async createNamedIn(tx: Tx, name: string, patch: PartnerSettingsPatch = {}): Promise<{ partner: PartnerRow; secrets: PartnerSecrets }> {
    await serializeOn(tx, 'partners:names');
    if ((await this.namedAsIn(tx, name)).length > 0) throw ApiError.conflict(`A partner is named "${name}" already`, 'name', 'partner_name_taken');
    return await this.createIn(tx, name, patch);
  }

  async list(): Promise<PartnerRow[]> {
    return this.db.read(async (tx) => await tx.select().from(partners).orderBy(desc(partners.createdAt)));
  }

  /** @throws 404 when unknown. */
  async get(id: string): Promise<PartnerRow> {
    return this.db.read(async (tx) => await existing(tx, id));
  }

  /** Changes a partner's name or settings (settings sent replace the stored ones; `platformSecret: null` clears it). @throws 404 when unknown. */
  async update(id: string, change: PartnerChange): Promise<PartnerRow> {
    return this.db.transact(async (tx) => (await this.updateIn(tx, id, change)).partner);
  }

  /**
   * {@link update} inside the caller's transaction, answering the row as it was too (what an
   * audit entry compares).
   *
   * @throws 404 when the partner is unknown
   */
  async updateIn(tx: Tx, id: string, change: PartnerChange): Promise<{ before: PartnerRow; partner: PartnerRow }> {
    const current = await existing(tx, id);
    const settings = change.settings ? mergeSettings(current.settings, change.settings) : current.settings;
    const secret = change.settings?.platformSecret;
    const partner = (await tx
      .update(partners)
      .set({
        name: change.name ?? current.name,
        settings,
        platformSecretSealed: secret === undefined ? current.platformSecretSealed : secret === null ? null : this.box.seal(secret),
        updatedAt: this.clock.now(),
      })
      .where(eq(partners.id, id))
      .returning())[0]!;
    if (partner.settings.webhookUrl && partner.settings.webhookUrl !== current.settings.webhookUrl) await this.bus?.emit(tx, 'partner.webhook_url.set', { partnerId: id });
    return { before: current, partner };
  }

  /**
   * Replaces one key kind (or the webhook secret, as {@link rotateWebhookSecret}). The old key
   * stays valid for `graceSeconds` so a partner can roll its deployments without downtime.
   */
  async rotate(id: string, kind: RotatableKind, graceSeconds = 0): Promise<{ secret: string; previousValidUntil: number | null }> {
    return this.db.transact(async (tx) => await this.rotateIn(tx, id, kind, graceSeconds));
  }

  /**
   * What each kind of key is now, as a rotation form shows it (see {@link rotateIn}'s
   * `ifVersion`): a key kind's current key's id (the one without an end; a rotation gives the
   * one before it an end, even of no grace), the webhook secret's first digest characters
   * (they tell nothing of a 256-bit secret). Changes with every rotation and only then.
   *
   * @throws 404 when the partner is unknown
   */
  async keyVersionsIn(tx: Tx, id: string): Promise<Record<RotatableKind, string>> {
    const partner = await existing(tx, id);
    const current = await tx.select({ id: apiKeys.id, kind: apiKeys.kind }).from(apiKeys).where(and(eq(apiKeys.partnerId, id), isNull(apiKeys.expiresAt))).orderBy(asc(apiKeys.id));
    const of = (kind: ApiKeyKind) => current.filter((k) => k.kind === kind).map((k) => k.id).join(',');
    return { private: of('private'), public: of('public'), channels: of('channels'), webhookSecret: hashSecret(this.box.open(partner.webhookSecretSealed)).slice(0, 16) };
  }

  /**
   * {@link rotate} inside the caller's transaction. With `ifVersion` (what
   * {@link keyVersionsIn} said when the form was shown) it replaces the key only if the kind was
   * not rotated since: the same form sent twice (the new key's page reloaded) or by two people
   * at once replaces one key, not two, and the key just shown stays the one in force.
   *
   * @throws 404 when the partner is unknown; 409 `key_changed` when the kind changed since `ifVersion`
   */
  async rotateIn(tx: Tx, id: string, kind: RotatableKind, graceSeconds = 0, ifVersion?: string): Promise<{ secret: string; previousValidUntil: number | null }> {
    if (ifVersion !== undefined) {
      // Two rotations at once (PostgreSQL) one after the other: the second reads the first's key.
      await serializeOn(tx, `partner-keys:${id}`);
      if ((await this.keyVersionsIn(tx, id))[kind] !== ifVersion) throw ApiError.conflict(`The partner's ${kind} was replaced after this rotation's form was read: read the page again before replacing it again`, 'kind', 'key_changed');
    }
    if (kind === 'webhookSecret') return this.rotateWebhookSecretIn(tx, id, graceSeconds);
    const now = this.clock.now();
    const until = now + graceSeconds * 1000;
    await existing(tx, id);
    const secret = newApiKey(kind);
    await tx.update(apiKeys)
      .set({ expiresAt: until })
      .where(and(eq(apiKeys.partnerId, id), eq(apiKeys.kind, kind), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, until))));
    await this.insertKey(tx, id, kind, secret);
    return { secret, previousValidUntil: graceSeconds > 0 ? until : null };
  }

  /**
   * A new webhook signing secret, returned once. For `graceSeconds` the secret it replaces
   * keeps signing beside it (every delivery carries both signatures, see
   * {@link webhookSigningSecrets}), so the partner can switch its verifier without a message
   * failing; 0 drops it at once. A rotation during a grace replaces the previous secret: only
   * the two latest ever sign.
   *
   * @throws 404 when the partner is unknown
   * @example await partners.rotateWebhookSecret('ptr_…', 86_400) // { secret: 'whsec_…', previousValidUntil: <now + 24 h> }
   */
  async rotateWebhookSecret(id: string, graceSeconds: number = DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS): Promise<{ secret: string; previousValidUntil: number | null }> {
    return this.db.transact(async (tx) => await this.rotateWebhookSecretIn(tx, id, graceSeconds));
  }

  /** {@link rotateWebhookSecret} inside the caller's transaction. @throws 404 when the partner is unknown. */
  async rotateWebhookSecretIn(tx: Tx, id: string, graceSeconds: number = DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS): Promise<{ secret: string; previousValidUntil: number | null }> {
    const now = this.clock.now();
    const until = graceSeconds > 0 ? now + graceSeconds * 1000 : null;
    const current = await existing(tx, id);
    const secret = newWebhookSecret();
    await tx
      .update(partners)
      .set({
        webhookSecretSealed: this.box.seal(secret),
        // Moved as sealed: it need not be opened here (reseal brings it under the newest key).
        previousWebhookSecretSealed: until === null ? null : current.webhookSecretSealed,
        previousWebhookSecretUntil: until,
        updatedAt: now,
      })
      .where(eq(partners.id, id));
    return { secret, previousValidUntil: until };
  }

  /** The partner and key kind of a presented key, or null when unknown or expired. */
  async authenticate(presented: string): Promise<Authenticated | null> {
    const hash = hashSecret(presented);
    // Every API request the key cache (accesslayer.buy.keys.ts) does not answer.
    const row = await this.db.read(async (tx) => await apiKeyWithPartner(tx, hash));
    if (!row || !this.inForce(row.key, hash)) return null;
    return { partner: row.partner, kind: row.key.kind };
  }

  /**
   * What {@link authenticate} answers, narrowed to who holds the key (null when unknown or
   * expired), read in the caller's transaction without the partner's row: for a call that
   * needs nothing more and writes anyway (a door's online scan, thousands a minute, reads it in
   * the scan's own transaction). Looked up on every call, like `authenticate`: a revoked key is
   * refused by the next request.
   */
  async keyHolder(tx: Tx, presented: string): Promise<KeyHolder | null> {
    const hash = hashSecret(presented);
    const row = await apiKeyHolder(tx, hash);
    if (!row || !this.inForce(row, hash)) return null;
    const limit = row.rateLimitPerMinute;
    return { partnerId: row.partnerId, kind: row.kind, rateLimitPerMinute: limit === '' ? null : Number(limit) };
  }

  /** A key found by `hash` is in force: the same hash (compared in constant time: the lookup was by it), and not expired. */
  private inForce(key: { hash: string; expiresAt: number | null }, hash: string): boolean {
    return safeEqual(key.hash, hash) && (key.expiresAt === null || key.expiresAt > this.clock.now());
  }

  webhookSecret(partner: PartnerRow): string {
    return this.box.open(partner.webhookSecretSealed);
  }

  /**
   * The secrets a webhook sent at `at` is signed with: the current one, then the previous one
   * while its grace period lasts (`at` from the injected clock).
   */
  webhookSigningSecrets(partner: PartnerRow, at: number): string[] {
    const secrets = [this.box.open(partner.webhookSecretSealed)];
    const previous = partner.previousWebhookSecretSealed;
    const until = partner.previousWebhookSecretUntil;
    if (previous !== null && until !== null && at < until) secrets.push(this.box.open(previous));
    return secrets;
  }

  platformSecret(partner: PartnerRow): string | null {
    return partner.platformSecretSealed ? this.box.open(partner.platformSecretSealed) : null;
  }

  /**
   * Seals every secret of the partners table again under the newest key of `box` (the webhook
   * secret, the previous one while kept, the platform secret), in the caller's transaction and
   * in batches by id. A row is written only when one of its values was under an older key, and
   * only if it still holds what was read (a row a running process changed meanwhile was sealed
   * by that process). Harmless to run again.
   *
   * @returns how many rows were read and how many rewritten
   * @throws SealedSecretError (naming the partner) when a value cannot be opened with `box`
   */
  async resealAll(tx: Tx, box: SecretBox): Promise<ResealCount> {
    const count: ResealCount = { rows: 0, resealed: 0 };
    let after = '';
    for (;;) {
      const batch = await tx
        .select({ id: partners.id, webhook: partners.webhookSecretSealed, previous: partners.previousWebhookSecretSealed, platform: partners.platformSecretSealed })
        .from(partners)
        .where(gt(partners.id, after))
        .orderBy(asc(partners.id))
        .limit(RESEAL_BATCH);
      for (const row of batch) {
        count.rows++;
        const reseal = (value: string | null, column: string) => (value === null ? null : resealAt(box, value, `partners ${row.id} (${column})`));
        const webhook = reseal(row.webhook, 'webhook_secret_sealed');
        const previous = reseal(row.previous, 'previous_webhook_secret_sealed');
        const platform = reseal(row.platform, 'platform_secret_sealed');
        if (webhook === null && previous === null && platform === null) continue;
        const written = await tx
          .update(partners)
          .set({ ...(webhook ? { webhookSecretSealed: webhook } : {}), ...(previous ? { previousWebhookSecretSealed: previous } : {}), ...(platform ? { platformSecretSealed: platform } : {}) })
          .where(
            and(
              eq(partners.id, row.id),
              eq(partners.webhookSecretSealed, row.webhook),
              row.previous === null ? isNull(partners.previousWebhookSecretSealed) : eq(partners.previousWebhookSecretSealed, row.previous),
              row.platform === null ? isNull(partners.platformSecretSealed) : eq(partners.platformSecretSealed, row.platform),
            ),
          );
        count.resealed += affected(written);
      }
      if (batch.length < RESEAL_BATCH) return count;
      after = batch[batch.length - 1]!.id;
    }
  }

  /**
   * Makes sure the partner named `sandbox` ({@link SANDBOX_PARTNER_NAME}) exists with exactly the given keys (older keys
   * of each kind expire at once) and the given settings. Run at every start. `initialSettings`
   * apply only when the partner is created, so what an operator changes later survives restarts.
   */
  async ensureSandbox(opts: { keys: Record<ApiKeyKind, string>; webhookSecret?: string; settings: PartnerSettingsPatch; initialSettings?: PartnerSettingsPatch }): Promise<PartnerRow> {
    const now = this.clock.now();
    return this.db.transact(async (tx) => {
      // Read, then write: processes starting together (PostgreSQL) make it one after the other.
      await serializeOn(tx, 'sandbox-partner');
      let partner = (await tx.select().from(partners).where(eq(partners.name, SANDBOX_PARTNER_NAME)).orderBy(partners.createdAt).limit(1))[0];
      if (!partner) {
        partner = (await tx
          .insert(partners)
          .values({
            id: newId('partner'),
            name: SANDBOX_PARTNER_NAME,
            settings: mergeSettings(DEFAULT_SETTINGS, opts.initialSettings ?? {}),
            webhookSecretSealed: this.box.seal(opts.webhookSecret ?? newWebhookSecret()),
            platformSecretSealed: null,
            createdAt: now,
            updatedAt: now,
          })
          .returning())[0]!;
      }
      const settings = mergeSettings(partner.settings, opts.settings);
      const platformSecret = opts.settings.platformSecret;
      partner = (await tx
        .update(partners)
        .set({
          settings,
          ...(opts.webhookSecret ? { webhookSecretSealed: this.box.seal(opts.webhookSecret) } : {}),
          ...(platformSecret ? { platformSecretSealed: this.box.seal(platformSecret) } : {}),
          updatedAt: now,
        })
        .where(eq(partners.id, partner.id))
        .returning())[0]!;
      for (const kind of Object.keys(opts.keys) as ApiKeyKind[]) {
        const hash = hashSecret(opts.keys[kind]);
        const existing = (await tx.select().from(apiKeys).where(eq(apiKeys.hash, hash)).limit(1))[0];
        if (existing && existing.partnerId !== partner.id) throw new Error(`SANDBOX ${kind} key is already used by another partner`);
        await tx.update(apiKeys)
          .set({ expiresAt: now })
          .where(and(eq(apiKeys.partnerId, partner.id), eq(apiKeys.kind, kind), isNull(apiKeys.expiresAt)));
        if (existing) await tx.update(apiKeys).set({ expiresAt: null, kind }).where(eq(apiKeys.id, existing.id));
        else await this.insertKey(tx, partner.id, kind, opts.keys[kind]);
      }
      return partner;
    });
  }

  private async insertKey(tx: Tx, partnerId: string, kind: ApiKeyKind, secret: string): Promise<void> {
    await tx.insert(apiKeys)
      .values({ id: newId('apiKey'), partnerId, kind, hash: hashSecret(secret), hint: secret.slice(-4), createdAt: this.clock.now(), expiresAt: null });
  }
}

/** @throws 404 when the partner is unknown. */
async function existing(tx: Tx, id: string): Promise<PartnerRow> {
  const row = await partnerById(tx, id);
  if (!row) throw ApiError.notFound('partner', id);
  return row;
}

/** Settings as shown to operators: stored settings plus whether a platform secret is set. */
export function publicSettings(p: PartnerRow): PartnerSettings & { platformSecretSet: boolean } {
  return { ...DEFAULT_SETTINGS, ...p.settings, platformSecretSet: p.platformSecretSealed !== null };
}

export type { PartnerSettings };
