import type { Context, MiddlewareHandler } from 'hono';
import { encodeAsync, encodeSync, negotiateEncoding, varyOnEncoding, withCoding, type Encoding } from '../../lib/compression.js';

/**
 * The compression of answers (the codings themselves and their choice: lib/compression.ts).
 *
 * Why not `hono/compress` (4.13): it has no Brotli (it uses `CompressionStream`, which offers
 * gzip and deflate only), its threshold only works when the answer carries a `Content-Length`
 * (`c.json()` and `c.html()` do not set one, so a 40-byte error envelope is compressed too), it
 * streams, so no answer keeps a `Content-Length`, and HEAD answers lose the `Vary` their GET
 * carries. Pages and JSON here are small and complete in memory, so this one compresses the
 * whole body with node:zlib and says how long it is.
 */

/**
 * The request's `Accept-Encoding`, read from Node's IncomingMessage when there is one: asking
 * Hono (`c.req.header()`) builds a whole Headers object, which the hottest route cannot afford
 * (see requestHeader in app.ts). A repeated header is joined with ", ", as a list should be.
 */
export function acceptEncodingOf(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  const raw = incoming?.headers ? incoming.headers['accept-encoding'] : c.req.header('accept-encoding');
  return Array.isArray(raw) ? raw.join(', ') : raw;
}

/** Text formats worth compressing (images, PDFs, fonts in woff2 are compressed already). */
const COMPRESSIBLE = /^\s*(?:text\/(?!event-stream)[^;\s]+|application\/(?:[\w.+-]*\+)?(?:json|javascript|xml|ecmascript|x-javascript|openmetrics-text)|image\/svg\+xml)\s*(?:;|$)/i;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;
const NO_STORE = /(?:^|,)\s*no-store\s*(?:,|$)/i;
/** Above this, compressed on zlib's thread pool rather than on the event loop. */
const ASYNC_FROM = 64 * 1024;
/** Above this, not compressed on the fly at all (nothing of ours is this big; a bound on the CPU one answer can take). */
const MAX_BYTES = 8 * 1024 * 1024;

/** Bodies smaller than this go as they are, by default (compression would save less than a packet). */
const DEFAULT_THRESHOLD = 1024;

/** Options of {@link compression}. */
export interface CompressionOptions {
  /** Bodies smaller than this many bytes go as they are (compression would save less than a packet). Default 1024. */
  threshold?: number;
}

/**
 * Compresses answers with Brotli or gzip, as the request's `Accept-Encoding` allows (see
 * {@link negotiateEncoding}), when they are text (HTML, JSON, JavaScript, CSS, SVG, XML) of at
 * least `threshold` bytes. The whole body is compressed in memory, so the answer keeps an exact
 * `Content-Length`; a HEAD answer carries the headers its GET would (Hono answers HEAD with the
 * GET handler's headers and no body). Every answer it could have compressed says
 * `Vary: Accept-Encoding`, so a shared cache keeps one copy per coding.
 *
 * Left alone:
 * - answers that already carry a `Content-Encoding` (pre-compressed widget bundles, the buy
 *   access layer's cached answer, the API reference bundle), or that already vary on
 *   `Accept-Encoding` (their handler chose identity on purpose);
 * - `Cache-Control: no-transform`, status 206, 204 and 304, streams (`text/event-stream`, or a
 *   `Transfer-Encoding` the handler set), and anything not text (the ticket PDF, images);
 * - HTML marked `Cache-Control: no-store` asked for with a `Cookie`: a hosted page of a
 *   browser that has a session or an anonymous CSRF secret carries tokens bound to that cookie
 *   next to text another site can put in the page (a `returnTo`, an e-mail), and a compressed
 *   page like that leaks its secret through its length over TLS (BREACH); the tokens are not
 *   masked per answer. Without a cookie, a page's secrets are new (a CSRF secret set by this
 *   very answer) or already in its URL (a ticket's view link), so it is compressed. JSON is not
 *   affected: the API is authenticated by a key header that another site cannot make a browser
 *   send.
 *
 * With `identity;q=0` and Brotli or gzip acceptable, an answer below the threshold is compressed
 * anyway; with nothing acceptable it goes as identity (an error answer is more useful than a 406).
 *
 * @example
 * app.use('*', compression());                  // after the request id, before the routes
 * app.use('*', compression({ threshold: 2048 }));
 */
