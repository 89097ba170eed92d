import type { DbChangeCounter, DbVersion } from '../../db/change-counter.js';
import { hashSecret } from '../../lib/crypto.js';
import { apiKeyExpiry } from '../../domain/partners/partners.queries.js';
import { KEY_PREFIX, type Authenticated, type PartnersService } from '../../domain/partners/partners.service.js';
import type { Kernel } from '../../lib/kernel.js';

/**
 * The key lookup of the buy access layer, cached. The profile of the benchmark showed
 * `PartnersService.authenticate` (a drizzle join built, prepared and mapped on every call)
 * taking more than half of each request, so this router authenticates through this cache.
 * The cache only wraps the lookup: `partnerKey()` still does everything else (key kinds,
 * errors, the rate limit), given a `partners` whose `authenticate` is {@link authenticate}.
 *
 * Freshness: the same database change counter as the show snapshots (see
 * accesslayer.buy.cache.ts): an entry is used only while no row of the database changed since
 * it was read, so a rotated or revoked key, a key kind changed or the partner's settings
 * edited are seen by the next request (within a millisecond when another process wrote them).
 * A key that expires with time alone (the grace period of a rotation) is checked against the
 * clock on every hit, from its `expires_at` read with it.
 * Entries are keyed by the key's SHA-256 (no secret kept in memory: see hashOf); unknown keys
 * are not cached.
 */
export class CachedKeyLookup {
  private readonly entries = new Map<string, { version: DbVersion; auth: Authenticated; expiresAt: number | null }>();
  private readonly versions = new WeakMap<Authenticated, DbVersion>();
  private readonly publicHashes = new Map<string, string>();
  private readonly expiresAt: typeof apiKeyExpiry;

  constructor(
    private readonly deps: Pick<Kernel, 'db' | 'clock'> & { partners: PartnersService },
    private readonly counter: DbChangeCounter,
    private readonly limit = 10_000,
  ) {
    this.expiresAt = apiKeyExpiry;
  }

  /**
   * What `PartnersService.authenticate` answers: from the cache, synchronously, while nothing
   * changed; otherwise looked up (queued behind an open transaction like every read).
   */
  authenticate(presented: string): Authenticated | null | Promise<Authenticated | null> {
    const version = this.counter.read();
    const hash = this.hashOf(presented);
    return this.fresh(hash, version) ?? this.lookUp(presented, hash, version);
  }

  /**
   * The cached answer for a key while it holds, else undefined, never looking anything up: for
   * a fast path that answers only from memory (accesslayer.buy.fast.ts) and otherwise leaves
   * the request to the route, whose {@link authenticate} looks it up.
   */
  cached(presented: string): Authenticated | undefined {
    return this.fresh(this.hashOf(presented), this.counter.read());
  }

  /**
   * The hash a key is cached by. A public key is no secret (it is in every page of the
   * partner's), so its hash is kept by the key itself and an on-sale's page views hash nothing;
   * any other key is hashed on every call, so no secret is kept in memory.
   */
  private hashOf(presented: string): string {
    if (!presented.startsWith(KEY_PREFIX.public)) return hashSecret(presented);
    let hash = this.publicHashes.get(presented);
    if (hash === undefined) {
      if (this.publicHashes.size >= this.limit) this.publicHashes.clear();
      this.publicHashes.set(presented, (hash = hashSecret(presented)));
    }
    return hash;
  }

  private fresh(hash: string, version: DbVersion): Authenticated | undefined {
    const hit = this.entries.get(hash);
    if (hit === undefined) return undefined;
    if (this.counter.same(hit.version, version) && (hit.expiresAt === null || hit.expiresAt > this.deps.clock.now())) return hit.auth;
    this.entries.delete(hash);
    return undefined;
  }

  private async lookUp(presented: string, hash: string, version: DbVersion): Promise<Authenticated | null> {
    const auth = await this.deps.partners.authenticate(presented);
    if (!auth) return null;
    const expiresAt = (await this.deps.db.read((tx) => this.expiresAt(tx, hash))) ?? null;
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { version, auth, expiresAt });
    this.versions.set(auth, version);
    return auth;
  }

  /** The database version at which `auth` was read (undefined when it did not come from here). */
  versionOf(auth: Authenticated): DbVersion | undefined {
    return this.versions.get(auth);
  }

  /**
   * The dependencies to give `partnerKey()` so that it authenticates through this cache.
   *
   * @example middleware: [partnerKey(keys.wrap(deps), ['public', 'private'])]
   */
  wrap<D extends { partners: PartnersService }>(deps: D): D {
    const partners = Object.create(deps.partners) as PartnersService;
    // A hit answers synchronously: partnerKey() awaits whatever it gets.
    partners.authenticate = ((key: string) => this.authenticate(key)) as PartnersService['authenticate'];
    return { ...deps, partners };
  }
}
