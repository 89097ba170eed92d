import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual, hkdfSync } from 'node:crypto';

/**
 * Secrets: API keys are only ever stored as SHA-256 hashes (they are 256-bit random
 * values, so a slow hash adds nothing); secrets the service must use later (webhook
 * signing secret, the platform's secret header, payout account numbers) are sealed with
 * AES-256-GCM under a key derived from `SECRET_KEY`, and values the service hands out and
 * takes back (ticket-view tokens, return-to tags, one-time-password digests) are signed with
 * HMAC-SHA256 under another key derived from it.
 *
 * `SECRET_KEY` is a keyring so that it can be rotated without downtime: one key, or several
 * separated by commas, newest first. The newest seals and signs; every listed key opens and
 * verifies (see {@link SecretBox}).
 */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base62 string with at least `bits` bits of entropy. */
export function randomToken(bits = 256): string {
  const length = Math.ceil(bits / Math.log2(62));
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Rejection sampling keeps every character equally likely.
      if (byte < 248 && out.length < length) out.push(ALPHABET[byte % 62]!);
    }
  }
  return out.join('');
}

/** Hex SHA-256 of a secret, for lookup by hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

/** The shortest key of the keyring (`SECRET_KEY`): 32 characters. */
export const MIN_SECRET_KEY_LENGTH = 32;

/**
 * The keys of a `SECRET_KEY` value, newest first: the value itself when it holds no comma
 * (exactly as before keyrings, so a single key derives the same keys as ever), else its
 * comma-separated entries (so no key may contain a comma). Entries are taken as typed, never
 * trimmed (a trimmed key would be another key): spaces around a comma are refused rather than
 * guessed at.
 *
 * @throws Error saying what is wrong (an entry too short, empty, padded with spaces, or listed twice)
 * @example parseKeyring('new-key-of-at-least-32-characters…,old-key-of-at-least-32-characters…') // [new, old]
 */
export function parseKeyring(value: string): string[] {
  const keys = value.split(',');
  keys.forEach((key, i) => {
    const which = keys.length === 1 ? 'the key' : `key ${i + 1} of ${keys.length}`;
    if (key.length === 0) throw new Error(`${which} is empty (write the keys newest first, separated by single commas)`);
    // A lone key is taken whole, spaces and all, as before keyrings.
    if (keys.length > 1 && key.trim() !== key) throw new Error(`${which} starts or ends with a space (separate the keys with a comma only)`);
    if (key.length < MIN_SECRET_KEY_LENGTH) throw new Error(`${which} must be at least ${MIN_SECRET_KEY_LENGTH} characters`);
  });
  if (new Set(keys).size !== keys.length) throw new Error('a key is listed twice');
  return keys;
}

/**
 * The public name of a key: 8 base64url characters (48 bits) derived from it with HKDF under
 * a purpose of its own, so it tells keys apart in sealed values and logs and reveals nothing
 * of the key or of the keys derived from it for sealing and signing.
 *
 * @example keyIdOf(process.env.SECRET_KEY!.split(',')[0]!) // 'q3xT0b_L'
 */
export function keyIdOf(key: string): string {
  return Buffer.from(hkdfSync('sha256', key, 'resale', 'key-id', 6)).toString('base64url');
}

/** A sealed value that cannot be opened: its key is not in `SECRET_KEY`, or it is not a sealed value. Never holds a secret. */
export class SealedSecretError extends Error {
  /** The key id the value names; null for a legacy (`v1`) value, which names none, or a malformed one. */
  readonly keyId: string | null;
  constructor(message: string, keyId: string | null) {
    super(message);
    this.name = 'SealedSecretError';
    this.keyId = keyId;
  }
}

interface RingKey {
  id: string;
  /** AES-256-GCM key of sealed values. */
  sealing: Buffer;
  /** HMAC-SHA256 key of signatures. */
  signing: Buffer;
}

/**
 * Seals and opens small secrets at rest, and signs values the service hands out, under the
 * keyring of `SECRET_KEY` (see {@link parseKeyring}): the newest key seals and signs, every
 * listed key opens and verifies, so values made before a rotation keep working until the old
 * key leaves the list. A sealed value names its key:
 *
 * - `v2.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts; `keyId` from {@link keyIdOf},
 *   authenticated with the ciphertext), written by this version;
 * - `v1.<iv>.<tag>.<ciphertext>`, written before keyrings under the one key of the time: it
 *   names no key, so it is opened by whichever listed key authenticates it (GCM's tag tells).
 *
 * Signatures carry no key id (their format is unchanged, so links and digests made before
 * keyrings still verify): `verify` tries each key.
 *
 * @example
 * const box = new SecretBox(env.SECRET_KEY); // 'new…,old…'
 * const sealed = box.seal('whsec_…');        // 'v2.<id of new>.…'
 * box.open(sealed);                           // 'whsec_…'
 * box.reseal(sealedUnderOld);                 // sealed under new; null when it already is
 */
export class SecretBox {
  private readonly keys: readonly RingKey[];

