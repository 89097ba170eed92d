import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual, hkdfSync } from 'node:crypto';

/**
 * Secrets: API keys are only ever stored as SHA-256 hashes (they are 256-bit random
 * values, so a slow hash adds nothing); secrets the service must use later (webhook
 * signing secret, the platform's secret header) are sealed with AES-256-GCM under a key
 * derived from `SECRET_KEY`.
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

/** Seals and opens small secrets at rest. */
export class SecretBox {
  private readonly key: Buffer;
  private readonly signingKey: Buffer;
  constructor(secretKey: string) {
    this.key = Buffer.from(hkdfSync('sha256', secretKey, 'resale', 'at-rest-encryption', 32));
    this.signingKey = Buffer.from(hkdfSync('sha256', secretKey, 'resale', 'url-signing', 32));
  }

  /**
   * A URL-safe HMAC-SHA256 of `data` for `purpose` (distinct purposes never share a
   * signature), truncated to 128 bits.
   */
  sign(purpose: string, data: string): string {
    return createHmac('sha256', this.signingKey).update(`${purpose}\u0000${data}`).digest().subarray(0, 16).toString('base64url');
  }

  /** Checks a signature made by `sign`, in constant time. */
  verify(purpose: string, data: string, signature: string): boolean {
    return safeEqual(this.sign(purpose, data), signature);
  }
  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }
  open(sealed: string): string {
    const [v, iv, tag, body] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('Malformed sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
