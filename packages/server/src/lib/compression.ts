import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

/**
 * Content codings: the choice by `Accept-Encoding` (RFC 9110 §12.5.3) and the encoders, shared
 * by the compression middleware (http/middleware/compression.ts), the pre-compressed widget
 * bundles and the buy access layer's cached answer, which is encoded once per cache fill.
 */

/** A content coding this service produces. */
export type Encoding = 'br' | 'gzip';

/** Brotli first: smaller than gzip on our JavaScript and JSON (the buy access layer's 7,982-byte answer: 904 bytes br, 1,041 gzip; the core bundle: 13.1 kB br, 14.8 kB gzip). */
const PREFERENCE: readonly (Encoding | 'identity')[] = ['br', 'gzip', 'identity'];

/**
 * The coding to answer with, from the request's `Accept-Encoding` and the codings on offer:
 * the one with the highest q-value, Brotli before gzip before identity on a tie; `*` stands for
 * every coding not named; `x-gzip` is gzip; an entry with a malformed q-value is ignored. No
 * header (or an empty one) means identity. `null` when nothing on offer is acceptable, identity
 * included (`identity;q=0` or `*;q=0` without another acceptable coding): the caller answers 406
 * or, where an error would hide a real answer, identity anyway.
 *
 * @example
 * negotiateEncoding('gzip, deflate, br', ['br', 'gzip']) // 'br'
 * negotiateEncoding('br;q=0.5, gzip', ['br', 'gzip'])    // 'gzip'
 * negotiateEncoding('identity;q=0, zstd', ['br', 'gzip']) // null
 */
export function negotiateEncoding(header: string | undefined | null, offered: readonly Encoding[]): Encoding | 'identity' | null {
  if (!header) return 'identity';
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    if (!name) continue;
    let weight = 1;
    let valid = true;
    for (const p of params) {
      const m = /^\s*q\s*=\s*(.*?)\s*$/i.exec(p);
      if (!m) continue;
      // RFC 9110 §12.4.2: "0", "1", or up to three decimals.
      if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(m[1]!)) valid = false;
      else weight = Number(m[1]);
    }
    if (!valid) continue;
    const key = name === 'x-gzip' ? 'gzip' : name;
    // A coding named twice: the higher weight wins (lenient, and what browsers never send anyway).
    q.set(key, Math.max(weight, q.get(key) ?? 0));
  }
  const star = q.get('*');
  const weightOf = (coding: Encoding | 'identity'): number => {
    const named = q.get(coding);
    if (named !== undefined) return named;
    if (star !== undefined) return star;
    // Identity is acceptable unless excluded; an unnamed coding is not.
    return coding === 'identity' ? 0.001 : 0;
  };
  let best: Encoding | 'identity' | null = null;
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    if (coding !== 'identity' && !offered.includes(coding)) continue;
    const w = weightOf(coding);
    if (w > bestQ) {
      best = coding;
      bestQ = w;
    }
  }
  return best;
}

/** Adds `Accept-Encoding` to a `Vary` value (kept as is when already there, or `*`). */
export function varyOnEncoding(current: string | null | undefined): string {
  if (!current) return 'Accept-Encoding';
  if (current.trim() === '*' || /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(current)) return current;
  return `${current}, Accept-Encoding`;
}

/**
 * Compression settings for answers built per request or per cache fill: Brotli quality 5 and
 * gzip level 6 cost well under a millisecond on a 10 KB page, and Brotli 5 is still smaller
 * than gzip 9. Files compressed once at build time use the maximum (quality 11, level 9).
 */
export const DYNAMIC_QUALITY = { br: 5, gzip: 6 } as const;

function brotliOptions(size: number, quality: number) {
  return { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: size, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
}

/**
 * `body` compressed with `encoding`, synchronously (small bodies: cheaper than a trip to zlib's
 * thread pool). Quality defaults to {@link DYNAMIC_QUALITY}.
 *
 * @example encodeSync(Buffer.from(json), 'br')
 */
export function encodeSync(body: Uint8Array, encoding: Encoding, quality: number = DYNAMIC_QUALITY[encoding]): Uint8Array<ArrayBuffer> {
  const out = encoding === 'br' ? brotliCompressSync(body, brotliOptions(body.byteLength, quality)) : gzipSync(body, { level: quality });
  return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** {@link encodeSync} on zlib's thread pool, for bodies big enough to hold up the event loop. */
export async function encodeAsync(body: Uint8Array, encoding: Encoding, quality: number = DYNAMIC_QUALITY[encoding]): Promise<Uint8Array<ArrayBuffer>> {
  const out = encoding === 'br' ? await brotliAsync(body, brotliOptions(body.byteLength, quality)) : await gzipAsync(body, { level: quality });
  return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
}

/**
 * An entity tag of the encoded representation: `"abc"` becomes `"abc-br"` (`W/"abc-gzip"`), so
 * a cache or browser revalidating with it is matched against the bytes it holds.
 *
 * @example withCoding('"abc"', 'br') // '"abc-br"'
 */
export function withCoding(etag: string, coding: Encoding): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${coding}"` : etag;
}
