import { jsonLimitMessage, jsonLimitViolation, PLATFORM_JSON_LIMITS } from '../../lib/json-limits.js';
import type { PartnerRow } from '../partners/partners.service.js';
import type { PartnersService } from '../partners/partners.service.js';

/**
 * Calls from the service to the partner platform (the pull feeds, the ownership
 * endpoint). One place decides the headers, the time limit, the size limit and how a
 * failure reads, so that no caller has to remember them and none can forget one.
 */

/** Why a call to the platform did not give usable JSON. */
export type PlatformFailureReason = 'timeout' | 'network' | 'http' | 'too_large' | 'invalid_json';

/** What {@link platformFetch} answers. It never throws for a remote failure. */
export type PlatformResult<T = unknown> =
  | { ok: true; status: number; json: T }
  | {
      ok: false;
      reason: PlatformFailureReason;
      /** The HTTP status when the platform answered one. */
      status?: number;
      /** For logs and operators; never holds the secret, the URL or its query. */
      message: string;
    };

export interface PlatformFetchOptions {
  /** The whole call, body included, must finish within this many milliseconds. Default 10 000. */
  timeoutMs?: number;
  /** A body larger than this many bytes is refused while it streams. Default 20 MiB. */
  maxBytes?: number;
  /** Query parameters added to (or replacing those of) the URL. */
  query?: Record<string, string>;
}

/** The header that carries the partner's platform secret (spec: "a secret header that the service sends on every HTTPS request"). */
export const PLATFORM_SECRET_HEADER = 'X-Resale-Secret';
export const PLATFORM_USER_AGENT = 'resale/1.0';
export const DEFAULT_PLATFORM_TIMEOUT_MS = 10_000;
export const DEFAULT_PLATFORM_MAX_BYTES = 20 * 1024 * 1024;
const MAX_REDIRECTS = 5;

/**
 * GETs JSON from the partner platform.
 *
 * - Sends `Accept: application/json`, `User-Agent: resale/1.0` and, when the partner has
 *   a platform secret, `X-Resale-Secret: <secret>`.
 * - Redirects are followed (at most 5); the secret header is sent only to the origin of
 *   `url`, never to another host a redirect points to.
 * - The whole call, reading the body included, is aborted after `timeoutMs`.
 * - The body is read as a stream and refused as soon as it passes `maxBytes` (a
 *   `Content-Length` above the limit is refused before reading); it is never buffered
 *   beyond the limit.
 * - A 2xx answer with a body must be JSON, nested at most 32 levels (`PLATFORM_JSON_LIMITS`,
 *   checked on the text before parsing); 204/205 and an empty 2xx body give `json: null`.
 *   Any other status is a failure with reason `http` and the status (so callers can tell a
 *   404 from a 500); its body is discarded.
 *
 * It never throws for remote failures: every one is a `{ok: false, reason, message}`.
 * Messages name neither the secret nor the URL (its query may carry an e-mail).
 *
 * @example
 * const res = await platformFetch(deps, partner, partner.settings.ownershipUrl!, { query: { user: email } });
 * if (!res.ok) logger.warn({ reason: res.reason, status: res.status }, res.message);
 * else use(res.json);
 */
export async function platformFetch<T = unknown>(
  deps: { partners: PartnersService },
  partner: PartnerRow,
  url: string,
  opts: PlatformFetchOptions = {},
): Promise<PlatformResult<T>> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PLATFORM_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_PLATFORM_MAX_BYTES;

  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, reason: 'network', message: 'The platform URL is not a valid URL' };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { ok: false, reason: 'network', message: 'The platform URL must be http(s)' };
  }
  for (const [name, value] of Object.entries(opts.query ?? {})) target.searchParams.set(name, value);

  const secret = deps.partners.platformSecret(partner);
  const origin = target.origin;
  const signal = AbortSignal.timeout(timeoutMs);
  const scrub = (message: string) => (secret ? message.split(secret).join('[redacted]') : message);

  try {
    let res: Response | undefined;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': PLATFORM_USER_AGENT };
      if (secret && target.origin === origin) headers[PLATFORM_SECRET_HEADER] = secret;
      res = await fetch(target, { method: 'GET', headers, signal, redirect: 'manual' });
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || location === null) break;
      await discard(res);
      if (hop >= MAX_REDIRECTS) return { ok: false, reason: 'http', status: res.status, message: `The platform redirected more than ${MAX_REDIRECTS} times` };
      const next = new URL(location, target);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        return { ok: false, reason: 'http', status: res.status, message: 'The platform redirected to a URL that is not http(s)' };
      }
      target = next;
    }

    if (res.status < 200 || res.status >= 300) {
      await discard(res);
      return { ok: false, reason: 'http', status: res.status, message: `The platform answered HTTP ${res.status}` };
    }

    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await discard(res);
      return { ok: false, reason: 'too_large', status: res.status, message: `The platform's answer is larger than ${maxBytes} bytes` };
    }

    const body = await readLimited(res, maxBytes);
    if (body === null) return { ok: false, reason: 'too_large', status: res.status, message: `The platform's answer is larger than ${maxBytes} bytes` };

    const text = new TextDecoder('utf-8').decode(body);
    if (text.trim() === '') {
      if (res.status === 204 || res.status === 205 || body.byteLength === 0) return { ok: true, status: res.status, json: null as T };
      return { ok: false, reason: 'invalid_json', status: res.status, message: 'The platform answered a blank body instead of JSON' };
    }
    // Checked on the text before parsing: a 100,000-level answer would overflow every recursive
    // walk after JSON.parse (the feed's validation, storage as JSON).
    const violation = jsonLimitViolation(text, PLATFORM_JSON_LIMITS);
    if (violation) return { ok: false, reason: 'invalid_json', status: res.status, message: `The platform's answer is not usable JSON: ${jsonLimitMessage(violation, 'it')}` };
    try {
      return { ok: true, status: res.status, json: JSON.parse(text) as T };
    } catch {
      // Not the parser's message: it quotes the body, which may hold personal data.
      return { ok: false, reason: 'invalid_json', status: res.status, message: `The platform's answer (${body.byteLength} bytes) is not valid JSON` };
    }
  } catch (err) {
    if (signal.aborted) return { ok: false, reason: 'timeout', message: `The platform did not answer within ${timeoutMs} ms` };
    return { ok: false, reason: 'network', message: scrub(`The platform could not be reached (${describeNetworkError(err)})`) };
  }
}

/** Reads the body up to `maxBytes`; null (and the stream cancelled) when it is larger. */
async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array | null> {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** Lets go of a body we do not read, so the connection is released. */
async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}

/** `ECONNREFUSED`, `ENOTFOUND`, … from undici's `fetch failed` and its cause. */
function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message.slice(0, 120);
  return err instanceof Error ? err.message.slice(0, 120) : 'unknown error';
}
