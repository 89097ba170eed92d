import { createHash } from 'node:crypto';
import { negotiateEncoding, type Encoding } from '../../lib/compression.js';
import { compressedAnswer } from '../../flows/accesslayer/accesslayer.buy.cache.js';

/**
 * An unsigned buy access layer answer as HTTP: its coding, validator and cache headers. One
 * definition for the route (accesslayer.buy.routes.ts) and for the fast path that serves the
 * same answer from Node's own objects (accesslayer.buy.fast.ts), so the two cannot differ.
 */

/**
 * How long a partner's CDN (or the browser) may hold an unsigned answer: a couple of seconds
 * fresh, then served stale for a few more while it asks again. In an on-sale that turns every
 * page view of a show within those seconds into one request here; the numbers it shows are at
 * most that old, and the live stream (`…/stream`) corrects them in the widgets. `Vary:
 * Authorization` because the key names the partner (a cache keyed by the URL alone must not
 * serve one partner's answer to another's page); a signed answer (Login Trust) carries one-time
 * tokens and is never stored (`private, no-store`).
 */
export const PUBLIC_ANSWER_CACHE = 'public, max-age=2, stale-while-revalidate=10';

/** The `Cache-Control` of a signed answer (Login Trust): it carries one-time tokens. */
export const SIGNED_ANSWER_CACHE = 'private, no-store';

/**
 * What every unsigned answer varies on, after `Origin` when CORS said it: the coding, and the
 * key (which names the partner).
 */
export const ANSWER_VARY = 'Accept-Encoding, Authorization';

const JSON_TYPE = 'application/json';
/** Below this, an answer goes as it is (the compression middleware's threshold). */
const COMPRESS_FROM = 1024;
const CODINGS: readonly Encoding[] = ['br', 'gzip'];

/** An answer to send: a 200 with its body, or a 304 without one. Its headers are shared: never change them. */
export interface BuyAnswer {
  status: 200 | 304;
  headers: Readonly<Record<string, string>>;
  body: Uint8Array<ArrayBuffer> | null;
}

/** A rendered answer's validator and its answers per coding, made once per bytes object (as its compressed forms are): a page view allocates none. */
interface Validated {
  etag: string;
  notModified: BuyAnswer;
  answers: Partial<Record<Encoding | 'identity', BuyAnswer>>;
}
const validated = new WeakMap<Uint8Array, Validated>();

function validatedOf(bytes: Uint8Array): Validated {
  let v = validated.get(bytes);
  if (v === undefined) {
    // Weak: the same validator for every coding of the same JSON.
    const etag = `W/"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
    v = { etag, notModified: { status: 304, headers: { ETag: etag, 'Cache-Control': PUBLIC_ANSWER_CACHE }, body: null }, answers: {} };
    validated.set(bytes, v);
  }
  return v;
}

/**
 * Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2: `W/` ignored on both
 * sides; `*` matches any current answer).
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const raw of header.split(',')) {
    const v = raw.trim();
    if (v === '*' || (v.startsWith('W/') ? v.slice(2) : v) === opaque) return true;
  }
  return false;
}

/** The last `Accept-Encoding` seen and its coding: browsers send the same few strings, so parsing is rare. */
let lastAccept: { header: string | undefined; coding: Encoding | 'identity' | null } = { header: undefined, coding: 'identity' };

/**
 * The rendered answer `bytes` (cacheable JSON of `BuyAccessLayer.showJson`) for a request that
 * sent `ifNoneMatch` and `acceptEncoding`: `304` without a body when `If-None-Match` names its
 * `ETag` (a poll of an unchanged show costs a few bytes); else `200` in the coding the client
 * prefers, the compressed form kept with the cached answer (compressedAnswer: a page view
 * compresses nothing), with its `ETag`, `Cache-Control` ({@link PUBLIC_ANSWER_CACHE}) and
 * `Content-Length` (said here, not left to the adapter: a HEAD answer carries its GET's length
 * too). With nothing acceptable (not even identity), identity: an answer is more use to a page
 * than a 406. `Vary` ({@link ANSWER_VARY}) is the caller's, as CORS may have said `Origin`.
 */
export function buyAnswer(bytes: Uint8Array<ArrayBuffer>, ifNoneMatch: string | undefined, acceptEncoding: string | undefined): BuyAnswer {
  const v = validatedOf(bytes);
  if (noneMatch(ifNoneMatch, v.etag)) return v.notModified;
  let coding: Encoding | 'identity' = 'identity';
  if (bytes.byteLength >= COMPRESS_FROM) {
    if (lastAccept.header !== acceptEncoding) lastAccept = { header: acceptEncoding, coding: negotiateEncoding(acceptEncoding, CODINGS) };
    coding = lastAccept.coding ?? 'identity';
  }
  const kept = v.answers[coding];
  if (kept !== undefined) return kept;
  const body = coding === 'identity' ? bytes : compressedAnswer(bytes, coding);
  const encoded: Record<string, string> = coding === 'identity' ? {} : { 'Content-Encoding': coding };
  const answer: BuyAnswer = { status: 200, headers: { 'Content-Type': JSON_TYPE, ...encoded, ETag: v.etag, 'Cache-Control': PUBLIC_ANSWER_CACHE, 'Content-Length': String(body.byteLength) }, body };
  v.answers[coding] = answer;
  return answer;
}