  /** @param secretKey the `SECRET_KEY` value: one key, or comma-separated keys, newest first (each at least 32 characters) */
  constructor(secretKey: string) {
    const keys = parseKeyring(secretKey).map((key) => ({
      id: keyIdOf(key),
      // The same derivations as before keyrings: a key seals and signs as it always did.
      sealing: Buffer.from(hkdfSync('sha256', key, 'resale', 'at-rest-encryption', 32)),
      signing: Buffer.from(hkdfSync('sha256', key, 'resale', 'url-signing', 32)),
    }));
    if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error('Two keys of SECRET_KEY have the same key id: replace one of them');
    this.keys = keys;
  }

  /** The key ids of the keyring, newest (the one that seals and signs) first. Not secret: for logs and messages. */
  get keyIds(): string[] {
    return this.keys.map((k) => k.id);
  }

  /**
   * A URL-safe HMAC-SHA256 of `data` for `purpose` (distinct purposes never share a
   * signature), truncated to 128 bits, under the newest key.
   */
  sign(purpose: string, data: string): string {
    return hmac(this.keys[0]!, purpose, data);
  }

  /** Checks a signature made by `sign` under any key of the keyring, in constant time. */
  verify(purpose: string, data: string, signature: string): boolean {
    let ok = false;
    // Every key is tried, match or not, so the time taken does not say which key matched.
    for (const key of this.keys) ok = safeEqual(hmac(key, purpose, data), signature) || ok;
    return ok;
  }

  /** `plain` sealed under the newest key: `v2.<keyId>.<iv>.<tag>.<ciphertext>`. */
  seal(plain: string): string {
    const key = this.keys[0]!;
    const iv = randomBytes(12);
    const header = `v2.${key.id}`;
    const cipher = createCipheriv('aes-256-gcm', key.sealing, iv);
    cipher.setAAD(Buffer.from(header, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [header, ...[iv, cipher.getAuthTag(), body].map((p) => p.toString('base64url'))].join('.');
  }

  /**
   * Opens a value made by `seal` under any key of the keyring, or a legacy `v1` value.
   *
   * @throws SealedSecretError when its key is not in `SECRET_KEY`, it does not authenticate, or it is not a sealed value
   */
  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 5) {
      const [, id, iv, tag, body] = parts as [string, string, string, string, string];
      const key = this.keys.find((k) => k.id === id);
      if (!key) {
        throw new SealedSecretError(`The secret was sealed under key ${id}, which SECRET_KEY does not list (it lists ${this.keyIds.join(', ')}): add that key back to SECRET_KEY`, id);
      }
      const plain = decrypt(key.sealing, iv, tag, body, `v2.${id}`);
      if (plain === null) throw new SealedSecretError(`The secret sealed under key ${id} does not authenticate: it was altered or cut`, id);
      return plain;
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      const [, iv, tag, body] = parts as [string, string, string, string];
      for (const key of this.keys) {
        const plain = decrypt(key.sealing, iv, tag, body, null);
        if (plain !== null) return plain;
      }
      throw new SealedSecretError(`The secret was sealed before key ids (v1) under a key SECRET_KEY does not list (it lists ${this.keyIds.join(', ')}): add the key of that time back to SECRET_KEY`, null);
    }
    throw new SealedSecretError('Malformed sealed secret', null);
  }

  /**
   * The value sealed again under the newest key, or null when it already is (nothing to write).
   *
   * @throws SealedSecretError as {@link open}
   */
  reseal(sealed: string): string | null {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 5 && parts[1] === this.keys[0]!.id) {
      this.open(sealed); // still proves it opens: a reseal run vouches for every value it passes
      return null;
    }
    return this.seal(this.open(sealed));
  }
}

function hmac(key: RingKey, purpose: string, data: string): string {
  return createHmac('sha256', key.signing).update(`${purpose}\u0000${data}`).digest().subarray(0, 16).toString('base64url');
}

/** The plain text, or null when the value does not authenticate under `key`. */
function decrypt(key: Buffer, iv: string, tag: string, body: string, aad: string | null): string | null {
  try {
    // A full-length tag only: GCM would accept a truncated one, and with it a forgery.
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    if (aad !== null) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** What a reseal did to one table: rows read, rows rewritten under the newest key. */
export interface ResealCount {
  rows: number;
  resealed: number;
}

/**
 * `box.reseal(sealed)`, with where the value is stored (`partners ptr_… (webhook_secret_sealed)`)
 * in front of the message of a value that cannot be opened, so a reseal run names the row to
 * look at. The owners of sealed columns call it from their `resealAll`.
 *
 * @throws SealedSecretError naming `where`
 * @example resealAt(box, row.accountSealed, `payout_accounts ${row.id} (account_sealed)`)
 */
export function resealAt(box: SecretBox, sealed: string, where: string): string | null {
  try {
    return box.reseal(sealed);
  } catch (err) {
    if (err instanceof SealedSecretError) throw new SealedSecretError(`${where}: ${err.message}`, err.keyId);
    throw err;
  }
}