export function compression(opts: CompressionOptions = {}): MiddlewareHandler {
  const threshold = opts.threshold ?? DEFAULT_THRESHOLD;
  return async function compress(c: Context, next) {
    await next();
    const res = c.res;
    // Status and headers only until the answer is known to be worth reading: on Node, touching
    // `res.body` turns @hono/node-server's lightweight Response into a real one (a Web stream
    // per answer), which the hot routes that negotiate for themselves (the buy access layer, the
    // widget bundles) must not pay for.
    const status = res.status;
    if (status === 204 || status === 206 || status === 304 || status < 200) return;
    const headers = res.headers;
    // Already encoded, or a stream its handler declared (hono/streaming's streamText): never read to its end here.
    if (headers.has('content-encoding') || headers.has('transfer-encoding')) return;
    const type = headers.get('content-type');
    if (!type || !COMPRESSIBLE.test(type)) return;
    const cacheControl = headers.get('cache-control');
    if (cacheControl && (NO_TRANSFORM.test(cacheControl) || (NO_STORE.test(cacheControl) && /^\s*text\/html/i.test(type) && hasCookie(c)))) return;
    const vary = headers.get('vary');
    if (vary && /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary)) return;

    const declared = headers.get('content-length');
    if (declared !== null && Number(declared) > MAX_BYTES) return;
    const accepted = acceptEncodingOf(c);
    // Known small from its header: no need to read it, and it never depends on Accept-Encoding.
    if (declared !== null && Number(declared) < threshold && !refusesIdentity(accepted)) return;

    const body = new Uint8Array(await res.arrayBuffer());
    const out = new Headers(headers);
    const coded = await codedBody(body, accepted, vary, threshold);
    if (coded !== null) {
      for (const [name, value] of Object.entries(coded.headers)) out.set(name, value);
      // Another representation, another tag: a strong ETag names exact bytes (RFC 9110 §8.8.3).
      const etag = out.get('etag');
      if (etag && coded.headers['Content-Encoding']) out.set('ETag', withCoding(etag, coded.headers['Content-Encoding'] as Encoding));
    }
    // Read to learn its size: given back as it was when it stays so.
    replace(c, new Response(coded?.body ?? body, { status, statusText: res.statusText, headers: out }));
  };
}

/** The request's `Accept-Encoding` accepts Brotli or gzip and refuses identity (`identity;q=0`): even a small answer is compressed. */
function refusesIdentity(accepted: string | undefined): boolean {
  const coding = negotiateEncoding(accepted, ['br', 'gzip']);
  return coding !== 'identity' && coding !== null && negotiateEncoding(accepted, []) === null;
}

/**
 * A whole text answer's body as {@link compression} sends it to a request that accepts
 * `accepted` (the answer's own `Vary` was `vary`): null when it goes as it is, unchanged
 * (smaller than `threshold`, identity not refused); else its bytes and the headers to set:
 * `Vary` with Accept-Encoding, `Content-Length`, and `Content-Encoding` unless no coding is
 * acceptable. For an answer written without the middleware (a fast path, node-listener.ts).
 */
export function codedBody(body: Uint8Array<ArrayBuffer>, accepted: string | undefined, vary: string | null, threshold = DEFAULT_THRESHOLD): Promise<CodedBody | null> | CodedBody | null {
  if (body.byteLength < threshold && !refusesIdentity(accepted)) return null;
  const coding = negotiateEncoding(accepted, ['br', 'gzip']);
  const headers: Record<string, string> = { Vary: varyOnEncoding(vary) };
  if (coding === 'identity' || coding === null || body.byteLength > MAX_BYTES) return { body, headers: { ...headers, 'Content-Length': String(body.byteLength) } };
  const done = (encoded: Uint8Array<ArrayBuffer>): CodedBody => ({ body: encoded, headers: { ...headers, 'Content-Encoding': coding, 'Content-Length': String(encoded.byteLength) } });
  return body.byteLength >= ASYNC_FROM ? encodeAsync(body, coding).then(done) : done(encodeSync(body, coding));
}

/** What {@link codedBody} answers: the bytes to send and the headers that describe them. */
export interface CodedBody {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

/** The request carries a `Cookie` header (read without building Hono's Headers, see {@link acceptEncodingOf}). */
function hasCookie(c: Context): boolean {
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  return Boolean(incoming?.headers ? incoming.headers.cookie : c.req.header('cookie'));
}

/**
 * Sets `c.res` to a response built from the old one's headers. Hono's `c.res` setter copies the
 * previous response's headers onto the new one (which would bring back the old
 * `Content-Length`), so the old one is dropped first.
 */
function replace(c: Context, res: Response): void {
  c.res = undefined as unknown as Response;
  c.res = res;
}
